// The dry run (Protection page): a proposed {mode, bots, rules} replayed with the one decision function
// over the site's stored requests of the last 7 days, before it is saved.
//
// No user agent or address is stored, so the facts of each request are rebuilt from its columns: the
// client from `kind`, `bot_name` and `bot_category` (looked up again in today's bot catalogue for the AI
// flag and whether its operator lets us verify it), verification from `verified`, the hosting network
// from `asn`/`as_org`. Requests are read grouped by what the rules and the decision order can tell apart
// (a "shape": path prefixes named by rules, client, verification, network, a country named by a rule), so
// a week of a busy site is thousands of shapes, not millions of rows; each shape is decided once.
import type { EntityManager } from '@mikro-orm/postgresql';
import { dbFault } from '@us/db';
import {
  ALWAYS_SERVED,
  BOT_CATEGORIES,
  type BotCategory,
  type BotInfo,
  type ClientKind,
  classifyUserAgent,
  type Decision,
  decide,
  isHostingNetwork,
  NO_SCRIPT_CLIENT,
  type ProtectionSettings,
  type RequestFacts,
  type UaClass,
} from '@us/protection';
import { BOT_ACTIONS, BOT_MODES, UpdateSiteBotInput } from '@us/shared';
import { CompiledQuery } from 'kysely';
import { z } from 'zod';
import type { Actor } from '../../actor/actor.ts';
import { Params } from '../../analytics/sql.ts';
import { AppError } from '../../core/errors.ts';
import { decidingRule, onStatsPool, requireScope, savedBotSettings, type ToolsDeps } from './tools-common.ts';

export interface DryRunBounds {
  days: number;
  maxShapes: number;
  reads: readonly { rate: number; ms: number }[];
  decideMs: number;
  reasons: number;
  examples: number;
}

/** How far back, and the bounds of one dry run. */
export const DRY_RUN: Readonly<DryRunBounds> = {
  days: 7,
  /** Request shapes replayed at most (the most frequent first); past it the rest is left out and said so. */
  maxShapes: 20_000,
  /**
   * The reads tried in turn: every stored request within `ms`, else a sample of the table's pages
   * (`rate`, PostgreSQL TABLESAMPLE SYSTEM) within its own `ms`, figures scaled up. Past both: 503.
   */
  reads: [
    { rate: 1, ms: 5_000 },
    { rate: 0.05, ms: 4_000 },
  ],
  /**
   * Time for deciding the shapes (ample: `decide()` is fast, docs/performance/figures.md, "Bot protection and the
   * edge SDK"); past it the rest is left out and said so.
   */
  decideMs: 2_000,
  reasons: 20,
  examples: 3,
};
export type DryRunOptions = Partial<DryRunBounds> & { now?: Date };

/**
 * What the replay cannot know, said with every answer (and in docs/product/protection.md, "The Protection page's own
 * procedures (dashboard face only)", Dry run).
 */
export const DRY_RUN_UNKNOWNS = [
  'Passed checks: no us_pass is stored, so every replayed browser is taken as one without a passed check (challenge rules and the bots: challenge default count in full).',
  'Behaviour: the signs of automation a browser showed (in its user agent or over the last day) are not stored; browsers filed as bots for them are replayed as showing none.',
  'Verification: a crawler whose operator lets us verify it (Googlebot, GPTBot…) that is stored unverified is replayed as a failed check, as the gate decides where the edge or reverse DNS can check it.',
  "The team's own requests (internal lane) are left out, as in the decisions report.",
] as const;

export const DryRunInput = UpdateSiteBotInput;
export type DryRunInput = z.infer<typeof DryRunInput>;

const Counts = z.object({ allow: z.number().int(), challenge: z.number().int(), deny: z.number().int() });
type Counts = z.infer<typeof Counts>;

export const DryRunOutput = z.object({
  from: z.string().describe('Start of the replayed window (ISO instant)'),
  to: z.string(),
  mode: z.enum(BOT_MODES),
  requests: z.number().int().describe('Requests stored in the window (estimated when sampled)'),
  replayed: z.number().int().describe('Requests replayed (estimated when sampled)'),
  sampled: z
    .object({ rate: z.number().describe('Share of the table read: 1 = every stored request'), note: z.string() })
    .nullable()
    .describe('Null when every request was replayed'),
  totals: Counts.describe('What the proposed settings would have done (log mode: everything allowed)'),
  intended: Counts.nullable().describe('Log mode only: what the proposed rules would have done if they acted'),
  saved: Counts.describe('The same requests under the saved settings'),
  changed: z.number().int().describe('Requests whose action differs from the saved settings'),
  rules: z
    .array(
      z.object({
        index: z.number().int(),
        label: z.string().nullable(),
        action: z.enum(BOT_ACTIONS),
        matched: z.number().int().describe('Requests this rule was the first to match'),
        ...Counts.shape,
        examples: z.array(z.object({ client: z.string(), count: z.number().int() })),
      }),
    )
    .describe('Per proposed rule, what it would have allowed, challenged, refused (log mode: what it would have done)'),
  otherwise: Counts.describe('Requests no rule decided (steps 1 and 3-6 of the decision order)'),
  reasons: z
    .array(z.object({ reason: z.string(), action: z.enum(BOT_ACTIONS), count: z.number().int() }))
    .describe('Top reasons, most first'),
  unknownSigns: z.number().int().describe('Browsers stored as bots for automation signs the replay cannot see'),
  cannotKnow: z.array(z.string()),
  elapsedMs: z.number().int(),
});
export type DryRunOutput = z.infer<typeof DryRunOutput>;

/** One request shape as read: the columns the decision needs, and how many stored requests have it. */
export interface ShapeRow {
  fixed_path: string | null;
  sample_path: string;
  kind: ClientKind;
  bot_name: string | null;
  bot_category: string | null;
  verified: boolean;
  asn: number | null;
  as_org: string | null;
  country: string | null;
  /** A browser the collector filed in the bot lane (automation signs or a hosting network). */
  flagged: boolean;
  n: number;
  shapes: number;
  total: number;
}

const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The path prefixes and countries any rule of either settings names: the only ones that tell requests apart. */
function namedBy(...all: ProtectionSettings[]) {
  const prefixes = new Set<string>();
  const countries = new Set<string>();
  for (const s of all) {
    for (const r of s.rules) {
      for (const p of list(r.match.path)) prefixes.add(p);
      for (const c of list(r.match.country)) countries.add(c.toUpperCase());
    }
  }
  return { prefixes: [...prefixes], countries: [...countries] };
}

/** The statement reading the window's request shapes, most frequent first. */
function shapesStatement(siteId: string, since: Date, named: ReturnType<typeof namedBy>, rate: number, cap: number) {
  const p = new Params();
  const site = p.add(siteId, 'uuid');
  const from = p.add(since.toISOString(), 'timestamptz');
  const always = p.add([...ALWAYS_SERVED], 'text[]');
  // Which named prefixes the path starts with: paths with the same answer decide alike.
  const prefixes = named.prefixes.length
    ? `array[${named.prefixes.map((x) => `starts_with(r.path, ${p.add(x, 'text')})`).join(', ')}]`
    : `'{}'::boolean[]`;
  const country = named.countries.length
    ? `case when r.country = any(${p.add(named.countries, 'text[]')}) then r.country end`
    : 'null::text';
  // A literal (the rate is one of the read plan's numbers): Citus sends a parameter here to the workers as text.
  const sample = rate < 1 ? ` tablesample system (${Number(rate * 100).toFixed(4)}) repeatable (7)` : '';
  const sql = `
    select fixed_path, min(path) as sample_path, kind, bot_name, bot_category, verified, asn, as_org, country, flagged,
      count(*)::int as n, (count(*) over ())::int as shapes, (sum(count(*)) over ())::float8 as total
    from (
      select case when r.path = any(${always}) then r.path end as fixed_path, r.path, ${prefixes} as prefixes,
        r.kind, r.bot_name, r.bot_category, r.verified, r.asn, r.as_org, ${country} as country,
        (r.kind = 'browser' and r.lane = 'bot') as flagged
      from requests r${sample}
      where r.site_id = ${site}
        and r.day >= (${from} at time zone 'UTC')::date
        and r.at >= ${from}
        and r.lane <> 'internal'
    ) s
    group by fixed_path, prefixes, kind, bot_name, bot_category, verified, asn, as_org, country, flagged
    order by n desc
    limit ${p.add(cap, 'int')}`;
  return { sql, parameters: p.values };
}

/** Memory for the grouping of one read (PostgreSQL's work_mem, for this transaction only). */
const WORK_MEM = '64MB';

/** Runs the read inside its own time budget (PostgreSQL's statement_timeout for this transaction only). */
async function readShapes(em: EntityManager, stmt: { sql: string; parameters: unknown[] }, ms: number): Promise<ShapeRow[]> {
  const db = em.getConnection().getClient();
  return db.transaction().execute(async (trx) => {
    await trx.executeQuery(CompiledQuery.raw(`set local statement_timeout = ${Math.max(1, Math.floor(ms))}`));
    // Room to group in memory (a hash of the shapes) instead of sorting every row on disk.
    await trx.executeQuery(CompiledQuery.raw(`set local work_mem = '${WORK_MEM}'`));
    return (await trx.executeQuery<ShapeRow>(CompiledQuery.raw(stmt.sql, stmt.parameters))).rows as ShapeRow[];
  });
}

const isCategory = (c: string | null): c is BotCategory => c !== null && (BOT_CATEGORIES as readonly string[]).includes(c);

/** A stored bot name in today's catalogue (its AI flag, and whether its operator lets us verify it). */
function catalogueLookup() {
  const cache = new Map<string, BotInfo | null>();
  return (name: string): BotInfo | null => {
    let hit = cache.get(name);
    if (hit === undefined) {
      const forms = [name, `Mozilla/5.0 (compatible; ${name}/1.0)`];
      hit = forms.map((f) => classifyUserAgent(f).bot).find((b) => b?.name === name) ?? null;
      cache.set(name, hit);
    }
    return hit;
  };
}

/** The facts of a stored request shape; what is not stored (pass, behaviour) is taken as absent. */
export function factsOfStored(s: ShapeRow, lookup: (name: string) => BotInfo | null): RequestFacts {
  const category: BotCategory = isCategory(s.bot_category) ? s.bot_category : 'other';
  let ua: UaClass;
  if (s.kind !== 'browser') {
    const known = s.bot_name ? lookup(s.bot_name) : null;
    const name = s.bot_name ?? 'unnamed bot';
    ua = { kind: 'bot', bot: known ?? { name, category, ai: category.startsWith('ai-'), verifiable: false }, automation: [] };
  } else if (category === 'tool' && s.bot_name) {
    const bot = { name: s.bot_name, category, ai: false, verifiable: false };
    ua = { kind: 'browser', bot, automation: [NO_SCRIPT_CLIENT] };
  } else {
    ua = { kind: 'browser', automation: [] };
  }
  const verified = s.verified || s.kind === 'verified-bot';
  return {
    path: s.fixed_path ?? s.sample_path,
    ua,
    verification: verified ? 'verified' : ua.kind === 'bot' && ua.bot?.verifiable ? 'failed' : 'unknown',
    asn: s.asn,
    hosting: s.asn !== null && isHostingNetwork({ asn: s.asn, org: s.as_org ?? '' }),
    country: s.country,
    pass: false,
  };
}

/** How a request shape's client is named in a rule's examples. */
function clientLabel(f: RequestFacts): string {
  const bot = f.ua.bot;
  if (bot) return bot.category === 'tool' ? bot.name : `${bot.name} (${bot.category})`;
  return f.hosting ? `browser on AS${f.asn}` : 'browser';
}

const zero = (): Counts => ({ allow: 0, challenge: 0, deny: 0 });
const LOG_WOULD = /^log: would (allow|challenge|deny): /;
const intendedOf = (d: Decision): Decision['action'] => (LOG_WOULD.exec(d.reason)?.[1] as Decision['action']) ?? d.action;

function top<K>(m: Map<K, number>, n: number): [K, number][] {
  return [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
}

/** How long the replay decides before it lets the event loop turn (other requests wait no longer than this). */
const SLICE_MS = 10;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Replays the proposed settings over the window's request shapes (pure: no database). It decides in slices of
 * `SLICE_MS`, the event loop turning between them: up to `decideMs` of deciding in one go held every other request
 * of the node that long.
 */
export async function replay(
  proposed: ProtectionSettings,
  saved: ProtectionSettings,
  shapes: readonly ShapeRow[],
  scale: number,
  opts: {
    decideMs: number;
    reasons: number;
    examples: number;
  },
) {
  const lookup = catalogueLookup();
  const totals = zero();
  const intended = zero();
  const savedTotals = zero();
  const otherwise = zero();
  const rules = proposed.rules.map(() => ({ matched: 0, counts: zero(), examples: new Map<string, number>() }));
  const reasons = new Map<string, number>();
  let changed = 0;
  let replayed = 0;
  let unknownSigns = 0;
  let done = 0;
  const deadline = performance.now() + opts.decideMs;
  let slice = performance.now();
  for (const s of shapes) {
    // The clock is read every 16 shapes: a shape can cost a few hundred microseconds (many rules, long paths).
    if (done % 16 === 0) {
      const now = performance.now();
      if (now > deadline) break;
      if (now - slice > SLICE_MS) {
        await nextTurn();
        slice = performance.now();
      }
    }
    done++;
    const n = Math.round(s.n * scale);
    const facts = factsOfStored(s, lookup);
    const d = decide(proposed, facts);
    const would = intendedOf(d);
    const before = decide(saved, facts).action;
    totals[d.action] += n;
    intended[would] += n;
    savedTotals[before] += n;
    if (before !== d.action) changed += n;
    replayed += n;
    if (s.flagged && !facts.hosting && !facts.ua.bot) unknownSigns += n;
    const key = `${d.action}\u0000${d.reason}`;
    reasons.set(key, (reasons.get(key) ?? 0) + n);
    const index = decidingRule(proposed, facts);
    const rule = index === null ? undefined : rules[index];
    if (rule) {
      rule.matched += n;
      rule.counts[would] += n;
      const label = clientLabel(facts);
      rule.examples.set(label, (rule.examples.get(label) ?? 0) + n);
    } else otherwise[would] += n;
  }
  return {
    totals,
    intended: proposed.mode === 'log' ? intended : null,
    saved: savedTotals,
    changed,
    replayed,
    unknownSigns,
    cutShort: done < shapes.length,
    rules: rules.map((r, index) => ({
      index,
      label: proposed.rules[index]?.label?.trim() || null,
      action: proposed.rules[index]?.action ?? 'allow',
      matched: r.matched,
      ...r.counts,
      examples: top(r.examples, opts.examples).map(([client, count]) => ({ client, count })),
    })),
    otherwise,
    reasons: top(reasons, opts.reasons).map(([key, count]) => {
      const [action, reason] = key.split('\u0000') as [Decision['action'], string];
      return { reason, action, count };
    }),
  };
}

const formatInt = (n: number) => n.toLocaleString('en-US');

export async function dryRun(
  deps: ToolsDeps,
  em: EntityManager,
  actor: Actor,
  input: DryRunInput,
  options: DryRunOptions = {},
): Promise<DryRunOutput> {
  requireScope(actor, 'analytics:read');
  const o = { ...DRY_RUN, ...options };
  const started = Date.now();
  const now = o.now ?? new Date();
  const since = new Date(now.getTime() - o.days * 86_400_000);
  const proposed: ProtectionSettings = { mode: input.mode, bots: input.bots, rules: input.rules };
  return onStatsPool(deps, em, actor, input.id, async (site, statsEm) => {
    const saved = savedBotSettings(site);
    const named = namedBy(proposed, saved);
    let shapes: ShapeRow[] | null = null;
    let rate = 1;
    for (const read of o.reads) {
      try {
        shapes = await readShapes(statsEm, shapesStatement(site.id, since, named, read.rate, o.maxShapes + 1), read.ms);
        rate = read.rate;
        break;
      } catch (err) {
        if (dbFault(err) !== 'timeout') throw err;
      }
    }
    if (!shapes) {
      throw new AppError(503, 'The dry run took longer than the time allowed, even on a sample: try again in a few minutes', {
        retryAfter: 30,
      });
    }
    const scale = 1 / rate;
    const requests = Math.round((shapes[0]?.total ?? 0) * scale);
    const shapeCount = shapes[0]?.shapes ?? 0;
    const capped = shapes.length > o.maxShapes;
    const r = await replay(proposed, saved, capped ? shapes.slice(0, o.maxShapes) : shapes, scale, o);
    const notes: string[] = [];
    if (rate < 1)
      notes.push(`read ${Math.round(rate * 100)}% of the stored requests (the full read took too long); figures are estimates`);
    if (capped) notes.push(`replayed the ${formatInt(o.maxShapes)} most common of ${formatInt(shapeCount)} kinds of request`);
    if (r.cutShort) notes.push('stopped deciding when its time ran out');
    if (notes.length && r.replayed < requests) notes.push(`${formatInt(r.replayed)} of ${formatInt(requests)} requests replayed`);
    const { cutShort: _, ...figures } = r;
    return {
      from: since.toISOString(),
      to: now.toISOString(),
      mode: proposed.mode,
      requests,
      sampled: notes.length ? { rate, note: `The dry run ${notes.join('; ')}.` } : null,
      ...figures,
      cannotKnow: [...DRY_RUN_UNKNOWNS],
      elapsedMs: Date.now() - started,
    };
  });
}
