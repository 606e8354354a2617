import { BATCH_ID_PATTERN, PageReport, RequestRecord } from '@us/shared';
import { z } from 'zod';
import { fieldPath, issueToError } from '../../core/error-map.ts';
import { badRequest } from '../../core/errors.ts';
import { BODY_LIMITS, readBody } from '../../core/http/body.ts';
import type { CollectExchange } from './exchange.ts';
import { pageReportAtOnce } from './report-check.ts';

/**
 * Intake: the first stage of the collect path. Reads a body within its limit, parses it and checks its
 * shape. Values are cleaned and bounded later, when rows are built (`cleanRow`); here a report is
 * refused only when it cannot be understood at all.
 */

/** Exposures kept from one pageview's `data-exp` (the rest are ignored: one report, a bounded number of rows). */
export const MAX_EXPOSURES = 20;

/**
 * Edge request records are accepted only for this window around the time they arrive: far days would
 * make partitions for any day, jump the rollup queue, block retention and dodge monthly allowances.
 */
export const RECORD_WINDOW = { backMs: 48 * 3600_000, aheadMs: 5 * 60_000 } as const;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('(body)', 'Send the report as JSON');
  }
}

/**
 * One page report (pageview, leave report, event or click), or a 400 naming the field. A page script's
 * usual report is checked by hand (`report-check.ts`); anything else by the schema itself.
 */
export async function readPageReport(ctx: Pick<CollectExchange, 'req'>): Promise<PageReport> {
  const json = parseJson((await readBody(ctx.req, BODY_LIMITS.pageReport)).toString('utf8'));
  const report = pageReportAtOnce(json) ?? checkedPageReport(json);
  if (report.t === 'pv' && report.x) report.x = Object.fromEntries(Object.entries(report.x).slice(0, MAX_EXPOSURES));
  return report;
}

function checkedPageReport(json: unknown): PageReport {
  const parsed = PageReport.safeParse(json);
  if (!parsed.success) throw issueToError(parsed.error.issues[0] as z.core.$ZodIssue);
  return parsed.data;
}

/** The envelope of an edge batch: records are checked one by one, so one bad record costs only itself. */
const BatchEnvelope = z.object({
  k: z.string().regex(/^pk_[a-z0-9]{26}$/),
  b: z.string().regex(BATCH_ID_PATTERN, 'Give the batch id as 8 to 64 letters, digits, - or _, or leave it out').optional(),
  records: z.array(z.unknown()).min(1).max(500),
});

export interface RefusedRecord {
  /** Index of the record in the batch. */
  index: number;
  field: string;
  reason: string;
}

export interface RequestBatchIntake {
  k: string;
  /** The batch's id (`b`), when the sender gave one. */
  batchId: string | null;
  records: RequestRecord[];
  /** Each kept record's place in the batch as sent (refused ones leave gaps): with `batchId`, its row's id. */
  places: number[];
  refused: RefusedRecord[];
}

function inWindow(rec: RequestRecord, index: number, now: number): RefusedRecord | null {
  const field = fieldPath(['records', index, 'at']);
  if (rec.at < now - RECORD_WINDOW.backMs) {
    return { index, field, reason: 'at is more than 48 hours before the batch arrived: send records within two days' };
  }
  if (rec.at > now + RECORD_WINDOW.aheadMs) {
    return { index, field, reason: 'at is more than 5 minutes ahead of our clock: check the sender’s clock' };
  }
  return null;
}

/** An edge SDK batch: the envelope (400 when unreadable), then each record judged on its own. */
export async function readRequestBatch(ctx: Pick<CollectExchange, 'req'>, now = Date.now()): Promise<RequestBatchIntake> {
  const parsed = BatchEnvelope.safeParse(parseJson((await readBody(ctx.req, BODY_LIMITS.requestBatch)).toString('utf8')));
  if (!parsed.success) throw issueToError(parsed.error.issues[0] as z.core.$ZodIssue);
  const records: RequestRecord[] = [];
  const places: number[] = [];
  const refused: RefusedRecord[] = [];
  parsed.data.records.forEach((raw, index) => {
    const rec = RequestRecord.safeParse(raw);
    if (!rec.success) {
      const issue = rec.error.issues[0] as z.core.$ZodIssue;
      refused.push({ index, field: fieldPath(['records', index, ...issue.path]), reason: issue.message });
      return;
    }
    const late = inWindow(rec.data, index, now);
    if (late) refused.push(late);
    else {
      records.push(rec.data);
      places.push(index);
    }
  });
  return { k: parsed.data.k, batchId: parsed.data.b ?? null, records, places, refused };
}

/** What the edge SDK is told: how many records were kept, how many refused and why (counted by reason). */
export function batchAnswer(accepted: number, refused: RefusedRecord[]) {
  const reasons: Record<string, number> = {};
  for (const r of refused) reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
  return {
    accepted,
    refused: refused.length,
    reasons,
    // The first few, so a sender can find the records at fault.
    examples: refused.slice(0, 10).map(({ field, reason }) => ({ field, reason })),
  };
}
