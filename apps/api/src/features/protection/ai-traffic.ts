// AI traffic per page (Protection page): which AI crawlers read each page (stored requests in the bot
// lane with an ai-* category) beside how many people AI assistants and AI search sent to it (human
// pageviews whose referrer, or utm_source, is one of the hosts below), so an owner can decide which AI
// bots to let in from evidence.
import type { EntityManager } from '@mikro-orm/postgresql';
import { zId } from '@us/shared';
import { z } from 'zod';
import type { Actor } from '../../actor/actor.ts';
import type { DayRange } from '../../analytics/range.ts';
import { resolveRange } from '../../analytics/range.ts';
import { run } from '../../analytics/runner.ts';
import { siteCtx } from '../../analytics/site-ctx.ts';
import { laneCond, Params, rangeCond, statement, tzParam } from '../../analytics/sql.ts';
import { AI_ASSISTANTS, AI_SEARCH_ENGINES } from '../../core/enrich/ai-assistants.ts';
import { onStatsPool, requireScope, type ToolsDeps } from './tools-common.ts';

export type AiSourceKind = 'assistant' | 'search';

/**
 * The AI assistants and AI search engines whose visitors count as sent by AI: the referrer host (or the
 * utm_source such services add to their links, e.g. ChatGPT's `utm_source=chatgpt.com`), without `www.`.
 * From the one list the "AI assistants" channel uses too (core/enrich/ai-assistants.ts); the page shows it,
 * the SQL reads it.
 */
export const AI_REFERRERS: Readonly<Record<string, AiSourceKind>> = Object.fromEntries(
  Object.entries(AI_ASSISTANTS).flatMap(([name, hosts]) =>
    hosts
      .filter((host) => !host.startsWith('www.'))
      .map((host) => [host, AI_SEARCH_ENGINES.has(name) ? 'search' : 'assistant'] as const),
  ),
);

const hostsOf = (kind: AiSourceKind) =>
  Object.entries(AI_REFERRERS)
    .filter(([, k]) => k === kind)
    .map(([host]) => host);

export const AI_TRAFFIC_LIMITS = { pages: 200, crawlersPerPage: 5, crawlers: 20, sources: 20, candidates: 500 } as const;

export const AiTrafficInput = z
  .object({
    id: zId,
    days: z
      .number({ error: 'Give days as a number from 1 to 90' })
      .int('Give days as a whole number')
      .min(1, 'Give days from 1 (today) to 90')
      .max(90, 'Give days from 1 (today) to 90')
      .default(30),
    limit: z
      .number()
      .int()
      .min(1, `Give limit from 1 to ${AI_TRAFFIC_LIMITS.pages}`)
      .max(AI_TRAFFIC_LIMITS.pages, `Give limit from 1 to ${AI_TRAFFIC_LIMITS.pages}`)
      .default(50),
  })
  .strict();
export type AiTrafficInput = z.input<typeof AiTrafficInput>;

const CrawlCounts = {
  crawls: z.number().int().describe('Requests of AI crawlers'),
  training: z.number().int().describe('of which ai-training'),
  search: z.number().int().describe('of which ai-search'),
  assistant: z.number().int().describe('of which ai-assistant'),
};
const Crawler = z.object({ name: z.string(), category: z.string(), count: z.number().int() });
const Referred = z.object({
  pageviews: z.number().int().describe('Human pageviews sent by an AI assistant or AI search'),
  visitors: z
    .number()
    .int()
    .describe('Distinct visitors among them (visitor codes last one day, so a person on two days counts twice)'),
  assistant: z.number().int().describe('Pageviews sent by AI assistants'),
  search: z.number().int().describe('Pageviews sent by AI search'),
});

export const AiTrafficOutput = z.object({
  from: z.string(),
  to: z.string(),
  timezone: z.string(),
  totals: z.object({ ...CrawlCounts, referred: Referred }),
  crawlers: z.array(Crawler).describe('AI crawlers over the whole site, most requests first'),
  sources: z
    .array(z.object({ host: z.string(), kind: z.enum(['assistant', 'search']), pageviews: z.number().int() }))
    .describe('AI services that sent people, most first'),
  pages: z
    .array(z.object({ path: z.string(), ...CrawlCounts, crawlers: z.array(Crawler), referred: Referred }))
    .describe('Pages by AI crawls plus AI-sent pageviews, most first'),
  truncated: z.boolean().describe('More pages had AI traffic than shown'),
  referrers: z.object({ assistant: z.array(z.string()), search: z.array(z.string()) }).describe('The hosts counted as AI'),
});
export type AiTrafficOutput = z.infer<typeof AiTrafficOutput>;

type CrawlRow = { path: string; crawls: number; training: number; search: number; assistant: number };
type NameRow = { path: string | null; name: string; category: string; count: number };
type ReferredRow = { path: string; pageviews: number; visitors: number; assistant: number; search: number };
type SourceRow = { host: string; pageviews: number };

interface Ctx {
  siteId: string;
  tz: string;
  range: DayRange;
}

/** AI crawler requests of the range: `where` and its parameters. */
function crawlWhere(p: Params, c: Ctx) {
  const tz = tzParam(p, c.tz);
  return `site_id = ${p.add(c.siteId, 'uuid')} and ${rangeCond(p, tz, c.range)} and lane = 'bot' and bot_category like 'ai-%'`;
}

const CATEGORY_COUNTS = `count(*)::int as crawls,
      count(*) filter (where bot_category = 'ai-training')::int as training,
      count(*) filter (where bot_category = 'ai-search')::int as search,
      count(*) filter (where bot_category = 'ai-assistant')::int as assistant`;

function crawlsPerPage(c: Ctx, cap: number) {
  const p = new Params();
  const where = crawlWhere(p, c);
  return statement<CrawlRow>(
    `select path, ${CATEGORY_COUNTS} from requests where ${where} group by path order by crawls desc, path limit ${p.add(cap, 'int')}`,
    p,
  );
}

function crawlTotals(c: Ctx) {
  const p = new Params();
  return statement<Omit<CrawlRow, 'path'>>(`select ${CATEGORY_COUNTS} from requests where ${crawlWhere(p, c)}`, p);
}

/** Crawlers by name: over the site (`paths` null), or per path of `paths`. */
function crawlerNames(c: Ctx, paths: string[] | null, cap: number) {
  const p = new Params();
  const where = crawlWhere(p, c);
  if (paths === null) {
    return statement<NameRow>(
      `select null::text as path, coalesce(bot_name, 'unnamed') as name, bot_category as category, count(*)::int as count
      from requests where ${where} group by 2, 3 order by count desc, name limit ${p.add(cap, 'int')}`,
      p,
    );
  }
  return statement<NameRow>(
    `select path, coalesce(bot_name, 'unnamed') as name, bot_category as category, count(*)::int as count
    from requests where ${where} and path = any(${p.add(paths, 'text[]')}) group by 1, 2, 3 order by count desc, name`,
    p,
  );
}

/** Human pageviews of the range with the AI host that sent them (`source`), others left out. */
function referredFrom(p: Params, c: Ctx, windows: ReturnType<typeof siteCtx>['windows']) {
  const tz = tzParam(p, c.tz);
  const all = p.add(Object.keys(AI_REFERRERS), 'text[]');
  const host = `regexp_replace(referrer_host, '^www\\.', '')`;
  const utm = `regexp_replace(lower(utm_source), '^www\\.', '')`;
  return `(
      select path, visitor, case when ${host} = any(${all}) then ${host} when ${utm} = any(${all}) then ${utm} end as source
      from pageviews
      where site_id = ${p.add(c.siteId, 'uuid')} and ${rangeCond(p, tz, c.range)} and ${laneCond(p, 'pageviews', windows, 'human')}
        and (referrer_host is not null or utm_source is not null)
    ) s where source is not null`;
}

function referredCounts(p: Params) {
  const assistant = p.add(hostsOf('assistant'), 'text[]');
  return `count(*)::int as pageviews, count(distinct visitor)::int as visitors,
      count(*) filter (where source = any(${assistant}))::int as assistant,
      count(*) filter (where not source = any(${assistant}))::int as search`;
}

function referredPerPage(c: Ctx, windows: ReturnType<typeof siteCtx>['windows'], cap: number) {
  const p = new Params();
  const from = referredFrom(p, c, windows);
  return statement<ReferredRow>(
    `select path, ${referredCounts(p)} from ${from} group by path order by pageviews desc, path limit ${p.add(cap, 'int')}`,
    p,
  );
}

function referredTotals(c: Ctx, windows: ReturnType<typeof siteCtx>['windows']) {
  const p = new Params();
  const from = referredFrom(p, c, windows);
  return statement<Omit<ReferredRow, 'path'>>(`select ${referredCounts(p)} from ${from}`, p);
}

function referredSources(c: Ctx, windows: ReturnType<typeof siteCtx>['windows'], cap: number) {
  const p = new Params();
  const from = referredFrom(p, c, windows);
  return statement<SourceRow>(
    `select source as host, count(*)::int as pageviews from ${from} group by source order by pageviews desc, host limit ${p.add(cap, 'int')}`,
    p,
  );
}

const noCrawls = { crawls: 0, training: 0, search: 0, assistant: 0 };
const noReferred = { pageviews: 0, visitors: 0, assistant: 0, search: 0 };

export async function aiTraffic(
  deps: ToolsDeps,
  em: EntityManager,
  actor: Actor,
  input: z.output<typeof AiTrafficInput>,
): Promise<AiTrafficOutput> {
  requireScope(actor, 'analytics:read');
  return onStatsPool(deps, em, actor, input.id, async (site, statsEm) => {
    const sc = siteCtx(statsEm, { id: site.id, timezone: site.timezone, settings: site.settings });
    const c: Ctx = { siteId: site.id, tz: sc.timezone, range: resolveRange({ days: input.days }, sc.today) };
    const L = AI_TRAFFIC_LIMITS;
    // One after another: one question holds one connection of the stats pool at a time.
    const perPage = await run(statsEm, crawlsPerPage(c, L.candidates));
    const crawlSum = await run(statsEm, crawlTotals(c));
    const names = await run(statsEm, crawlerNames(c, null, L.crawlers));
    const referred = await run(statsEm, referredPerPage(c, sc.windows, L.candidates));
    const referredSum = await run(statsEm, referredTotals(c, sc.windows));
    const sources = await run(statsEm, referredSources(c, sc.windows, L.sources));
    const pages = new Map<string, { crawl: CrawlRow | undefined; referred: ReferredRow | undefined }>();
    for (const r of perPage) pages.set(r.path, { crawl: r, referred: undefined });
    for (const r of referred) pages.set(r.path, { crawl: pages.get(r.path)?.crawl, referred: r });
    const ranked = [...pages]
      .map(([path, v]) => ({ path, v, weight: (v.crawl?.crawls ?? 0) + (v.referred?.pageviews ?? 0) }))
      .sort((a, b) => b.weight - a.weight || a.path.localeCompare(b.path));
    const shown = ranked.slice(0, input.limit);
    const perPath = shown.length
      ? await run(
          statsEm,
          crawlerNames(
            c,
            shown.map((s) => s.path),
            L.crawlersPerPage,
          ),
        )
      : [];
    const byPath = new Map<string, NameRow[]>();
    for (const r of perPath) {
      const list = byPath.get(r.path ?? '') ?? [];
      if (list.length < L.crawlersPerPage) list.push(r);
      byPath.set(r.path ?? '', list);
    }
    const crawler = (r: NameRow) => ({ name: r.name, category: r.category, count: r.count });
    return {
      from: c.range.from,
      to: c.range.to,
      timezone: c.tz,
      totals: { ...noCrawls, ...crawlSum[0], referred: { ...noReferred, ...referredSum[0] } },
      crawlers: names.map(crawler),
      sources: sources.map((s) => ({ host: s.host, kind: AI_REFERRERS[s.host] ?? 'search', pageviews: s.pageviews })),
      pages: shown.map(({ path, v }) => {
        const { path: _c, ...crawls } = v.crawl ?? { path, ...noCrawls };
        const { path: _r, ...ref } = v.referred ?? { path, ...noReferred };
        return { path, ...crawls, crawlers: (byPath.get(path) ?? []).map(crawler), referred: ref };
      }),
      truncated: ranked.length > input.limit || perPage.length >= L.candidates || referred.length >= L.candidates,
      referrers: { assistant: hostsOf('assistant'), search: hostsOf('search') },
    };
  });
}
