import { randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSearchPull } from '../../api/src/features/search/search-pull-job.ts';
import { type SearchProviders, startSearchProviders } from '../../api/test/support/search-providers.ts';
import { createToken, createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

const UI_TIMEOUT = 15_000;
const today = new Date().toISOString().slice(0, 10);

describe('search page in a real browser', () => {
  let providers: SearchProviders;
  beforeAll(async () => {
    providers = await startSearchProviders();
  });
  afterAll(() => providers?.close());
  const suite = dashboardSuite({
    env: () => ({ SEARCH_GOOGLE_API_URL: providers.googleUrl, SEARCH_BING_API_URL: providers.bingUrl }),
  });

  it('connects Google with a key (the refusal under its field first), connects Bing, shows the pulled weeks, disconnects', {
    timeout: 120_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Search workspace' });
    const em = t.deps.orm.em.fork();
    const { site } = await createSite(em, { workspace: owner.workspace.id, name: 'Shop' });
    const host = `shop-${randomBytes(4).toString('hex')}.example.test`;
    em.create(SiteHostname, { site, hostname: host, verifyToken: 'v'.repeat(32), verifiedAt: new Date() });
    await em.flush();
    const property = `https://${host}/`;
    const reader = providers.serviceAccount('dashboard-reader');
    providers.grant(reader.email, property);
    const apiKey = randomBytes(12).toString('hex');
    providers.bingKey(apiKey, [{ url: property, verified: true }]);
    const traffic = [{ day: today, page: `${property}a`, query: 'shop', clicks: 9, impressions: 120, position: 4 }];
    providers.googleData(property, traffic);
    providers.bingData(property, traffic, [3]);

    const { context, page } = await signedInPage(suite, owner.email, UI_TIMEOUT, 1000);
    await page.goto(`${t.url}/sites/${site.id}`);
    await page.getByRole('link', { name: 'Search', exact: true }).click();
    await page.waitForURL(new RegExp(`/sites/${site.id}/search$`));
    await page.getByRole('heading', { name: 'Shop search', level: 1 }).waitFor();
    await page.getByText('No weeks yet').waitFor();

    // Google: without delegated mode on this server, the form asks for a key; a bad one is refused under it.
    await page.getByLabel('Property').fill(property);
    await page.getByLabel('Service-account key file (JSON)').fill('{"type": "authorized_user"}');
    await page.getByRole('button', { name: 'Connect', exact: true }).first().click();
    await page.getByText(/This is not a service-account key file \(its type is not service_account\)/).waitFor();
    await page.getByLabel('Service-account key file (JSON)').fill(JSON.stringify(reader.keyFile, null, 2));
    await page.getByRole('button', { name: 'Connect', exact: true }).first().click();
    await page.getByTestId('search-primary').getByText(`Service account ${reader.email}`).waitFor();

    await page.getByLabel('API key').fill(apiKey);
    await page.getByLabel('Site URL').fill(property);
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByTestId('search-secondary').getByText(property).waitFor();
    expect(await page.content()).not.toContain(apiKey);

    await runSearchPull(
      t.deps.orm,
      {
        googleApi: providers.googleUrl,
        bingApi: providers.bingUrl,
        cipher: t.deps.ciphers.search,
        ownKey: null,
      },
      { now: new Date(Date.now() + 1000), siteIds: [site.id], wait: true },
    );
    await page.reload();
    const weeks = page.getByRole('table', { name: 'Search weeks' });
    await weeks.waitFor();
    const first = weeks.locator('tbody tr').first();
    expect(await first.locator('td').allTextContents()).toEqual(['Bing', '9', '120', '7.5%', '4.0', '1', '1', '3']);
    // The weeks the providers reported nothing for are not collected: "—", never 0, in the table and the
    // charts' figures (the oldest week, Google's row last).
    const oldest = weeks.locator('tbody tr').last();
    expect(await oldest.locator('td').allTextContents()).toEqual(['Google', '—', '—', '—', '—', '—', '—', '—']);
    const clicksFigures = page.getByRole('table', { name: 'Search clicks per week, figures' });
    expect(await clicksFigures.locator('tbody tr').first().locator('td').allTextContents()).toEqual(['—', '—']);
    expect(await clicksFigures.locator('tbody tr').last().locator('td').allTextContents()).toEqual(['9', '9']);
    expect(await page.getByRole('img').count()).toBeGreaterThan(0);
    const topPages = page.getByRole('table', { name: 'Google top pages' });
    expect(await topPages.locator('tbody tr').first().textContent()).toBe(`${property}a9120`);
    expect(await page.getByRole('table', { name: 'Bing top queries' }).locator('tbody th').allTextContents()).toEqual(['shop']);
    await page.screenshot({ path: '/tmp/e2e-search.png', fullPage: true });

    // Disconnected elsewhere meanwhile (another tab, the API): the button's refusal is shown, not swallowed.
    const { token } = await createToken(t.deps, {
      userId: owner.user.id,
      workspaceId: owner.workspace.id,
      scopes: ['search:write'],
    });
    await t.request.delete(`/v1/sites/${site.id}/search/secondary`).set('Authorization', `Bearer ${token}`).expect(204);
    const disconnect = async () => {
      await page
        .getByTestId('search-secondary')
        .getByRole('button', { name: `Disconnect ${property}` })
        .click();
      await page.getByTestId('search-secondary').getByRole('button', { name: 'Disconnect' }).click();
    };
    await disconnect();
    await page
      .getByTestId('search-secondary')
      .getByRole('alert')
      .filter({ hasText: /not connected/ })
      .waitFor();
    await page.reload();
    await page.getByLabel('API key').waitFor();
    // The weeks stay.
    expect(await weeks.locator('tbody tr').count()).toBeGreaterThan(0);
    await context.close();
  });
});
