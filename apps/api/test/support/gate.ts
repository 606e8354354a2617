import { SiteHostname } from '@us/db';
import type { BotSettings } from '@us/shared';
import { collectSite } from './collect.ts';
import type { TestServer } from './server.ts';

/**
 * Factory: a site ready for the gate's routes: a verified hostname (returns of a check may go there), a
 * server secret, bot settings as given (through PUT /v1/sites/{id}/bot), and an owner token holding the
 * sites, bot and analytics scopes.
 */
export async function gateSite(t: TestServer, hostname: string, bot: Partial<BotSettings> = {}) {
  const site = await collectSite(t, hostname, ['bot:read', 'bot:write', 'analytics:read']);
  await t.deps.orm.em.fork().nativeUpdate(SiteHostname, { site: site.siteId, hostname }, { verifiedAt: new Date() });
  const setBot = (settings: Partial<BotSettings>) =>
    t.request
      .put(`/v1/sites/${site.siteId}/bot`)
      .set('Authorization', site.auth)
      .send({ mode: 'challenge', bots: 'allow', rules: [], ...settings })
      .expect(200);
  await setBot(bot);
  return { ...site, setBot };
}
export type GateSite = Awaited<ReturnType<typeof gateSite>>;

/** GET /collect/protection with the site's secret. */
export const getConfig = (t: TestServer, site: Pick<GateSite, 'secret'>, headers: Record<string, string> = {}) =>
  t.request.get('/collect/protection').set({ 'x-svc-proxy': site.secret, ...headers });

/** POST /collect/decide with the site's secret. */
export const decideFor = (t: TestServer, site: Pick<GateSite, 'secret'>, body: Record<string, unknown>) =>
  t.request.post('/collect/decide').set('x-svc-proxy', site.secret).send(body);

/** POST /collect/requests with the site's secret: the records as given (`at` now unless set). */
export const postRecords = (t: TestServer, site: Pick<GateSite, 'secret' | 'publicKey'>, records: Record<string, unknown>[]) =>
  t.request
    .post('/collect/requests')
    .set('x-svc-proxy', site.secret)
    .send({
      k: site.publicKey,
      records: records.map((r) => ({ at: Date.now(), method: 'GET', path: '/', status: 200, ms: 5, ...r })),
    });
