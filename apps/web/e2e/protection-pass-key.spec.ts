import { Site } from '@us/db';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

describe('protection page: replacing the pass key in a real browser', () => {
  const suite = dashboardSuite();

  it('asks first, replaces the key, and says that earlier passes no longer work', { timeout: 90_000 }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Pass key workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Key shop' });
    const sealed = async () => (await t.deps.orm.em.fork().findOneOrFail(Site, { id: siteId })).passKeyEnc;
    const before = await sealed();
    const { context, page } = await signedInPage(suite, owner.email);
    try {
      await page.goto(`${t.url}/sites/${siteId}/protection`);
      const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Pass key' }) });
      await card.getByRole('button', { name: 'Replace pass key' }).click();
      await expect.poll(() => card.textContent()).toContain('End every visitor’s pass now?');
      // Nothing happens before the confirmation.
      expect(await sealed()).toBe(before);
      await card.getByRole('button', { name: 'Replace key' }).click();
      await expect.poll(() => card.textContent(), { timeout: 15_000 }).toContain('earlier passes no longer work');
      const after = await sealed();
      expect(after).toBeTruthy();
      expect(after).not.toBe(before);
    } finally {
      await context.close();
    }
  });
});
