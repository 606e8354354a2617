import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectSite, postReport } from '../../api/test/support/collect.ts';
import { type DnsStandIn, startDnsServer } from '../../api/test/support/dns-server.ts';
import { createToken, createUser, joinAs, startTestServer, type TestServer } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { launchChromium, requireBuiltDashboard } from './support/browser.ts';
import { signInThroughUi } from './support/dashboard.ts';

const SITE_SCREENSHOT = '/tmp/e2e-site.png';
const SITES_SCREENSHOT = '/tmp/e2e-sites.png';
const VIEWER_SCREENSHOT = '/tmp/e2e-site-viewer.png';
const UI_TIMEOUT = 15_000;

/** The internal-network input showing `value`, and the text of the error tied to it (if any). */
async function networkError(page: Page, value: string): Promise<string | null> {
  const input = page.locator('form[name="internalNetworks"] input[name="internalNetworks"]');
  const all = await input.all();
  for (const el of all) {
    if ((await el.inputValue()) !== value) continue;
    if ((await el.getAttribute('aria-invalid')) !== 'true') return null;
    const ids = ((await el.getAttribute('aria-describedby')) ?? '').split(' ').filter((id) => id.endsWith('-error'));
    return ids[0] ? page.locator(`[id="${ids[0]}"]`).textContent() : null;
  }
  throw new Error(`no internal-network row shows ${value}`);
}

describe('dashboard: site pages in a real browser', () => {
  let t: TestServer;
  let dns: DnsStandIn;
  let browser: Browser;

  beforeAll(async () => {
    requireBuiltDashboard();
    dns = await startDnsServer();
    // A tiny per-address collect budget, so one test can show the owner what the budgets dropped.
    t = await startTestServer({ env: { DNS_SERVERS: dns.address, COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: '2' } });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await dns?.close();
  });

  it('sends a signed-out visitor of /sites to sign in', { timeout: 60_000 }, async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${t.url}/sites`);
    await page.waitForURL(/\/login$/);
    await context.close();
  });

  it('tells the owner how many reports the collect budgets dropped', { timeout: 60_000 }, async () => {
    const site = await collectSite(t, `flood-${Math.random().toString(36).slice(2, 10)}.example`);
    for (let i = 0; i < 3; i++) await postReport(t, site).expect(202);
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${t.url}/login`);
    await signInThroughUi(page, site.ownerEmail);
    await page.waitForURL(/\/sites$/);
    await page.goto(`${t.url}/sites/${site.siteId}`);
    await expect
      .poll(() => page.locator('#collect-health').textContent(), { timeout: UI_TIMEOUT })
      .toMatch(/1 report dropped in the last 7 days \(1 today\).*1 from single addresses sending too many/);
    await context.close();
  });

  it('creates a site, verifies its hostname by DNS and edits its internal networks', { timeout: 180_000 }, async () => {
    const owner = await createUser(t.deps, { workspaceName: 'Shop workspace' });
    const host = `shop-${Math.random().toString(36).slice(2, 10)}.example.com`;
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 }, timezoneId: 'Europe/Berlin' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);

    await page.goto(`${t.url}/login`);
    await signInThroughUi(page, owner.email);
    await page.waitForURL(/\/sites$/);

    // The site list: empty, saying what a site is; the create form has the browser's zone preselected.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Sites' }).click();
    await page.waitForURL(/\/sites$/);
    await page.getByRole('heading', { name: 'Sites', level: 1 }).waitFor();
    await page.getByText('No sites yet.').waitFor();
    const create = page.locator('form[name="createSite"]');
    expect(await create.locator('select[name="timezone"]').inputValue()).toBe('Europe/Berlin');

    // A bad hostname is pointed at by its line.
    await create.locator('input[name="name"]').fill('My shop');
    await create.locator('textarea[name="hostnames"]').fill(`${host}\n\nhttps://bad.example.com/x`);
    await create.getByRole('button', { name: 'Create site' }).click();
    await expect
      .poll(() => page.locator('#createSite-hostnames-error').textContent(), { timeout: UI_TIMEOUT })
      .toMatch(/^Line 3 \(https:\/\/bad\.example\.com\/x\): Leave out the scheme/);

    await create.locator('textarea[name="hostnames"]').fill(host);
    await create.getByRole('button', { name: 'Create site' }).click();
    await page.waitForURL(/\/sites\/[0-9a-f-]{36}$/);
    await page.getByRole('heading', { name: 'My shop', level: 1 }).waitFor();
    await page.getByText('Time zone Europe/Berlin').waitFor();

    // The exact TXT record to add.
    const record = page.getByRole('table', { name: `DNS record to add for ${host}` });
    await record.waitFor();
    const cells = record.locator('tbody tr td');
    expect(await cells.nth(0).textContent()).toBe('TXT');
    const name = await record.locator('code.site-dns-name').textContent();
    const value = (await record.locator('code.site-dns-value').textContent()) ?? '';
    expect(name).toBe(`_svc.${host}`);
    expect(value).toMatch(/^svc-verify=[A-Za-z0-9_-]{20,}$/);

    // Verify before the record exists: the service says what is missing.
    const item = page.getByRole('listitem', { name: host });
    await item.getByRole('button', { name: `Verify ${host}` }).click();
    await item.getByText(`No TXT record found at _svc.${host}`).waitFor();
    await item.screenshot({ path: '/tmp/e2e-site-hostname.png' });
    await item.getByText('Not verified', { exact: true }).waitFor();

    // The record is added at the DNS server: verified, and the record table is gone.
    dns.setTxt(`_svc.${host}`, [value]);
    await item.getByRole('button', { name: `Verify ${host}` }).click();
    await item.getByText('Verified', { exact: true }).waitFor();
    await record.waitFor({ state: 'detached' });
    expect(await item.getByRole('button', { name: `Verify ${host}` }).count()).toBe(0);
    expect(dns.queries).toContain(`_svc.${host}`);

    // The snippet carries the site's public key.
    const snippet = (await page.locator('#site-snippet').textContent()) ?? '';
    expect(snippet).toContain('data-site="pk_');
    expect(snippet).toContain((await page.locator('#site-public-key').textContent()) ?? 'no public key shown');

    // The parts of the page script: a new site gets the core; turning on events keeps the snippet, and the
    // site's script (the snippet's address) grows by what events add.
    const parts = page.locator('form[name="scriptFeatures"]');
    const coreBytes = await page.locator('#script-bytes').textContent();
    expect(coreBytes).toMatch(/^[\d,]+ B$/);
    await parts.getByRole('checkbox', { name: /Custom events/ }).check();
    await parts.getByRole('button', { name: 'Save parts' }).click();
    await parts.getByText('Saved: pages get the new script within an hour').waitFor();
    await expect.poll(() => page.locator('#script-bytes').textContent()).not.toBe(coreBytes);
    expect(await page.locator('#site-snippet').textContent()).toBe(snippet);
    await parts.screenshot({ path: '/tmp/e2e-site-script-parts.png' });
    await page.getByText('Waiting for the first pageview…').waitFor();

    // A server secret is shown once, then only by its prefix.
    await page.getByRole('button', { name: 'Create server secret' }).click();
    const secret = (await page.locator('#site-new-secret').textContent()) ?? '';
    expect(secret).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await page
      .getByRole('list', { name: 'Server secrets' })
      .getByText(`${secret.slice(0, 12)}…`)
      .waitFor();
    expect(await page.locator('#site-new-secret').count()).toBe(0);

    // The internal link on the verified hostname.
    await page.getByRole('button', { name: 'Create link' }).click();
    expect(await page.locator('#internal-link-url').textContent()).toMatch(
      new RegExp(`^https://${host.replace(/\./g, '\\.')}/_us/internal\\?token=`),
    );

    // An internal network, saved and still there after a reload.
    const networks = page.locator('form[name="internalNetworks"]');
    await networks.getByRole('button', { name: 'Add network' }).click();
    await networks.getByRole('textbox', { name: 'Network 1', exact: true }).fill('10.0.0.0/8');
    await networks.getByRole('button', { name: 'Save networks' }).click();
    await networks.getByText('Saved: 1 network counts as internal.').waitFor();
    await page.screenshot({ path: SITE_SCREENSHOT, fullPage: true });

    await page.reload();
    await page.getByRole('heading', { name: 'My shop', level: 1 }).waitFor();
    await expect
      .poll(() => networks.getByRole('textbox', { name: 'Network 1', exact: true }).inputValue(), { timeout: UI_TIMEOUT })
      .toBe('10.0.0.0/8');

    // A bad one is refused under its own row, and the good one is untouched.
    await networks.getByRole('button', { name: 'Add network' }).click();
    await networks.getByRole('textbox', { name: 'Network 2', exact: true }).fill('10.0.0.0/99');
    await networks.getByRole('button', { name: 'Save networks' }).click();
    await expect.poll(() => networkError(page, '10.0.0.0/99'), { timeout: UI_TIMEOUT }).toMatch(/prefix length of 0 to 32/);
    expect(await networkError(page, '10.0.0.0/8')).toBeNull();
    await page.reload();
    await page.getByRole('heading', { name: 'My shop', level: 1 }).waitFor();
    await expect.poll(() => networks.locator('input[name="internalNetworks"]').count(), { timeout: UI_TIMEOUT }).toBe(1);

    // A goal and an experiment.
    const goal = page.locator('form[name="addGoal"]');
    await goal.locator('input[name="name"]').fill('Signed up');
    await goal.locator('input[name="match"]').fill('signup');
    await goal.getByRole('button', { name: 'Add goal' }).click();
    await page.getByRole('table', { name: 'Goals' }).getByText('signed-up').waitFor();
    const exp = page.locator('form[name="addExperiment"]');
    await exp.locator('input[name="key"]').fill('pricing');
    await exp.getByRole('button', { name: 'Add experiment' }).click();
    const status = page.getByRole('combobox', { name: 'Status of pricing' });
    // Wait for the update to reach the server before reloading (the select changes at once).
    const saved = page.waitForResponse((r) => r.url().includes('siteSettings.updateExperiment') && r.ok());
    await status.selectOption('running');
    await saved;
    await page.reload();
    await expect.poll(() => status.inputValue(), { timeout: UI_TIMEOUT }).toBe('running');

    // The list shows the site with its hostname count, linking back to it.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Sites' }).click();
    await page.waitForURL(/\/sites$/);
    const row = page.getByRole('table', { name: 'Sites' }).getByRole('row', { name: /My shop/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('Europe/Berlin');
    expect(await row.textContent()).toContain('1 verified');
    await page.screenshot({ path: SITES_SCREENSHOT, fullPage: true });

    // An unknown site is a friendly page.
    await page.goto(`${t.url}/sites/00000000-0000-4000-8000-000000000000`);
    await page.getByText('No such site in this workspace.').waitFor();
    await context.close();
  });
  // The defect: a viewer saw every write button and form of a site, and each answered 403 once used.
  it("shows a viewer the site's settings without the controls their role cannot use", { timeout: 120_000 }, async () => {
    const viewer = await createUser(t.deps, { role: 'viewer', workspaceName: 'Looked-at workspace' });
    const { site } = await createSite(t.deps.orm.em.fork(), {
      workspace: viewer.workspace.id,
      name: 'Looked at',
      ciphers: t.deps.ciphers,
    });
    const owner = await joinAs(t, viewer.workspace.id, 'owner');
    const { token } = await createToken(t.deps, {
      userId: owner.user.id,
      workspaceId: viewer.workspace.id,
      scopes: ['sites:read', 'sites:write', 'analytics:read'],
    });
    const auth = `Bearer ${token}`;
    await t.request
      .post(`/v1/sites/${site.id}/goals`)
      .set('Authorization', auth)
      .send({ name: 'Signed up', type: 'event', match: 'signup' })
      .expect(201);
    await t.request.post(`/v1/sites/${site.id}/keys`).set('Authorization', auth).send({ kind: 'secret' }).expect(201);

    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${t.url}/login`);
    await signInThroughUi(page, viewer.email);
    await page.waitForURL(/\/sites$/);
    // The sites list offers no new site either.
    await page.getByText(/Your role \(viewer\) can see/).waitFor();
    expect(await page.locator('form[name="createSite"]').count()).toBe(0);

    await page.goto(`${t.url}/sites/${site.id}`);
    // What the site has is shown…
    await page.getByRole('table', { name: 'Goals' }).getByText('Signed up').waitFor();
    await page.getByRole('list', { name: 'Server secrets' }).waitFor();
    await page.getByText(/Your role \(viewer\) can see this site's settings/).waitFor();
    // …and nothing offers a change: no form to send, no button that writes.
    expect(await page.locator('form button[type="submit"]:not([disabled])').count()).toBe(0);
    for (const name of [/^Delete/, /^Rotate/, /^Rename/, /Create server secret/, /^Verify/, /Revoke/, /Pause/]) {
      expect(await page.getByRole('button', { name }).count(), String(name)).toBe(0);
    }
    expect(await page.locator('form[name="addGoal"]').count()).toBe(0);
    await page.screenshot({ path: VIEWER_SCREENSHOT, fullPage: true });

    // The site's other pages: each says what the role may do there, and offers no control it may not use.
    const pages: [string, RegExp][] = [
      ['protection', /can see this site's protection and try changes on it but not save them/],
      ['search', /can see this site's search connections and figures but not connect or disconnect them/],
      ['imports', /can see this site's imports but not start or delete one/],
      ['export', /Your role \(viewer\) cannot export a site's data/],
    ];
    for (const [path, says] of pages) {
      await page.goto(`${t.url}/sites/${site.id}/${path}`);
      await page.getByText(says).waitFor();
      for (const name of [
        /^Save settings$/,
        /^Rotate/,
        /Create server secret/,
        /^Connect$/,
        /^Export$/,
        /^Start import/,
        /^Delete/,
      ]) {
        expect(await page.getByRole('button', { name }).count(), `${path}: ${String(name)}`).toBe(0);
      }
    }
    // A viewer still tries a request against the protection settings (a read): its form stays.
    await page.goto(`${t.url}/sites/${site.id}/protection?tab=try`);
    await page.locator('form[name="tryRequest"]').waitFor();
    await page.goto(`${t.url}/sites/${site.id}/funnels`);
    await page
      .getByRole('heading', { name: /funnels/i })
      .first()
      .waitFor();
    expect(await page.locator('form button[type="submit"]:not([disabled])').count()).toBe(0);
    await context.close();
  });
});
