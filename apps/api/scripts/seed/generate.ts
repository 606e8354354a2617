/**
 * Generates realistic analytics traffic for one site straight in PostgreSQL, one site-local day per
 * transaction, with set-based SQL (`insert … select … from generate_series(…)`, picks from weighted
 * arrays with random()). Used by `npm run seed:demo` and by the stats benchmark.
 *
 * Per day: visits (sessions) with a landing page, source, country, network, device, language and 1–15
 * pages; about 40% of pageviews begin a visit. Bot and internal pageviews beside them; leave reports
 * (scroll, visible time) for most pageviews; events (add_to_cart, begin_checkout, purchase with values,
 * signup, newsletter_subscribe) and A/B exposures (pricing: a/b, where b converts better); server
 * requests of browsers and crawlers (status, cache, timing, verification, decisions).
 *
 * Days within `rawDays` of today go into the raw day partitions, and are counted in the workspace's usage
 * months (human pageviews, server requests) as the collector's rows are. Older days are generated into
 * temporary tables and only their daily rollups are kept (`daily_rollups` + `rollup_days`, format of
 * apps/api/src/analytics/catalogue.ts), as if the raw days had been rolled up and dropped; they count in no
 * month's usage.
 */
import {
  type AnalyticsDb,
  connectionOf,
  ensurePartitionsForDays,
  type InsertTally,
  type InsertTransaction,
  type Orm,
  type PgClient,
  pgPoolOf,
  SITE_DATA_TABLES,
  type SqlConnection,
} from '@us/db';
import { STATS_LIMITS } from '@us/shared';
import { copyOutOn, WORK_MEM } from '../../src/analytics/rollup/copy-connections.ts';
import { tallySiteDay } from '../../src/analytics/rollup/rollup-streams.ts';
import { replaceSiteDayRollup } from '../../src/analytics/rollup/rollup-write.ts';
import { trafficOf } from '../../src/core/enrich/traffic.ts';
import { addUsage } from '../../src/features/billing/usage-counters.ts';
import { mulberry32 } from './random.ts';
import {
  CACHE,
  CLIENTS,
  COUNTRIES,
  CRAWLER_PATHS,
  DEVICES,
  ENTRY_PAGES,
  HOSTING,
  HOURS,
  NEXT_PAGES,
  PAGE_BOTS,
  PAGE_TYPE_SQL,
  PAGES_PER_VISIT,
  PROBE_PATHS,
  SOFTWARE,
  STATUSES,
  sourcesFor,
} from './vocab.ts';

const DAY_MS = 86_400_000;

export interface GenerateOptions {
  siteId: string;
  /** The site's time zone: days are its calendar days. */
  timezone: string;
  /** Calendar days ending today (today included, up to now). */
  days: number;
  /** Pageviews in total over all days (all lanes). */
  pageviews: number;
  /** Days kept as raw rows (the rest become rollups). Default 90. */
  rawDays?: number;
  /** Server requests per pageview. Default 0.9. */
  requestsPerPageview?: number;
  /** Share of pageviews by bots (lane bot). Default 0.04. */
  botShare?: number;
  /** Share of pageviews by the site's own team (lane internal). Default 0.004. */
  internalShare?: number;
  /** Traffic growth over 180 days (1.8 = +80%). Default 1.8. */
  growth?: number;
  /** Days generated at once (connections). Default 2. */
  jobs?: number;
  /** Seeds the day-to-day variation (weights, spikes); row-level picks use random(). */
  seed?: string;
  now?: Date;
  onProgress?: (p: GenerateProgress) => void;
}

export interface GenerateProgress {
  daysDone: number;
  daysTotal: number;
  rows: number;
  elapsedMs: number;
  /** Estimated time left, from the planned pageviews still to generate. */
  etaMs: number | null;
}

export interface GenerateResult {
  rows: { pageviews: number; page_leaves: number; events: number; requests: number; daily_rollups: number };
  rawDays: number;
  rolledUpDays: number;
  firstDay: string;
  lastDay: string;
  ms: number;
}

export interface DayPlan {
  day: string;
  pageviews: number;
  raw: boolean;
  /** Seconds of the local day that have passed (86400 for past days). */
  limitSec: number;
  /** Hour of the local day now (23 for past days). */
  hourNow: number;
  newsletterDay: boolean;
  spike: string | null;
}

// ---------- SQL literals (only from constants of this module and computed numbers) ----------

const lit = (v: string | null) => (v === null ? 'NULL' : `'${v.replaceAll("'", "''")}'`);
const textArr = (vals: readonly (string | null)[]) => `(ARRAY[${vals.map(lit).join(',')}]::text[])`;
const intArr = (vals: readonly (number | null)[]) =>
  `(ARRAY[${vals.map((v) => (v === null ? 'NULL' : String(Math.trunc(v)))).join(',')}]::int[])`;
const boolArr = (vals: readonly boolean[]) => `(ARRAY[${vals.map(String).join(',')}]::boolean[])`;
const num = (n: number) => {
  if (!Number.isFinite(n)) throw new Error(`not a number: ${n}`);
  return String(n);
};
const uuid = (s: string) => {
  if (!/^[0-9a-f-]{36}$/i.test(s)) throw new Error(`not a uuid: ${s}`);
  return `'${s}'::uuid`;
};
const dayLit = (d: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(d)) throw new Error(`not a day: ${d}`);
  return `'${d}'`;
};

/**
 * SQL for a random 1-based index into `weights`, drawn in proportion to them: an int[] of `slots`
 * entries (fixed-width, so subscripting is O(1)) holding each index about weight/total × slots times.
 */
function pick(weights: readonly number[], slots = 1000): string {
  const total = weights.reduce((a, b) => a + b, 0);
  const raw = weights.map((w) => (w > 0 ? Math.max(1, (w / total) * slots) : 0));
  const counts = raw.map(Math.floor);
  let left = slots - counts.reduce((a, b) => a + b, 0);
  const order = raw.map((r, i) => [r - Math.floor(r), i] as const).sort((a, b) => b[0] - a[0]);
  for (let k = 0; left > 0 && k < order.length; k++, left--) counts[order[k]![1]]! += 1;
  const list: number[] = [];
  counts.forEach((c, i) => {
    for (let j = 0; j < c; j++) list.push(i + 1);
  });
  return `${intArr(list)}[1 + floor(random() * ${list.length})::int]`;
}

/** A uniformly random element of a text array literal. */
const anyOf = (vals: readonly string[]) => `${textArr(vals)}[1 + floor(random() * ${vals.length})::int]`;

/** exp(normal(ln(median), sigma)): a log-normal draw (Box–Muller). */
const logNormal = (medianSql: string, sigma: number) =>
  `exp(ln(${medianSql}) + ${num(sigma)} * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))`;

// ---------- days ----------

function localNow(tz: string, now: Date): { day: string; sec: number; hour: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  const hour = Number(parts.hour);
  return {
    day: `${parts.year}-${parts.month}-${parts.day}`,
    hour,
    sec: hour * 3600 + Number(parts.minute) * 60 + Number(parts.second),
  };
}

export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

const WEEKDAY = [0.82, 1.0, 1.04, 1.02, 1.0, 0.95, 0.78]; // Sunday first
const SPIKE_SITES = ['news.ycombinator.com', 'www.reddit.com', 'www.theguardian.com', 'www.spiegel.de', 'www.runnersworld.com'];

/** The days to generate and their pageviews: growth, weekly rhythm, noise, a few spikes; today only so far. */
export function planDays(opts: GenerateOptions): DayPlan[] {
  const now = opts.now ?? new Date();
  const local = localNow(opts.timezone, now);
  const n = Math.max(1, Math.floor(opts.days));
  const rawDays = opts.rawDays ?? STATS_LIMITS.rawDays;
  const rand = mulberry32(hashString(opts.seed ?? 'unseen-demo'));
  const growth = (opts.growth ?? 1.8) ** (n / 180);
  const hourTotal = HOURS.reduce((a, b) => a + b, 0);
  const doneToday =
    (HOURS.slice(0, local.hour).reduce((a, b) => a + b, 0) + (HOURS[local.hour] ?? 0) * ((local.sec % 3600) / 3600)) / hourTotal;
  const plans: (DayPlan & { weight: number })[] = [];
  for (let i = 0; i < n; i++) {
    const day = addDays(local.day, i - (n - 1));
    const dow = new Date(`${day}T00:00:00Z`).getUTCDay();
    const newsletterDay = dow === 2;
    const spike = hashString(`${opts.seed ?? ''}${day}`) % 41 === 0 ? SPIKE_SITES[hashString(day) % SPIKE_SITES.length]! : null;
    let weight = growth ** (n === 1 ? 1 : i / (n - 1)) * WEEKDAY[dow]! * (0.93 + rand() * 0.14);
    if (newsletterDay) weight *= 1.1;
    if (spike) weight *= 1.9;
    const today = i === n - 1;
    if (today) weight *= doneToday;
    plans.push({
      day,
      weight,
      pageviews: 0,
      raw: n - 1 - i < rawDays,
      limitSec: today ? Math.max(60, local.sec) : 86_400,
      hourNow: today ? local.hour : 23,
      newsletterDay,
      spike,
    });
  }
  const total = plans.reduce((a, p) => a + p.weight, 0);
  for (const p of plans) p.pageviews = Math.round((opts.pageviews * p.weight) / total);
  return plans.map(({ weight: _w, ...p }) => p);
}

// ---------- the SQL of one day ----------

interface Targets {
  pageviews: string;
  page_leaves: string;
  events: string;
  requests: string;
}
const RAW: Targets = { pageviews: 'pageviews', page_leaves: 'page_leaves', events: 'events', requests: 'requests' };
const STAGED: Targets = {
  pageviews: 'seed_pageviews',
  page_leaves: 'seed_page_leaves',
  events: 'seed_events',
  requests: 'seed_requests',
};

const meanPages = PAGES_PER_VISIT.reduce((a, [p, w]) => a + p * w, 0) / PAGES_PER_VISIT.reduce((a, [, w]) => a + w, 0);
const ENTRY = textArr(ENTRY_PAGES.map(([p]) => p));
const ENTRY_PICK = pick(ENTRY_PAGES.map(([, w]) => w));
const NEXT = textArr(NEXT_PAGES.map(([p]) => p));
const NEXT_PICK = pick(NEXT_PAGES.map(([, w]) => w));
const PAGES = intArr(PAGES_PER_VISIT.map(([p]) => p));
const PAGES_PICK = pick(PAGES_PER_VISIT.map(([, w]) => w));
const CC = textArr(COUNTRIES.map((c) => c[0]));
const CC_PICK = pick(COUNTRIES.map((c) => c[1]));
const LANGS = textArr(COUNTRIES.map((c) => c[2]));
const TZS = textArr(COUNTRIES.map((c) => c[3]));
const NET_ASN = intArr(COUNTRIES.flatMap((c) => c[4].map(([asn]) => asn)));
const NET_ORG = textArr(COUNTRIES.flatMap((c) => c[4].map(([, org]) => org)));
const NET_PICK = pick([55, 30, 15]);
const DEV = textArr(DEVICES.map((d) => d[0]));
const DEV_PICK = pick(DEVICES.map((d) => d[1]));
const WIDTHS = intArr(DEVICES.flatMap((d) => Array.from({ length: 10 }, (_, i) => d[2][i % d[2].length]!)));
// Browser and system of a visit: ten slots per device class, like WIDTHS.
const SW = DEVICES.flatMap((d) => SOFTWARE[d[0]] ?? []);
if (SW.length !== DEVICES.length * 10) throw new Error('SOFTWARE needs ten entries per device class');
const SW_BROWSER = textArr(SW.map((s) => s[0]));
const SW_BROWSER_MAJOR = intArr(SW.map((s) => s[1]));
const SW_OS = textArr(SW.map((s) => s[2]));
const SW_OS_MAJOR = intArr(SW.map((s) => s[3]));
const H_ASN = intArr(HOSTING.map((h) => h[0]));
const H_ORG = textArr(HOSTING.map((h) => h[1]));
const H_CC = textArr(HOSTING.map((h) => h[2]));
const H_PICK = `1 + floor(random() * ${HOSTING.length})::int`;
const BOT_NAME = textArr(PAGE_BOTS.map((b) => b[0]));
const BOT_CAT = textArr(PAGE_BOTS.map((b) => b[1]));
const BOT_DEV = textArr(PAGE_BOTS.map((b) => b[2]));
const BOT_PICK = pick(PAGE_BOTS.map((b) => b[3]));
const C_NAME = textArr(CLIENTS.map((c) => c[0]));
const C_CAT = textArr(CLIENTS.map((c) => c[1]));
const C_VER = boolArr(CLIENTS.map((c) => c[2]));
const C_ASN = intArr(CLIENTS.map((c) => c[3]));
const C_ORG = textArr(CLIENTS.map((c) => c[4]));
const C_CC = textArr(CLIENTS.map((c) => c[5]));
const C_PATHS = intArr(CLIENTS.map((c) => c[6]));
const C_PICK = pick(CLIENTS.map((c) => c[7]));
const STATUS = intArr(STATUSES.map(([s]) => s));
const STATUS_PICK = pick(STATUSES.map(([, w]) => w));
const CACHES = textArr(CACHE.map(([c]) => c));
const CACHE_PICK = pick(CACHE.map(([, w]) => w));

/** Rows a statement inserted (the CTE `rows`: `at`, `lane`) per UTC month of `at`, as the ingest's insert tallies them. */
const monthsOf = (rows: string) => `(select coalesce(json_agg(m), '[]'::json) from (
    select to_char(date_trunc('month', at at time zone 'UTC'), 'YYYY-MM-DD') as month,
      (count(*) filter (where lane = 'human'))::int as human, count(*)::int as total
    from ${rows} group by 1 order by 1) m)`;

/** A month of `monthsOf`. */
interface MonthTally {
  month: string;
  human: number;
  total: number;
}

/** `at` for `sec` seconds into the plan's local day. */
const localAt = (plan: DayPlan, tz: string, secSql: string) =>
  `least(now(), (${dayLit(plan.day)}::timestamp + (${secSql}) * interval '1 second') at time zone ${lit(tz)})`;

function pageSql(
  site: string,
  tz: string,
  plan: DayPlan,
  t: Targets,
  opts: Required<Pick<GenerateOptions, 'botShare' | 'internalShare'>>,
) {
  const humanPv = plan.pageviews * (1 - opts.botShare - opts.internalShare);
  const sessions = Math.max(0, Math.round(humanPv / meanPages));
  const visitors = Math.max(1, Math.round(sessions * 0.9));
  const bots = Math.round(plan.pageviews * opts.botShare);
  const internal = Math.round(plan.pageviews * opts.internalShare);
  const sources = sourcesFor(plan.day, plan);
  const seed = lit(`${site}${plan.day}`);
  const S_REF = textArr(sources.map((s) => s[0]));
  const S_SRC = textArr(sources.map((s) => s[1]));
  const S_MED = textArr(sources.map((s) => s[2]));
  const S_CMP = textArr(sources.map((s) => s[3]));
  // Source and channel as intake derives them for a visit's first pageview (later ones: no referrer, Direct).
  const traffic = sources.map(([referrer, source, medium, campaign]) => trafficOf(referrer, { source, medium, campaign }, null));
  const S_SOURCE = textArr(traffic.map((x) => x.source));
  const S_CHANNEL = textArr(traffic.map((x) => x.channel));
  const limit = num(plan.limitSec);
  // The second of a human visit: by the hourly rhythm; past `limit` (today) spread over what has passed.
  const hourPick = pick(HOURS.map((w, h) => (h <= plan.hourNow ? w : 0)));
  const cols =
    'site_id, day, id, at, pageview_id, visitor, session_start, lane, path, page_type, referrer_host, utm_source, utm_medium, utm_campaign, country, asn, as_org, device, window_width, language, timezone, bot_name, bot_category, tab_page, tls, browser, browser_major, os, os_major, source, channel';
  return `with s as materialized (
  select q.*,
    substr(md5(${seed} || (q.g % ${visitors})), 1, 22) as visitor,
    (${dayLit(plan.day)}::timestamp + (case when q.sec0 > ${limit} then random() * ${limit} else q.sec0 end) * interval '1 second') at time zone ${lit(tz)} as t0,
    ${WIDTHS}[(q.di - 1) * 10 + 1 + floor(random() * 10)::int] as width,
    (q.di - 1) * 10 + 1 + floor(random() * 10)::int as sw,
    case when random() < 0.85 then ${LANGS}[q.ci] else 'en-US' end as lang,
    case when random() < 0.95 then ${TZS}[q.ci] else 'UTC' end as tzname
  from (
    select g, ${PAGES}[${PAGES_PICK}] as pages, ${CC_PICK} as ci, ${NET_PICK} as ni, ${pick(sources.map((s) => s[4]))} as si,
      ${DEV_PICK} as di, ${ENTRY_PICK} as ei, ((${hourPick}) - 1) * 3600 + random() * 3600 as sec0
    from generate_series(1, ${sessions}) g
    offset 0
  ) q
),
pv as (
  insert into ${t.pageviews} (${cols})
  select ${uuid(site)}, (r.at at time zone 'UTC')::date, gen_random_uuid(), r.at, r.pageview_id,
    -- A visitor's code is made with the UTC day's salt (core/enrich/visitor.ts): a new code each UTC day.
    substr(md5(r.visitor || to_char(r.at at time zone 'UTC', 'YYYY-MM-DD')), 1, 22), r.session_start, r.lane,
    r.path, ${PAGE_TYPE_SQL}, r.referrer_host, r.utm_source, r.utm_medium, r.utm_campaign, r.country, r.asn, r.as_org, r.device,
    r.window_width, r.language, r.timezone, r.bot_name, r.bot_category, r.tab_page, r.tls, r.browser, r.browser_major, r.os, r.os_major, r.source, r.channel
  from (
    select least(now(), s.t0 + ((p - 1) * 40 + random() * 35) * interval '1 second') as at,
      substr(md5(random()::text), 1, 16) as pageview_id, s.visitor, p = 1 as session_start, 'human'::text as lane,
      case when p = 1 then ${ENTRY}[s.ei] else ${NEXT}[${NEXT_PICK}] end as path,
      case when p = 1 then ${S_REF}[s.si] end as referrer_host,
      case when p = 1 then ${S_SRC}[s.si] end as utm_source,
      case when p = 1 then ${S_MED}[s.si] end as utm_medium,
      case when p = 1 then ${S_CMP}[s.si] end as utm_campaign,
      ${CC}[s.ci]::char(2) as country, ${NET_ASN}[(s.ci - 1) * 3 + s.ni] as asn, ${NET_ORG}[(s.ci - 1) * 3 + s.ni] as as_org,
      ${DEV}[s.di] as device, s.width as window_width, s.lang as language, s.tzname as timezone,
      null::text as bot_name, null::text as bot_category,
      p as tab_page, case when random() < 0.97 then 'TLSv1.3' else 'TLSv1.2' end as tls,
      ${SW_BROWSER}[s.sw] as browser, ${SW_BROWSER_MAJOR}[s.sw] as browser_major, ${SW_OS}[s.sw] as os, ${SW_OS_MAJOR}[s.sw] as os_major,
case when p = 1 then ${S_SOURCE}[s.si] end as source, case when p = 1 then ${S_CHANNEL}[s.si] else 'Direct' end as channel
    from s cross join lateral generate_series(1, s.pages) p
    union all
    select ${localAt(plan, tz, `random() * ${limit}`)}, substr(md5(random()::text), 1, 16),
      substr(md5(${seed} || 'bot' || floor(random() * ${Math.max(1, Math.round(bots / 3))})), 1, 22), b.sr < 0.7, 'bot',
      ${ENTRY}[${ENTRY_PICK}], null, null, null, null,
      case ${BOT_NAME}[b.k] when 'Googlebot' then 'US' when 'Bingbot' then 'US' when 'ChatGPT-User' then 'US' when 'Applebot' then 'US' else ${H_CC}[b.h] end,
      case ${BOT_NAME}[b.k] when 'Googlebot' then 15169 when 'Bingbot' then 8075 when 'ChatGPT-User' then 8075 when 'Applebot' then 714 else ${H_ASN}[b.h] end,
      case ${BOT_NAME}[b.k] when 'Googlebot' then 'Google LLC' when 'Bingbot' then 'Microsoft Corporation' when 'ChatGPT-User' then 'Microsoft Corporation' when 'Applebot' then 'Apple Inc.' else ${H_ORG}[b.h] end,
      ${BOT_DEV}[b.k], case when ${BOT_NAME}[b.k] is null then 1920 else 1024 end, 'en-US', 'UTC', ${BOT_NAME}[b.k], ${BOT_CAT}[b.k],
      case when b.sr < 0.7 then 1 else 2 + floor(b.sr * 10)::int end, 'TLSv1.3', null, null, null, null, null, 'Direct'
    from (select ${BOT_PICK} as k, ${H_PICK} as h, random() as sr from generate_series(1, ${bots})) b
    union all
    select ${localAt(plan, tz, `least(${limit} * random(), (8 + random() * 10) * 3600)`)}, substr(md5(random()::text), 1, 16),
      substr(md5('team' || floor(random() * 4)), 1, 22), i.sr < 0.3, 'internal',
      ${NEXT}[${NEXT_PICK}], null, null, null, null, 'DE', 3320, 'Deutsche Telekom AG', 'desktop', 1920, 'de-DE', 'Europe/Berlin', null, null,
      case when i.sr < 0.3 then 1 else 2 + floor(i.sr * 10)::int end, 'TLSv1.3', 'Chrome', 131, 'macOS', null, null, 'Direct'
    from (select random() as sr from generate_series(1, ${internal})) i
    offset 0
  ) r
  returning site_id, at, pageview_id, visitor, lane, path, page_type, country, device, browser, browser_major, os, os_major
),
lv as (
  insert into ${t.page_leaves} (site_id, day, id, at, pageview_id, lane, scroll_depth, time_on_page_ms, interacted)
  select x.site_id, (x.la at time zone 'UTC')::date, gen_random_uuid(), x.la, x.pageview_id, x.lane, x.sd, x.tm, random() < 0.72
  from (
    select pv.site_id, pv.pageview_id, pv.lane, t.tm, least(now(), pv.at + t.tm * interval '1 millisecond') as la,
      least(100, greatest(0, round(100 * power(random(), case pv.page_type when 'article' then 0.6 when 'home' then 1.5 when 'checkout' then 0.8 else 1.0 end))))::int as sd
    from pv cross join lateral (
      select least(1800000, greatest(400, ${logNormal(
        `case when pv.lane = 'bot' then 4000 when pv.page_type = 'article' then 70000 when pv.page_type = 'product' then 35000 when pv.page_type = 'checkout' then 50000 when pv.page_type = 'home' then 18000 else 25000 end`,
        0.9,
      )}))::int as tm
      offset 0
    ) t
    where random() < case when pv.lane = 'bot' then 0.3 else 0.8 end
    offset 0
  ) x
  returning 1
),
ev as (
  insert into ${t.events} (site_id, day, id, at, pageview_id, visitor, lane, path, name, label, value, kind, experiment, variant, country, device,
    browser, browser_major, os, os_major)
  select y.site_id, (y.eat at time zone 'UTC')::date, gen_random_uuid(), y.eat, y.pageview_id, y.visitor, y.lane, y.path, y.name, y.label,
    y.value, y.kind, y.experiment, y.variant, y.country, y.device, y.browser, y.browser_major, y.os, y.os_major
  from (
    -- Never past the pageview's UTC day: the event carries the pageview's visitor code, which intake would give
    -- only to rows of that day (the next day's code is another).
    select e.*, least(now(), e.at + (2 + random() * 60) * interval '1 second',
        (date_trunc('day', e.at at time zone 'UTC') + interval '1 day' - interval '1 millisecond') at time zone 'UTC') as eat,
      case e.name when 'add_to_cart' then substr(e.path, 11) when 'purchase' then 'order' when 'newsletter_subscribe' then 'blog' end as label,
      case e.name
        when 'add_to_cart' then (39 + abs(hashtext(e.path)) % 160 + 0.99)::float8
        when 'begin_checkout' then round((40 + random() * 260)::numeric, 2)::float8
        when 'purchase' then round((30 + ${logNormal('90', 0.6)})::numeric, 2)::float8 end as value,
      case e.name when 'pricing' then 'exposure' else 'event' end as kind,
      case e.name when 'pricing' then 'pricing' end as experiment,
      case e.name when 'pricing' then case when hashtext(e.visitor) & 1 = 1 then 'b' else 'a' end end as variant
    from (
      -- At most one event per pageview: the conditions are on different pages.
      select pv.*, case
          when pv.path = '/pricing' then 'pricing'
          when pv.lane = 'bot' then null
          when pv.page_type = 'product' then case when random() < 0.08 then 'add_to_cart' end
          when pv.path = '/checkout' then case when random() < 0.6 then 'begin_checkout' end
          when pv.path = '/checkout/thanks' then 'purchase'
          when pv.path = '/signup' then case when random() < case when hashtext(pv.visitor) & 1 = 1 then 0.34 else 0.25 end then 'signup' end
          when pv.page_type = 'article' then case when random() < 0.012 then 'newsletter_subscribe' end
        end as name
      from pv
      offset 0
    ) e
    where e.name is not null
  ) y
  returning 1
)
select (select count(*) from pv)::int as pageviews, (select count(*) from lv)::int as page_leaves, (select count(*) from ev)::int as events,
  ${monthsOf('pv')} as months`;
}

function requestSql(site: string, tz: string, plan: DayPlan, t: Targets, perPageview: number) {
  const n = Math.round(plan.pageviews * perPageview);
  const limit = num(plan.limitSec);
  return `with rq as (
insert into ${t.requests} (site_id, day, id, at, method, path, status, cache, duration_ms, lane, kind, bot_name, bot_category, verified, country, asn, as_org, tls, decision, reason)
select ${uuid(site)}, (z.at at time zone 'UTC')::date, gen_random_uuid(), z.at, z.method, z.path, z.status, z.cache,
  case when z.cache = 'HIT' then 1 + floor(random() * 9)::int
    else least(30000, greatest(3, ${logNormal('case when z.status >= 500 then 900 when z.status = 404 then 25 else 90 end', 0.7)}))::int end,
  z.lane, z.kind, z.bot_name, z.bot_category, z.verified, z.country, z.asn, z.as_org, z.tls, z.decision, z.reason
from (
  select y.*,
    case when y.status >= 400 or y.method = 'POST' or y.decision <> 'allow' then 'DYNAMIC' else ${CACHES}[${CACHE_PICK}] end as cache
  from (
    select x.*,
      case when x.probe then 404 when x.decision <> 'allow' then 403 when x.method = 'POST' then 200
        when x.path in (${CRAWLER_PATHS.map(lit).join(', ')}) then 200 else ${STATUS}[${STATUS_PICK}] end as status
    from (
      select
        ${localAt(plan, tz, `case when q.sec0 > ${limit} then random() * ${limit} else q.sec0 end`)} as at,
        case when q.rm < 0.97 then 'GET' when q.rm < 0.99 then 'HEAD' else 'POST' end as method,
        case ${C_PATHS}[q.k]
          when 1 then ${NEXT}[${NEXT_PICK}]
          when 2 then case when random() < 0.15 then ${anyOf(CRAWLER_PATHS)} else ${ENTRY}[${ENTRY_PICK}] end
          when 3 then ${anyOf(PROBE_PATHS)}
          else '/' end as path,
        ${C_PATHS}[q.k] = 3 as probe,
        ${C_NAME}[q.k] as bot_name, ${C_CAT}[q.k] as bot_category,
        (${C_VER}[q.k] and q.vr < 0.96) as verified,
        case when q.k = 1 and q.vr < 0.004 then 'internal' when q.k = 1 then 'human' else 'bot' end as lane,
        case when q.k <= 2 then 'browser' when ${C_VER}[q.k] and q.vr < 0.96 then 'verified-bot' else 'bot' end as kind,
        case when q.k = 1 then ${CC}[q.ci] when q.k = 2 or (${C_VER}[q.k] and q.vr >= 0.96) then ${H_CC}[q.hi] else ${C_CC}[q.k] end as country,
        case when q.k = 1 then ${NET_ASN}[(q.ci - 1) * 3 + q.ni] when q.k = 2 or (${C_VER}[q.k] and q.vr >= 0.96) then ${H_ASN}[q.hi] else ${C_ASN}[q.k] end as asn,
        case when q.k = 1 then ${NET_ORG}[(q.ci - 1) * 3 + q.ni] when q.k = 2 or (${C_VER}[q.k] and q.vr >= 0.96) then ${H_ORG}[q.hi] else ${C_ORG}[q.k] end as as_org,
        case when random() < 0.9 then 'TLSv1.3' else 'TLSv1.2' end as tls,
        case when ${C_NAME}[q.k] = 'Bytespider' then 'deny' when ${C_VER}[q.k] and q.vr >= 0.96 then 'challenge' else 'allow' end as decision,
        case when ${C_NAME}[q.k] = 'Bytespider' then 'rule: Block Bytespider'
          when ${C_VER}[q.k] and q.vr >= 0.96 then 'claims to be ' || ${C_NAME}[q.k] || ', not verified' end as reason
      from (
        select p.*, case when p.k <= 2 then (p.hr - 1) * 3600 + random() * 3600 else random() * 86400 end as sec0
        from (
          select ${C_PICK} as k, random() as vr, ${CC_PICK} as ci, ${NET_PICK} as ni, ${H_PICK} as hi, random() as rm,
            ${pick(HOURS.map((w, h) => (h <= plan.hourNow ? w : 0)))} as hr
          from generate_series(1, ${n})
          offset 0
        ) p
        offset 0
      ) q
      offset 0
    ) x
    offset 0
  ) y
  offset 0
) z
returning at, lane
)
select (select count(*) from rq)::int as requests, ${monthsOf('rq')} as months`;
}

// ---------- running it ----------

/**
 * Deletes every analytics row and rollup of the site, and takes the raw rows it deletes back out of the
 * workspace's usage counters (generated rows were counted there, `countUsage`), so traffic generated again
 * is not counted twice. Returns the rows removed.
 */
export async function deleteTraffic(db: AnalyticsDb, siteId: string): Promise<number> {
  const conn = connectionOf(db);
  let n = 0;
  await conn.transactional(async (trx) => {
    await forgetUsage(conn, trx, siteId);
    // The per-day store's figures and versions go too: they describe rows that no longer exist.
    for (const table of SITE_DATA_TABLES) {
      const r = await conn.execute<{ affectedRows: number }>(
        `delete from ${table} where site_id = ${uuid(siteId)}`,
        [],
        'run',
        trx,
      );
      n += r.affectedRows ?? 0;
    }
  });
  return n;
}

/** Subtracts the site's raw human pageviews and requests from its workspace's months (never below 0). */
async function forgetUsage(conn: SqlConnection, trx: InsertTransaction, siteId: string) {
  const month = `date_trunc('month', at at time zone 'UTC')::date`;
  await conn.execute(
    `update usage_months u
        set pageviews = greatest(0, u.pageviews - c.pageviews), requests = greatest(0, u.requests - c.requests), updated_at = now()
       from (
         select month, sum(pageviews) as pageviews, sum(requests) as requests from (
           select ${month} as month, count(*) as pageviews, 0 as requests
             from pageviews where site_id = ${uuid(siteId)} and lane = 'human' group by 1
           union all
           select ${month}, 0, count(*) from requests where site_id = ${uuid(siteId)} group by 1
         ) x group by 1
       ) c
      where u.workspace_id = (select workspace_id from sites where id = ${uuid(siteId)}) and u.month = c.month`,
    [],
    'run',
    trx,
  );
}

/**
 * What the ingest's tallied insert does after each batch (`countingInserter`): the rows just inserted are
 * added to the workspace's usage months (`addUsage`) in the insert's own transaction. Days generated at once
 * take turns here (a lock on the site until commit), so two of them never wait on each other's months.
 */
async function countUsage(
  conn: SqlConnection,
  trx: InsertTransaction,
  siteId: string,
  inserted: { pageviews: MonthTally[]; requests: MonthTally[] },
) {
  await conn.execute(`select pg_advisory_xact_lock(hashtext(${lit(`seed-usage:${siteId}`)}))`, [], 'all', trx);
  const tally = (months: MonthTally[]): InsertTally[] => months.map((m) => ({ siteId, ...m }));
  await addUsage(conn, trx, 'pageviews', tally(inserted.pageviews));
  await addUsage(conn, trx, 'requests', tally(inserted.requests));
}

export async function generateTraffic(orm: Orm, opts: GenerateOptions): Promise<GenerateResult> {
  const conn = connectionOf(orm);
  const plans = planDays(opts);
  const shares = { botShare: opts.botShare ?? 0.04, internalShare: opts.internalShare ?? 0.004 };
  const perPageview = opts.requestsPerPageview ?? 0.9;
  const started = performance.now();
  // Partitions for every UTC day a raw local day touches (and the day after, for late leave reports).
  const partitionDays = new Map<string, Date>();
  for (const p of plans.filter((x) => x.raw)) {
    for (const k of [-1, 0, 1, 2]) {
      const d = addDays(p.day, k);
      partitionDays.set(d, new Date(`${d}T00:00:00Z`));
    }
  }
  if (partitionDays.size) await ensurePartitionsForDays(conn, [...partitionDays.values()]);

  const rows = { pageviews: 0, page_leaves: 0, events: 0, requests: 0, daily_rollups: 0 };
  const plannedTotal = plans.reduce((a, p) => a + p.pageviews, 0) || 1;
  let plannedDone = 0;
  let daysDone = 0;
  const report = () => {
    const elapsedMs = performance.now() - started;
    const all = rows.pageviews + rows.page_leaves + rows.events + rows.requests + rows.daily_rollups;
    opts.onProgress?.({
      daysDone,
      daysTotal: plans.length,
      rows: all,
      elapsedMs,
      etaMs: plannedDone > 0 ? (elapsedMs * (plannedTotal - plannedDone)) / plannedDone : null,
    });
  };
  report();

  // A raw day: its rows go into the raw tables, as the collector's would.
  const rawDay = async (plan: DayPlan) => {
    await conn.transactional(async (trx) => {
      await conn.execute('set local synchronous_commit = off', [], 'run', trx);
      const [counts] = await conn.execute<{ pageviews: number; page_leaves: number; events: number; months: MonthTally[] }[]>(
        pageSql(opts.siteId, opts.timezone, plan, RAW, shares),
        [],
        'all',
        trx,
      );
      const [req] = await conn.execute<{ requests: number; months: MonthTally[] }[]>(
        requestSql(opts.siteId, opts.timezone, plan, RAW, perPageview),
        [],
        'all',
        trx,
      );
      // What insertRows does for every batch: the per-day store sees the day got rows.
      const from = `(${dayLit(plan.day)}::timestamp at time zone ${lit(opts.timezone)})`;
      const to = `((${dayLit(plan.day)}::date + 1)::timestamp at time zone ${lit(opts.timezone)})`;
      const mine = `site_id = ${uuid(opts.siteId)} and at >= ${from} and at < ${to}`;
      await conn.execute(
        `insert into day_arrivals (site_id, day, rows)
         select site_id, day, count(*) from (
           select site_id, day from ${RAW.pageviews} where ${mine}
           union all select site_id, day from ${RAW.events} where ${mine}
         ) x group by 1, 2 order by 1, 2
         on conflict (site_id, day) do update set rows = day_arrivals.rows + excluded.rows`,
        [],
        'run',
        trx,
      );
      rows.pageviews += Number(counts?.pageviews ?? 0);
      rows.page_leaves += Number(counts?.page_leaves ?? 0);
      rows.events += Number(counts?.events ?? 0);
      rows.requests += Number(req?.requests ?? 0);
      await countUsage(conn, trx, opts.siteId, { pageviews: counts?.months ?? [], requests: req?.months ?? [] });
    });
  };

  // An older day: its rows go into temporary tables of one connection, the rollup job's tallies read
  // them there (COPY), and only the day's rollup rows are kept.
  const stagedDay = async (plan: DayPlan) => {
    const client = (await (await pgPoolOf(orm)).connect()) as PgClient & {
      query(sql: string, params?: unknown[]): Promise<unknown>;
    };
    try {
      await client.query(`begin; set local synchronous_commit = off; set local work_mem = '${WORK_MEM}'`);
      for (const [table, temp] of Object.entries(STAGED)) {
        await client.query(`create temp table ${temp} (like ${table} including defaults) on commit drop`);
      }
      await client.query(pageSql(opts.siteId, opts.timezone, plan, STAGED, shares));
      await client.query(requestSql(opts.siteId, opts.timezone, plan, STAGED, perPageview));
      const src = { tables: STAGED, where: 'true', whereParams: [], leavesWhere: 'true', leavesParams: [] };
      const omitted = new Set<string>();
      const rollupRows = await tallySiteDay(src, copyOutOn(client), 1, 1, omitted);
      await replaceSiteDayRollup(
        async (sql, params) => ((await client.query(sql, params)) as { rows: unknown[] }).rows,
        opts.siteId,
        plan.day,
        rollupRows,
        { until: null, timezone: opts.timezone, omitted: [...omitted].sort() },
      );
      await client.query('commit');
      client.release();
      rows.daily_rollups += rollupRows.length;
    } catch (e) {
      client.release(e instanceof Error ? e : new Error(String(e)));
      throw e;
    }
  };

  const runDay = async (plan: DayPlan) => {
    await (plan.raw ? rawDay(plan) : stagedDay(plan));
    daysDone += 1;
    plannedDone += plan.pageviews;
    report();
  };

  // Oldest first, `jobs` days at once.
  const queue = [...plans];
  const jobs = Math.max(1, Math.min(opts.jobs ?? 2, 8));
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let plan = queue.shift(); plan; plan = queue.shift()) await runDay(plan);
    }),
  );
  return {
    rows,
    rawDays: plans.filter((p) => p.raw).length,
    rolledUpDays: plans.filter((p) => !p.raw).length,
    firstDay: plans[0]!.day,
    lastDay: plans[plans.length - 1]!.day,
    ms: performance.now() - started,
  };
}
