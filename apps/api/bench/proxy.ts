// Proxy mode carried by the service itself: a live proxy hostname whose origin is the bench's bare http
// server, requested through the API (decided, forwarded with undici, recorded) beside the same bare server
// asked directly. Throughput in alternating rounds as a share of bare http's; latency paced at one rate in
// alternating rounds, the proxied request's p50 and p99 over the direct request's in the same run.
import { createOrm, Site, SiteHostname } from '@us/db';
import { ensureSite } from '../scripts/seed/accounts.ts';
import { deleteTraffic } from '../scripts/seed/generate.ts';
import { newSiteSettings } from '../src/features/sites/settings-values.ts';
import type { pacedBeside } from './beside.ts';
import { formatRow, type LoadRequest } from './load.ts';
import { SETTINGS } from './protection.ts';

export const PROXY_HOSTNAME = 'proxy.bench.example';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/**
 * The bench's proxy site: a live proxy hostname forwarding to `origin`, protection in `log` mode with the
 * protection bench's rules (every request decided in full, none refused: the one bench visitor soon shows a
 * burst, which `challenge` would act on), its earlier runs' request rows deleted.
 */
export async function prepareProxySite(dbUrl: string, workspaceId: string, origin: string): Promise<void> {
  const orm = await createOrm(dbUrl, { poolMax: 2 });
  try {
    const em = orm.em.fork();
    const { site } = await ensureSite(em, { workspaceId, name: 'Proxy bench', hostname: PROXY_HOSTNAME, timezone: 'UTC' });
    await em.nativeUpdate(Site, { id: site.id }, { settings: { ...newSiteSettings(), bot: { ...SETTINGS, mode: 'log' } } });
    await em.nativeUpdate(
      SiteHostname,
      { site: site.id, hostname: PROXY_HOSTNAME },
      { proxy: true, origin, edgeStatus: 'active' },
    );
    await deleteTraffic(orm, site.id);
  } finally {
    await orm.close();
  }
}

/** A page load of a browser on the proxy hostname. */
export const proxyRequest: LoadRequest = {
  method: 'GET',
  path: '/pricing?ref=bench',
  headers: { host: PROXY_HOSTNAME, 'user-agent': CHROME, accept: 'text/html,application/xhtml+xml', cookie: 'theme=dark' },
};

/** The paced line: the proxied request's percentiles, the direct request's, and their ratios. */
export function formatProxyLatency(r: Awaited<ReturnType<typeof pacedBeside>>, rate: number): string {
  const x = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
  return [
    formatRow(`  proxied, paced at ${Math.round(rate)} req/s`, r.api),
    formatRow('  the origin asked directly, same rate', r.bare),
    `  proxy mode's latency over the direct request's: p50 ${x(r.api.p50, r.bare.p50)} (+${(r.api.p50 - r.bare.p50).toFixed(2)} ms), p99 ${x(r.api.p99, r.bare.p99)} (+${(r.api.p99 - r.bare.p99).toFixed(2)} ms)`,
  ].join('\n');
}
