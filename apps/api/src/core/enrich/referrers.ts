import { AI_ASSISTANTS } from './ai-assistants.ts';
import { REFERRER_ADDITIONS } from './referrer-additions.ts';
import list from './referrers.json' with { type: 'json' };

/**
 * The family and medium of a referrer host, from the offline referrer list (`referrers.json`, built by
 * scripts/referrers/build.mjs) and the hand-kept lists that win over it (`referrer-additions.ts`, then `ai-assistants.ts`).
 */
export type ReferrerMedium = 'search' | 'social' | 'email' | 'ai' | 'paid' | 'unknown';

export interface ReferrerFamily {
  /** The family's name as people know it: "Google", "Facebook", "Gmail". */
  source: string;
  medium: ReferrerMedium;
}

/** When the list was copied, and from where (the JSON's `source` field). */
export const REFERRER_LIST = list.source;

const BY_HOST = new Map<string, ReferrerFamily>();
/** Family names folded (`yahoo` for "Yahoo!"), for utm_source values that name a family rather than a host. */
const BY_NAME = new Map<string, ReferrerFamily>();

/** Lower case, letters and digits only: "Yahoo!" and "yahoo" meet. */
const fold = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** A name keeps the family of its most telling medium ("Google": search, not its ad servers). */
const NAME_RANK: Record<ReferrerMedium, number> = { search: 0, social: 1, email: 2, ai: 3, paid: 4, unknown: 5 };

function add(source: string, medium: ReferrerMedium, hosts: readonly string[]) {
  const family: ReferrerFamily = { source, medium };
  for (const host of hosts) BY_HOST.set(host, family);
  const name = fold(source);
  const known = BY_NAME.get(name);
  if (name && (!known || NAME_RANK[medium] < NAME_RANK[known.medium])) BY_NAME.set(name, family);
}

for (const [medium, families] of Object.entries(list.media)) {
  for (const [source, hosts] of Object.entries(families)) add(source, medium as ReferrerMedium, hosts);
}
for (const [source, medium, hosts] of REFERRER_ADDITIONS) add(source, medium, hosts);
for (const [source, hosts] of Object.entries(AI_ASSISTANTS)) add(source, 'ai', hosts);

/**
 * The family of a referrer host: the host itself, then without its leading labels one by one
 * (`m.facebook.com` → `facebook.com`), never a single label. Null for a host no list knows.
 */
export function referrerFamily(host: string | null | undefined): ReferrerFamily | null {
  // No host name is longer (RFC 1035); a longer "host" of many labels (an imported file's cell) cost a copy per label.
  if (!host || host.length > 253) return null;
  let h = host.toLowerCase();
  if (h.endsWith('.')) h = h.slice(0, -1);
  for (;;) {
    const family = BY_HOST.get(h);
    if (family) return family;
    const dot = h.indexOf('.');
    if (dot < 0) return null;
    h = h.slice(dot + 1);
    if (!h.includes('.')) return null;
  }
}

/** A few utm_source spellings that name a family by a nickname. */
const NICKNAMES: Record<string, string> = { fb: 'facebook', ig: 'instagram', tw: 'twitter', x: 'twitter', li: 'linkedin' };

/**
 * The family a utm_source names: a host (`chatgpt.com`, which ChatGPT adds to its links) or a family's
 * name in any case (`google`, `Facebook`, `fb`). Null when it names none.
 */
export function utmSourceFamily(utmSource: string | null | undefined): ReferrerFamily | null {
  if (!utmSource) return null;
  if (utmSource.includes('.')) return referrerFamily(utmSource.trim());
  const name = fold(utmSource);
  return BY_NAME.get(NICKNAMES[name] ?? name) ?? null;
}
