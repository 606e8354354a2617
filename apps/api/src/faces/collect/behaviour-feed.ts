import type { RequestRow } from '@us/db';
import { ALWAYS_SERVED } from '@us/protection';
import type { RequestRecord } from '@us/shared';
import type { HotStore } from '../../core/hot/store.ts';
import { BEHAVIOUR, type Seen } from '../../features/protection/behaviour.ts';
import { tlsMismatch, tlsSummary } from '../../features/protection/tls.ts';
import { visitorCodeOf } from '../../features/protection/visitor-code.ts';

/** The last path segment of a page: no file extension, or one a server renders pages with. */
const PAGE_PATH = /(?:^|\/)(?:[^/.]*|[^/]*\.(?:html?|php|aspx?|jsp))$/i;

/** The request fetched an HTML page: as the sender says, else a successful GET of a page-like path. */
export function isPageRequest(rec: Pick<RequestRecord, 'html' | 'method' | 'status' | 'path'>): boolean {
  if (rec.html !== undefined) return rec.html;
  if (rec.method.toUpperCase() !== 'GET' || rec.status !== 200) return false;
  if (rec.path.startsWith('/_us/') || ALWAYS_SERVED.has(rec.path)) return false;
  return PAGE_PATH.test(rec.path);
}

/**
 * What one edge batch shows of each visitor, per visitor code and minute, for behaviour memory. Only recent
 * records of browsers count (declared bots are judged by who they are, the team's own by nothing), and only
 * records with an address (the code needs one). `rows` are the records' stored rows, in the same order.
 */
export async function seenOfBatch(
  hot: HotStore,
  siteId: string,
  records: readonly RequestRecord[],
  rows: readonly RequestRow[],
  now = Date.now(),
): Promise<Seen[]> {
  const byKey = new Map<string, Seen>();
  for (let i = 0; i < records.length; i++) {
    const rec = records[i] as RequestRecord;
    const row = rows[i] as RequestRow;
    if (!rec.ip || row.lane === 'internal' || row.kind !== 'browser') continue;
    if (rec.at < now - BEHAVIOUR.recentMs || rec.at > now + 60_000) continue;
    const code = await visitorCodeOf(hot, siteId, rec.ip, rec.ua ?? '', now);
    const minute = Math.floor(rec.at / 60_000);
    const key = `${code}:${minute}`;
    const seen = byKey.get(key) ?? { code, minute, requests: 0, pages: 0, tlsMismatch: false };
    seen.requests += 1;
    if (isPageRequest(rec)) seen.pages += 1;
    if (!seen.tlsMismatch && tlsMismatch(rec.ua, tlsSummary(rec.tls, rec.tlsClass))) seen.tlsMismatch = true;
    byKey.set(key, seen);
  }
  return [...byKey.values()];
}
