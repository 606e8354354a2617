// Spec §4: DELETE /v1/sites/{id}/keys/{keyId} deletes the public key too. The site page then says the snippet
// needs a new public key, and its button (one on the page) makes one: the snippet comes back with the new key.
import { describe, expect, it } from 'vitest';
import { collectSite, postReport } from '../../api/test/support/collect.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

const UI_TIMEOUT = 15_000;

describe('dashboard: a site whose public key was deleted, in a real browser', () => {
  const suite = dashboardSuite();

  it('says the snippet needs a new public key, and the button makes one', { timeout: 90_000 }, async () => {
    const site = await collectSite(suite.t, `keys-${Math.random().toString(36).slice(2, 10)}.example`);
    await postReport(suite.t, site).expect(202);
    const { context, page } = await signedInPage(suite, site.ownerEmail, UI_TIMEOUT);
    try {
      await page.goto(`${suite.t.url}/sites/${site.siteId}`);
      const install = page.getByRole('region', { name: 'Install' });
      const keys = page.getByRole('region', { name: 'Keys' });
      await expect.poll(() => install.locator('#site-snippet').textContent()).toContain(site.publicKey);

      await keys.getByRole('button', { name: 'Delete public key' }).click();
      await keys.getByRole('button', { name: 'Delete public key' }).click(); // the confirm button in its place

      await install.getByText('The snippet needs a new public key.').waitFor();
      await install.getByText('Needs a new key').waitFor();
      expect(await install.locator('#site-snippet').count()).toBe(0);
      await keys.getByText('No public key: pages with the snippet are not counted until you create one under Install.').waitFor();
      // One button makes the key (the install card's), not one in each card.
      expect(await page.getByRole('button', { name: 'Create public key' }).count()).toBe(1);
      // The collector refuses the old key's reports meanwhile (within about a second on every node).
      await expect.poll(async () => (await postReport(suite.t, site)).status).toBe(404);

      await install.getByRole('button', { name: 'Create public key' }).click();
      await expect
        .poll(() => install.locator('#site-snippet').textContent(), { timeout: UI_TIMEOUT })
        .toMatch(/data-site="pk_[a-z0-9]{26}"/);
      const snippet = (await install.locator('#site-snippet').textContent()) ?? '';
      expect(snippet).not.toContain(site.publicKey);
      expect(snippet).toContain((await keys.locator('#site-public-key').textContent()) ?? 'no public key shown');
      expect(await page.getByText('The snippet needs a new public key.').count()).toBe(0);
    } finally {
      await context.close();
    }
  });
});
