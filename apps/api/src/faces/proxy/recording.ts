import type { Site } from '@us/db';
import type { RequestRecord } from '@us/shared';
import type { Logger } from '../../core/logger.ts';
import { proxyRecordsDropped } from '../../core/observe/metrics.ts';

/** Records of one site are sent on together once this many wait, or after `FLUSH_MS` at the latest. */
const BATCH = 200;
const FLUSH_MS = 500;
/** Records a node keeps waiting at most (an ingest path down for long): past it the oldest go, counted in the log. */
const MAX_WAITING = 50_000;

type RecordRequests = (site: Site, records: RequestRecord[]) => Promise<unknown>;

/**
 * The proxy's request records on their way to the ingest path (`recordRequests`, as an edge batch's): kept
 * per site in memory and sent in batches, so a busy site costs one batch's checks (logging pause, batch
 * budget, behaviour memory) per half second rather than per request. A batch that fails (the write buffer
 * full, the hot store down) is kept and tried again. `flush` sends everything waiting; shutdown calls it
 * before the last flush of the write buffer (boot.ts), so no record of an answered request is lost.
 */
export function proxyRecorder(record: RecordRequests, logger: Logger) {
  const waiting = new Map<string, { site: Site; records: RequestRecord[] }>();
  const sending = new Set<Promise<void>>();
  let count = 0;
  let scheduled = false;

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      sendAll();
    }, FLUSH_MS).unref();
  }

  function keep(site: Site, records: RequestRecord[], atFront = false) {
    const entry = waiting.get(site.id) ?? { site, records: [] };
    entry.site = site;
    entry.records = atFront ? records.concat(entry.records) : entry.records.concat(records);
    waiting.set(site.id, entry);
    count += records.length;
    if (count > MAX_WAITING) {
      const over = Math.min(count - MAX_WAITING, entry.records.length);
      entry.records.splice(0, over);
      count -= over;
      proxyRecordsDropped.inc(over);
      logger.error(`proxy: ${over} request records dropped: too many waiting for the ingest path`);
    }
  }

  function send(site: Site, records: RequestRecord[]) {
    const sent: Promise<void> = record(site, records)
      .then(
        () => undefined,
        (err) => {
          logger.warn(`proxy: ${records.length} request records not stored yet, kept to try again (${String(err)})`);
          keep(site, records, true);
          schedule();
        },
      )
      .finally(() => sending.delete(sent));
    sending.add(sent);
  }

  function take(siteId: string) {
    const entry = waiting.get(siteId);
    if (!entry) return;
    waiting.delete(siteId);
    count -= entry.records.length;
    for (let i = 0; i < entry.records.length; i += BATCH) send(entry.site, entry.records.slice(i, i + BATCH));
  }

  function sendAll() {
    for (const siteId of [...waiting.keys()]) take(siteId);
  }

  return {
    /** Queues one request's record. */
    add(site: Site, rec: RequestRecord) {
      keep(site, [rec]);
      if ((waiting.get(site.id)?.records.length ?? 0) >= BATCH) take(site.id);
      else schedule();
    },
    /** Sends every waiting record now; resolves once they reached the ingest path (or were kept after a failure). */
    async flush() {
      sendAll();
      await Promise.all([...sending]);
    },
  };
}

export type ProxyRecorder = ReturnType<typeof proxyRecorder>;
