import { createHash } from 'node:crypto';
import { uuidText } from '@us/db';

/**
 * The row ids of an edge batch's records, from the site, the batch's id and each record's place in it: a batch sent
 * again (its answer lost, or past the SDK's timeout) makes the same ids, and the insert's `on conflict do nothing`
 * stores and counts its records once. (Ids given at enqueue were new each time: every repeat was stored and billed.)
 * Time-ordered as the ids given at enqueue (version 7, from the record's own time, so inserts stay near the right
 * edge of the primary key), the rest of the bits from SHA-256, so strangers choosing batch ids cannot pick another
 * site's rows.
 */
export function batchRowIds(siteId: string, batchId: string, records: readonly { place: number; at: number }[]): string[] {
  return records.map(({ place, at }) => {
    const b = createHash('sha256').update(`requests\x1f${siteId}\x1f${batchId}\x1f${place}`).digest().subarray(0, 16);
    b.writeUIntBE(Math.max(0, Math.min(at, 2 ** 48 - 1)), 0, 6);
    b[6] = 0x70 | ((b[6] as number) & 0x0f);
    b[8] = 0x80 | ((b[8] as number) & 0x3f);
    return uuidText(b);
  });
}
