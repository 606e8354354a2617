import type { EntityManager } from '@mikro-orm/postgresql';
import { type Site, SiteHostname } from '@us/db';
import type { BotDecisionsReport } from '@us/shared';
import type { Deps } from '../../core/deps.ts';
import { readSettings } from '../sites/index.ts';
import { noReturnSeen } from './no-return.ts';
import { isReturnHost } from './protected-site.ts';

type SetupProblems = Pick<BotDecisionsReport, 'setupProblems' | 'otherHostnames'>;

function messageOf(hostname: string, proxy: boolean): string {
  return proxy
    ? `${hostname} is not live at the edge yet: until its DNS records are in place, a visitor challenged there gets a page saying the check cannot bring them back, never the check.`
    : `Verify ${hostname} to challenge visitors on it: until its TXT record is found, a visitor challenged there gets a page saying the check cannot bring them back, never the check.`;
}

/**
 * The site's hostnames a check cannot return to (unverified, or proxy hostnames not live): each one while
 * the site challenges or blocks, and any on which a challenge could not send its visitor to the check in
 * the last days (`no-return.ts`). Hostnames not on the site are only counted.
 */
export async function setupProblemsOf(deps: Pick<Deps, 'hot'>, em: EntityManager, site: Site): Promise<SetupProblems> {
  const mode = readSettings(site.settings).bot.mode;
  const acting = mode === 'challenge' || mode === 'block';
  const rows = await em.find(SiteHostname, { site: site.id }, { orderBy: { hostname: 'asc' } });
  const seen = await noReturnSeen(
    deps,
    site.id,
    rows.map((r) => r.hostname),
  );
  const setupProblems: SetupProblems['setupProblems'] = [];
  for (const r of rows) {
    if (isReturnHost(r)) continue;
    const at = seen.registered.get(r.hostname.toLowerCase());
    if (!acting && at === undefined) continue;
    setupProblems.push({
      hostname: r.hostname,
      problem: r.proxy ? 'proxy-not-live' : 'unverified',
      lastSeen: at === undefined ? null : new Date(at).toISOString(),
      message: messageOf(r.hostname, r.proxy),
    });
  }
  return { setupProblems, otherHostnames: seen.others };
}
