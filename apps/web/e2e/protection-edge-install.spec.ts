import edgePackage from '@unseen-stats/edge/package.json' with { type: 'json' };
import { SiteKey } from '@us/db';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

const COLLECT_URL = 'https://in.collect.example/collect';
const { version } = edgePackage;
/** A server secret's value: the card never shows one unless it was made there a moment ago. */
const SECRET_VALUE = /sk_live_[A-Za-z0-9_-]{8,}/;

describe('protection page: installing the gate at the edge, in a real browser', () => {
  const suite = dashboardSuite({ env: () => ({ COLLECT_URL }) });

  it('fills the Workers and Node files with the site’s key and collect URL; a secret made there is shown once', {
    timeout: 90_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Edge install workspace' });
    const { siteId, publicKey } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Corner Shop' });
    const { context, page } = await signedInPage(suite, owner.email);
    try {
      await page.goto(`${t.url}/sites/${siteId}/protection`);
      const card = page.locator('section.card', { has: page.getByRole('heading', { name: 'Install at your edge' }) });
      const file = (name: string) => card.getByRole('figure', { name }).locator('code');

      await expect.poll(() => file('wrangler.toml').textContent()).toContain(`SVC_SITE_KEY = "${publicKey}"`);
      const toml = (await file('wrangler.toml').textContent()) ?? '';
      expect(toml).toContain('name = "corner-shop-gate"');
      expect(toml).toContain(`SVC_COLLECT_URL = "${COLLECT_URL}"`);
      expect(await file('Install in the Workers project').textContent()).toBe(`npm install @unseen-stats/edge@${version}`);
      expect(await file('src/worker.js').textContent()).toContain("import { withUnseen } from '@unseen-stats/edge';");
      expect(await file('The server secret (paste it when asked)').textContent()).toBe('npx wrangler secret put SVC_SECRET');
      expect(await file('server.js (start it with node --env-file=.env server.js)').textContent()).toContain(
        "import { protectMiddleware } from '@unseen-stats/edge/node';",
      );
      const env = () => file('.env (keep it out of version control)').textContent();
      expect(await env()).toContain(`SVC_SITE_KEY=${publicKey}\nSVC_COLLECT_URL=${COLLECT_URL}\n`);
      expect(await card.textContent()).toContain(`/sdk/edge@${version}/index.js`);
      expect(await card.textContent()).toContain('This site has no server secret yet');
      expect(await card.textContent()).not.toMatch(SECRET_VALUE);

      await card.getByRole('button', { name: 'Create server secret' }).click();
      const shown = card.locator('#site-new-secret');
      await expect.poll(() => shown.textContent()).toMatch(SECRET_VALUE);
      const secret = (await shown.textContent()) as string;
      // The one secret the service holds for the site is the one shown, and .env is filled with it…
      const stored = await t.deps.orm.em.fork().find(SiteKey, { site: siteId, kind: 'secret' });
      expect(stored).toHaveLength(1);
      expect(secret.startsWith(stored[0]?.prefix as string)).toBe(true);
      expect(await env()).toContain(`SVC_SECRET=${secret}\n`);
      // …never the Workers files, which go into a repository.
      expect(await file('wrangler.toml').textContent()).not.toContain(secret);

      // Dismissed, it is gone from the page; the card names the secret by its prefix only.
      await card.getByRole('button', { name: 'I have stored it' }).click();
      await expect.poll(() => card.textContent()).not.toContain(secret);
      expect(await env()).toContain('SVC_SECRET=<a server secret of this site: sk_live_…>');
      await expect.poll(() => card.textContent()).toContain(`This site has a server secret (${stored[0]?.prefix}…)`);
    } finally {
      await context.close();
    }
  });
});
