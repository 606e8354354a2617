import { describe, expect, it } from 'vitest';
import { createToken, createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

/** "Allow embedding" on the site page: the link says so in the list, and its page lets the site's proven hostnames frame it. */
describe('dashboard: a shared link that may be embedded', () => {
  const suite = dashboardSuite();

  it('is made with the box ticked, listed as embeddable, and framed by the site’s hostnames only', {
    timeout: 120_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Embed workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Embed shop' });
    const { token } = await createToken(t.deps, {
      userId: owner.user.id,
      workspaceId: owner.workspace.id,
      scopes: ['sites:write'],
    });
    await t.request
      .post(`/v1/sites/${siteId}/hostnames`)
      .set('Authorization', `Bearer ${token}`)
      .send({ hostname: 'shop.embed.test' })
      .expect(201);
    // Proven the site's (its TXT record verified): only such hostnames may frame a shared view.
    await t.deps.orm.em
      .fork()
      .execute(`update site_hostnames set verified_at = now() where site_id = ? and hostname = 'shop.embed.test'`, [siteId]);

    const { context, page } = await signedInPage(suite, owner.email);
    await page.goto(`${t.url}/sites/${siteId}`);
    const form = page.getByRole('form', { name: 'Create a shared link' });
    await form.getByLabel('Label').fill('On our pages');
    const embed = form.getByRole('checkbox', { name: /Allow embedding/ });
    expect(await embed.isChecked()).toBe(false);
    await embed.check();
    await form.getByRole('button', { name: 'Create shared link' }).click();
    const row = page.getByRole('table', { name: 'Shared links' }).getByRole('row', { name: /On our pages/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('On this site’s hostnames');
    // The form is ready for the next link, box cleared.
    await expect.poll(() => embed.isChecked()).toBe(false);

    const url = (await row.locator('code.share-url').textContent()) ?? '';
    const res = await t.request.get(new URL(url).pathname).expect(200);
    expect(res.headers['content-security-policy']).toMatch(/frame-ancestors shop\.embed\.test(;|$)/);
    expect(res.headers['x-frame-options']).toBeUndefined();
    await context.close();
  });
});
