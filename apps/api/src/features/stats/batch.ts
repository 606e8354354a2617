// Batch stats: up to 40 named specs, each answered on its own; a refused spec answers
// {error: {status: 400, code: 'validation', title, field}} under its name while the others answer.
// Each spec is a question as for query_site_stats, a saved `segment` included (applied as there).
import { SiteStatsInput, type StatsBatchResult } from '@us/shared';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { toAppError } from '../../core/error-map.ts';
import { AppError } from '../../core/errors.ts';
import { mapLimited } from '../../core/map-limited.ts';
import { withSegment } from '../segments/index.ts';
import { answer } from './engine.ts';
import { normalise, specOf } from './spec.ts';

/** Specs run this many at a time, so one batch does not take every database connection. */
const CONCURRENCY = 4;

/** One spec: the JSON body of query_site_stats without the site's id. */
const BatchSpec = SiteStatsInput.omit({ id: true });

async function one(ctx: SiteCtx, name: string, raw: unknown): Promise<StatsBatchResult[string]> {
  try {
    const parsed = BatchSpec.safeParse(raw);
    if (!parsed.success) throw toAppError(parsed.error);
    const question = await withSegment(ctx.em, ctx.siteId, parsed.data, parsed.data.metrics);
    return await answer(ctx, normalise(specOf(question as Record<string, unknown>), ctx.today));
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 400) throw err;
    const inner = err.field && err.field !== '(body)' ? `.${err.field}` : '';
    return { error: { status: 400, code: err.code, title: err.title, field: `queries.${name}${inner}` } };
  }
}

export async function batchOf(ctx: SiteCtx, queries: Record<string, unknown>): Promise<StatsBatchResult> {
  const entries = Object.entries(queries);
  const answers = await mapLimited(entries, CONCURRENCY, ([name, raw]) => one(ctx, name, raw));
  return Object.fromEntries(entries.map(([name], i) => [name, answers[i] as StatsBatchResult[string]]));
}
