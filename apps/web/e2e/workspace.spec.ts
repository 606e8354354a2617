import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, startTestServer, type TestServer } from '../../api/test/support/server.ts';
import { launchChromium, requireBuiltDashboard } from './support/browser.ts';
import { signInThroughUi } from './support/dashboard.ts';

const UI_TIMEOUT = 15_000;
const INVITEE = 'someone@example.test';

/** The path and query of the first `{APP_URL}/<page>?token=…` link in the mail's text. */
function linkPath(text: string, page: string): string {
  const link = new RegExp(`https?://[^\\s"<>]+/${page}\\?token=[A-Za-z0-9_%-]+`).exec(text)?.[0];
  if (!link) throw new Error(`no /${page} link in the e-mail`);
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

describe('dashboard: workspace pages in a real browser', () => {
  let t: TestServer;
  let browser: Browser;
  let owner: Awaited<ReturnType<typeof createUser>>;
  let ownerContext: BrowserContext;
  let ownerPage: Page;

  beforeAll(async () => {
    requireBuiltDashboard();
    t = await startTestServer();
    browser = await launchChromium();
    owner = await createUser(t.deps, { workspaceName: 'Acme Analytics' });
    ownerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await ownerContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    ownerPage = await ownerContext.newPage();
    ownerPage.setDefaultTimeout(UI_TIMEOUT);
    await ownerPage.goto(`${t.url}/login`);
    await signInThroughUi(ownerPage, owner.email);
    await ownerPage.waitForURL(/\/sites$/);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('creates a token, shows its secret once, and the token works', { timeout: 120_000 }, async () => {
    const page = ownerPage;
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Tokens' }).click();
    await page.waitForURL(/\/tokens$/);
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await page.getByText('No tokens yet.').waitFor();

    const form = page.locator('form[name="createToken"]');
    await form.locator('input[name="name"]').fill('Nightly export');
    // No scope yet: the server's refusal shows under the scope checkboxes.
    await form.getByRole('button', { name: 'Create token' }).click();
    await expect
      .poll(() => page.locator('#createToken-scopes-error').textContent(), { timeout: UI_TIMEOUT })
      .toMatch(/at least one scope/);
    await form.locator('input[name="scopes"][value="sites:read"]').check();
    await form.locator('input[name="scopes"][value="analytics:read"]').check();
    await form.getByRole('button', { name: 'Create token' }).click();

    // The secret, once, in its highlighted box.
    const secretBox = page.locator('#new-token-secret');
    await secretBox.waitFor();
    const secret = (await secretBox.textContent())?.trim() ?? '';
    expect(secret).toMatch(/^ust_/);
    await page.getByText('you won’t see it again', { exact: false }).waitFor();

    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('button', { name: 'Copied', exact: true }).waitFor();
    // The e2e project has no DOM types: the page reads its clipboard from a string of script.
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);

    // The list shows the new token by its prefix and scopes, never the secret.
    const row = page.getByRole('row', { name: /Nightly export/ });
    await row.waitFor();
    const prefix = (await row.locator('.prefix').textContent())?.replace('…', '') ?? '';
    expect(prefix.length).toBeGreaterThan(4);
    expect(secret.startsWith(prefix)).toBe(true);
    expect(prefix.length).toBeLessThan(secret.length);
    expect(await row.locator('.chip').allTextContents()).toEqual(['analytics:read', 'sites:read']);
    expect(await row.textContent()).toContain('All sites');
    await page.screenshot({ path: '/tmp/e2e-tokens.png', fullPage: true });

    await page.getByRole('button', { name: /I have stored it/ }).click();
    await expect.poll(() => page.locator('#new-token-secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    await page.reload();
    await page.getByRole('row', { name: /Nightly export/ }).waitFor();
    expect(await page.locator('.prefix').first().textContent()).toContain(prefix);
    expect(await page.content()).not.toContain(secret);
    expect(await page.locator('#new-token-secret').count()).toBe(0);

    // The token works over HTTP.
    const res = await t.request.get('/v1/me').set('Authorization', `Bearer ${secret}`).expect(200);
    expect(res.body.actor.type).toBe('token');
    expect([...res.body.scopes].sort()).toEqual(['analytics:read', 'sites:read']);
  });

  it('invites someone who signs in, joins and is listed as a member', { timeout: 120_000 }, async () => {
    const page = ownerPage;
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members' }).click();
    await page.waitForURL(/\/members$/);
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();

    const form = page.locator('form[name="invite"]');
    await form.locator('input[name="email"]').fill(INVITEE);
    await form.locator('select[name="role"]').selectOption('member');
    await form.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`An invitation is on its way to ${INVITEE}`).waitFor();
    await page.getByRole('row', { name: new RegExp(INVITEE) }).waitFor();

    // Inviting the same address again: the server's 409 is shown at the top of the form.
    await form.locator('input[name="email"]').fill(INVITEE);
    await form.getByRole('button', { name: 'Send invitation' }).click();
    await form.getByRole('alert').filter({ hasText: 'already has a pending invitation' }).waitFor();

    // The Free plan's two seats are taken (the owner and the pending invitation): 402, said at the top.
    await form.locator('input[name="email"]').fill('another@example.test');
    await form.getByRole('button', { name: 'Send invitation' }).click();
    await form.getByRole('alert').filter({ hasText: 'plan allows 2 members' }).waitFor();

    const mail = await t.smtp.waitFor(INVITEE, /Join/, 10_000);
    const invitePath = linkPath(mail.text, 'accept-invite');

    // The invitee: an account with that address, a fresh browser, signed out at first.
    await createUser(t.deps, { email: INVITEE, workspaceName: 'Someone’s own' });
    const inviteeContext = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    const invitee = await inviteeContext.newPage();
    invitee.setDefaultTimeout(UI_TIMEOUT);
    await invitee.goto(`${t.url}${invitePath}`);
    await invitee.getByRole('heading', { name: 'Join a workspace' }).waitFor();
    await invitee.getByRole('main').getByRole('link', { name: 'Sign in' }).click();
    await invitee.waitForURL(/\/login$/);
    await signInThroughUi(invitee, INVITEE);

    // Back at the invitation after signing in; join.
    await invitee.waitForURL(/\/accept-invite\?token=/);
    await invitee.getByRole('button', { name: 'Join workspace' }).waitFor();
    await invitee.getByRole('button', { name: 'Join workspace' }).click();
    await invitee.waitForURL(/\/members$/);
    await invitee.getByText('Welcome to Acme Analytics: you joined as member.').waitFor();
    const switcher = invitee.locator('#workspace-switcher');
    expect(await switcher.inputValue()).toBe(owner.workspace.id);
    // A member may not invite, so there is no invitation form for them.
    expect(await invitee.locator('form[name="invite"]').count()).toBe(0);

    // The switcher: their own workspace, then back to the new one; each reloads the page's data.
    await switcher.selectOption({ label: 'Someone’s own (owner)' });
    await invitee.getByText('You are now working in Someone’s own.').waitFor();
    await invitee.locator('form[name="invite"]').waitFor();
    await invitee.locator('#workspace-switcher').selectOption({ label: 'Acme Analytics (member)' });
    await invitee.getByText('You are now working in Acme Analytics.').waitFor();

    // The owner's page, reloaded: the invitee is a member, the invitation is gone.
    await page.reload();
    const memberRow = page.getByRole('row', { name: new RegExp(INVITEE) });
    await memberRow.waitFor();
    expect(await memberRow.locator('select').inputValue()).toBe('member');
    await page.getByText('No pending invitations.').waitFor();
    await page.screenshot({ path: '/tmp/e2e-members.png', fullPage: true });

    // The owner removes them: their browser forgets the workspace it remembered and shows their own.
    await memberRow.getByRole('button', { name: `Remove ${INVITEE}` }).click();
    await memberRow.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect.poll(() => page.getByRole('row', { name: new RegExp(INVITEE) }).count()).toBe(0);
    await invitee.reload();
    await invitee.locator('.workspace-single', { hasText: 'Someone’s own' }).waitFor();
    await invitee.locator('form[name="invite"]').waitFor();
    expect(await invitee.evaluate('localStorage.getItem("us_workspace")')).toBeNull();
    await inviteeContext.close();
  });
});
