import { createHash } from 'node:crypto';
import type { ProtectionConfig } from '@us/shared';
import type { Deps } from '../../core/deps.ts';
import { hotAnswer } from '../../core/hot/within.ts';
import { readSettings } from '../sites/index.ts';
import { flaggedVisitors } from './behaviour.ts';
import type { ProtectedSite } from './protected-site.ts';
import { dayKeyFor } from './visitor-code.ts';

/** How long an edge keeps the config before asking again (with If-None-Match). */
export const CONFIG_MAX_AGE_SECONDS = 60;

export interface BuiltConfig {
  config: ProtectionConfig;
  /** The JSON answer. */
  body: string;
  /** Strong validator over the body. */
  etag: string;
}

/**
 * What a site's edges need to decide on their own (packages/protection/README.md, "Protection config"):
 * settings, pass key, check page, hostnames a check may return to, the behaviour key of the day and the
 * visitors flagged today (at most 10,000, the most recent; none when the hot store does not answer
 * within 200 ms: the gate fails open).
 */
export async function buildProtectionConfig(
  deps: Pick<Deps, 'hot' | 'urls'>,
  p: ProtectedSite,
  now = Date.now(),
): Promise<BuiltConfig> {
  const { mode, bots, rules } = readSettings(p.site.settings).bot;
  const [{ day, dayKey }, flagged] = await Promise.all([
    dayKeyFor(deps.hot, p.site.id, now),
    mode === 'off' ? {} : hotAnswer(deps.hot, flaggedVisitors(deps.hot, p.site.id, now), 200, {}),
  ]);
  const config: ProtectionConfig = {
    site: p.site.id,
    mode,
    bots,
    rules,
    passKey: p.passKey,
    challengeUrl: deps.urls.challenge,
    returnHosts: p.returnHosts,
    behaviour: { day, dayKey, flagged },
    maxAgeSeconds: CONFIG_MAX_AGE_SECONDS,
  };
  const body = JSON.stringify(config);
  return { config, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
}

/** True when an If-None-Match header names this (strong) validator, or `*` (weak comparison, RFC 9110 §13.1.2). */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch
    .slice(0, 4096)
    .split(',')
    .map((t) => t.trim().replace(/^W\//, ''))
    .some((t) => t === '*' || t === etag);
}
