import { randomInt, randomUUID } from 'node:crypto';
import {
  EmailToken,
  eventOf,
  Invite,
  insertRows,
  Membership,
  pageviewRow,
  requestRow,
  Session,
  SiteHostname,
  User,
  Workspace,
} from '@us/db';
import { type Plan, SCOPES } from '@us/shared';
import { afterAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../src/core/security/passwords.ts';
import { randomToken, sha256 } from '../../../src/core/security/tokens.ts';
import { MAX_MESSAGE_DEPTH } from '../../../src/faces/mcp/jsonrpc.ts';
import { startDnsServer } from '../../support/dns-server.ts';
import { startEdgeStandIn } from '../../support/edge-standin.ts';
import {
  type Answer,
  encodePart,
  fromSchema,
  hash32,
  type Js,
  judge,
  mutateObject,
  NASTY_STRINGS,
  nastyValue,
  queryValues,
  RAW_BODIES,
  Rng,
} from '../../support/fuzz.ts';
import { envelope } from '../../support/mcp-http.ts';
import { createToken, GOOD_PASSWORD, startTestServer, uniqueEmail } from '../../support/server.ts';
import { startStripeStandIn, stripeEnv } from '../../support/stripe-standin.ts';

/**
 * Fuzzing every operation of /v1/openapi.json (and every MCP tool) with requests generated from its
 * JSON Schemas by json-schema-faker, then mutated: wrong types, 10,000-character strings, NUL, emoji,
 * right-to-left marks, lone surrogates, huge and negative numbers, NaN-like texts, dropped and extra
 * fields, broken JSON, and path parameters that are real ids of a fixture or garbage. Each operation
 * runs in a workspace of its own (owner, member, invite, tokens, sessions, a site with hostname, keys,
 * goal, experiment and traffic); destructive operations get a new one after each success.
 *
 * Spec §7: no answer is a 5xx, every non-2xx answer is problem+json with a title (and a field for
 * 400), and no body carries a stack trace or SQL. MCP: a tool failure is an isError result.
 *
 * FUZZ_SEED replays a run (the seed is printed first); FUZZ_RUNS sets the cases per operation.
 */

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) >>> 0 : randomInt(2 ** 31);
const RUNS = Math.max(1, Number(process.env.FUZZ_RUNS ?? 14));
const MCP_RUNS = Math.max(1, Math.ceil(RUNS / 2));
console.log(`[fuzz-openapi] seed ${SEED}, ${RUNS} cases per operation, ${MCP_RUNS} per MCP tool (replay: FUZZ_SEED=${SEED})`);

// ---------------------------------------------------------------------------------------------------
// Operations of the document

interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Js;
}

interface Op {
  method: string;
  path: string;
  label: string;
  params: Param[];
  body: Js | undefined;
  auth: 'none' | 'person' | 'any';
  idempotent: boolean;
  tool: string | undefined;
}

/** Operations that can destroy what later cases aim at: after each success the case gets a new workspace. */
function destructive(op: Op): boolean {
  return (
    op.method === 'DELETE' ||
    op.path.endsWith('/keys/{keyId}/rotate') ||
    /^\/v1\/auth\/(logout|password|2fa)/.test(op.path) ||
    op.path === '/v1/invites/accept' ||
    op.path === '/v1/members/{userId}'
  );
}

const ANALYTICS = /\/(stats|summary|top|goals\/results|experiments\/\{key\}\/results|journeys)/;

// ---------------------------------------------------------------------------------------------------
// The fixture: one workspace with everything an operation can aim at

interface World {
  email: string;
  userId: string;
  workspaceId: string;
  token: string;
  cookie: string;
  sessionId: string;
  extraSessionId: string;
  memberId: string;
  inviteId: string;
  extraTokenId: string;
  siteId: string;
  publicKeyId: string;
  secretKeyId: string;
  /** Raw link tokens: e-mail verification and password reset of the owner, an invitation to the owner elsewhere. */
  linkTokens: string[];
  /** Verified (so internal links work); `pendingHostname` is not. */
  hostname: string;
  pendingHostname: string;
  goalId: string;
  experimentKey: string;
}

// biome-ignore lint/suspicious/noExplicitAny: fixture answers are read loosely
type Loose = Record<string, any>;

async function api(method: string, path: string, token: string, body?: unknown): Promise<Loose> {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const data = (await res.json().catch(() => undefined)) as Loose | undefined;
  if (!res.ok || !data) throw new Error(`fixture ${method} ${path}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}

const randomHostname = (tag: string) =>
  `${tag}-${randomToken(6)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, 'x')}.example.com`;

async function makeWorld(analytics: boolean, plan: Plan = 'Business'): Promise<World> {
  const em = t.deps.orm.em.fork();
  const email = uniqueEmail('fuzz');
  const owner = em.create(User, { email, passwordHash, emailVerifiedAt: new Date() });
  const workspace = em.create(Workspace, { name: 'Fuzz workspace', plan });
  em.create(Membership, { workspace, user: owner, role: 'owner' });
  const member = em.create(User, { email: uniqueEmail('fuzz-member'), passwordHash, emailVerifiedAt: new Date() });
  em.create(Membership, { workspace, user: member, role: 'viewer' });
  const invite = em.create(Invite, {
    workspace,
    email: uniqueEmail('fuzz-invitee'),
    role: 'viewer',
    tokenHash: sha256(randomUUID()),
    invitedBy: owner.id,
    expiresAt: new Date(Date.now() + 7 * 86_400_000),
  });
  // Link tokens the owner could have received: verification, reset, and an invitation into another workspace.
  const linkTokens = [randomToken(32), randomToken(32), randomToken(32)] as const;
  const tokenExpiry = new Date(Date.now() + 3_600_000);
  em.create(EmailToken, { user: owner, purpose: 'verify', tokenHash: sha256(linkTokens[0]), expiresAt: tokenExpiry });
  em.create(EmailToken, { user: owner, purpose: 'reset', tokenHash: sha256(linkTokens[1]), expiresAt: tokenExpiry });
  const elsewhere = em.create(Workspace, { name: 'Fuzz elsewhere', plan });
  em.create(Invite, {
    workspace: elsewhere,
    email,
    role: 'member',
    tokenHash: sha256(linkTokens[2]),
    invitedBy: member.id,
    expiresAt: new Date(Date.now() + 7 * 86_400_000),
  });
  const cookieValue = randomToken(32);
  const expiresAt = new Date(Date.now() + 86_400_000);
  const session = em.create(Session, { user: owner, tokenHash: sha256(cookieValue), expiresAt, network: null, device: null });
  const extraSession = em.create(Session, {
    user: owner,
    tokenHash: sha256(randomUUID()),
    expiresAt,
    network: null,
    device: null,
  });
  await em.flush();

  const { token } = await createToken(t.deps, { userId: owner.id, workspaceId: workspace.id, scopes: [...SCOPES] });
  const extra = await createToken(t.deps, { userId: owner.id, workspaceId: workspace.id, scopes: ['sites:read'] });
  const hostname = randomHostname('fuzz');
  const pendingHostname = randomHostname('fuzz-pending');
  const created = await api('POST', '/v1/sites', token, {
    name: 'Fuzz site',
    timezone: 'Europe/Berlin',
    hostnames: [hostname, pendingHostname],
  });
  const siteId = created.site.id as string;
  await em.nativeUpdate(SiteHostname, { site: siteId, hostname }, { verifiedAt: new Date() });
  const key = await api('POST', `/v1/sites/${siteId}/keys`, token, { kind: 'secret' });
  const settings = await api('PATCH', `/v1/sites/${siteId}/settings`, token, {
    internalNetworks: ['10.0.0.0/8', '2001:db8::/32'],
    goals: [
      { name: 'Signup', type: 'event', match: 'signup' },
      { name: 'Pricing', type: 'path', match: '/pricing*' },
    ],
    experiments: [{ key: 'hero', name: 'Hero', variants: ['a', 'b'], status: 'running' }],
    botWindows: [{ from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', country: 'DE', note: 'fleet' }],
  });
  const goals = (settings.site?.settings?.goals ?? settings.settings?.goals ?? []) as { id?: string }[];
  if (analytics) await addTraffic(siteId);
  return {
    email,
    userId: owner.id,
    workspaceId: workspace.id,
    token,
    cookie: `us_session=${cookieValue}`,
    sessionId: session.id,
    extraSessionId: extraSession.id,
    memberId: member.id,
    inviteId: invite.id,
    extraTokenId: extra.id,
    siteId,
    publicKeyId: created.publicKey.id as string,
    secretKeyId: (key.key?.id ?? key.id) as string,
    linkTokens: [...linkTokens],
    hostname,
    pendingHostname,
    goalId: goals[0]?.id ?? 'signup',
    experimentKey: 'hero',
  };
}

/** A little traffic of every kind over the last days, so the stats code has rows to group and filter. */
async function addTraffic(siteId: string) {
  const now = Date.now();
  const at = (i: number) => new Date(now - (i % 9) * 86_400_000 - (i % 5) * 3_600_000);
  const pageviews = Array.from({ length: 24 }, (_, i) =>
    pageviewRow(siteId, at(i), {
      visitor: `v-${i % 7}`,
      sessionStart: i % 3 === 0,
      lane: (['human', 'human', 'bot', 'internal'] as const)[i % 4] ?? 'human',
      path: ['/', '/pricing', '/blog/a', '/signup'][i % 4] as string,
      pageType: i % 2 ? 'article' : null,
      referrerHost: i % 3 ? 'www.google.com' : null,
      utmSource: i % 5 === 0 ? 'news' : null,
      country: ['DE', 'US', null][i % 3] ?? null,
      device: ['desktop', 'mobile'][i % 2] as string,
    }),
  );
  const events = pageviews.slice(0, 10).map((p, i) =>
    eventOf(p, {
      name: i % 2 ? 'signup' : 'click',
      kind: i % 3 === 0 ? 'exposure' : 'event',
      experiment: i % 3 === 0 ? 'hero' : null,
      variant: i % 3 === 0 ? (['a', 'b'][i % 2] as string) : null,
    }),
  );
  const requests = Array.from({ length: 12 }, (_, i) =>
    requestRow(siteId, at(i), {
      path: ['/', '/robots.txt', '/api'][i % 3] as string,
      status: [200, 404, 403][i % 3] as number,
      durationMs: 3 + i,
      lane: (['human', 'bot'] as const)[i % 2] ?? 'human',
      kind: (['browser', 'bot', 'verified-bot'] as const)[i % 3] ?? 'browser',
      botName: i % 2 ? 'GPTBot' : null,
      botCategory: i % 2 ? 'ai-training' : null,
      verified: i % 3 === 2,
      decision: ['allow', 'challenge', 'deny'][i % 3] as string,
    }),
  );
  await insertRows(t.deps.orm, 'pageviews', pageviews);
  await insertRows(t.deps.orm, 'events', events);
  await insertRows(t.deps.orm, 'requests', requests);
}

// ---------------------------------------------------------------------------------------------------
// Values: realistic ones so the deep code runs, and garbage

const ZONES = ['UTC', 'Europe/Berlin', 'America/St_Johns', 'Pacific/Kiritimati', 'Asia/Kathmandu', 'Pacific/Chatham'];

function dayString(offsetDays: number): string {
  return new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
}

/** A realistic value for a field of this name, or undefined when the name says nothing. */
function hint(name: string, rng: Rng, w: World, schemas: Schemas): unknown {
  switch (name) {
    case 'email':
      return rng.pick([w.email, uniqueEmail('fuzz-new'), 'a@b.c', 'UPPER@EXAMPLE.COM']);
    case 'password':
    case 'currentPassword':
      return rng.pick([GOOD_PASSWORD, `${GOOD_PASSWORD}-wrong`]);
    case 'newPassword':
      return rng.pick([`${GOOD_PASSWORD}-next`, 'password123', 'short']);
    case 'hostname':
      return rng.chance(0.5)
        ? w.hostname
        : rng.pick([w.pendingHostname, `new-${rng.int(1e6)}.example.com`, 'WWW.Example.COM', 'sub.fuzz.example']);
    case 'scopes':
      return [...SCOPES].filter(() => rng.chance(0.4));
    case 'botWindows':
      return Array.from({ length: rng.int(3) }, () => {
        const from = Date.now() - rng.int(60) * 86_400_000;
        return {
          from: new Date(from).toISOString(),
          to: new Date(from + (1 + rng.int(48)) * 3_600_000).toISOString(),
          ...(rng.chance(0.5) ? { country: rng.pick(['DE', 'us', 'XX']) } : {}),
          ...(rng.chance(0.5) ? { network: rng.pick(['AS15169', 'Hetzner Online GmbH']) } : {}),
        };
      });
    case 'origin':
      return rng.pick(['https://origin.example.com', 'http://10.0.0.1:8080', 'ftp://x', 'https://user:pw@x.example/']);
    case 'timezone':
      return rng.pick(ZONES);
    case 'by':
    case 'dimension':
      return rng.pick(DIMENSIONS);
    case 'sort':
      return rng.pick(COUNTS);
    case 'from':
    case 'to':
      return rng.pick([dayString(-rng.int(40)), dayString(-400), dayString(3), '1900-01-01', '2999-12-31', '2024-02-29']);
    case 'siteIds':
      return rng.pick([[w.siteId], [w.siteId, randomUUID()], null]);
    case 'expiresAt':
      return rng.pick([new Date(Date.now() + 86_400_000).toISOString(), '2000-01-01T00:00:00Z', null]);
    case 'internalNetworks':
      return rng.pick([['10.0.0.0/8'], ['2001:db8::/32', '192.168.1.1'], ['0.0.0.0/0', '::/0']]);
    case 'code':
      return '123456';
    case 'token':
      return rng.pick(w.linkTokens);
    case 'key':
      return rng.pick([w.experimentKey, 'new-exp']);
    case 'where':
      return Object.fromEntries(
        Array.from({ length: 1 + rng.int(3) }, () => [rng.pick(FILTERS), rng.pick(['/', 'DE', '(none)', 'mobile', '/blog/*'])]),
      );
    case 'queries': {
      const n = 1 + rng.int(4);
      return Object.fromEntries(
        Array.from({ length: n }, (_, i) => {
          const generated = schemas.statsSpec ? realistic(fromSchema(schemas.statsSpec, rng), rng, w, schemas) : {};
          const spec = coherentSpec((generated ?? {}) as Record<string, unknown>, rng, 'body');
          return [`q${i}`, rng.chance(0.2) ? nastyValue(rng) : spec];
        }),
      );
    }
    default:
      return undefined;
  }
}

interface Schemas {
  statsSpec: Js | undefined;
}

const FILTER_VALUES = ['/', '/pricing', 'DE', '(none)', 'mobile', 'GPTBot', 'www.google.com', 'signup'];

/**
 * A generated stats spec made to hang together (dimension, sort and filters of its metric set; either
 * `days` or a `from`/`to` range in order), so the query engine runs rather than refusing it at once.
 * `style` says where filters go: a `where` object (JSON) or `where.<name>` parameters (query string).
 */
function coherentSpec(value: Record<string, unknown>, rng: Rng, style: 'body' | 'query', set?: string): Record<string, unknown> {
  const sets = Object.keys(catalogue.metricSets);
  const name = set ?? (typeof value.metrics === 'string' && sets.includes(value.metrics) ? value.metrics : rng.pick(sets));
  const def = catalogue.metricSets[name] as { dimensions: string[]; filters: string[]; counts: string[] };
  const out: Record<string, unknown> = { ...value };
  if ('metrics' in out) out.metrics = name;
  if ('by' in out) out.by = rng.pick(def.dimensions);
  if ('sort' in out) out.sort = rng.pick(def.counts);
  if ('from' in out || 'to' in out) {
    if (rng.chance(0.5)) {
      delete out.from;
      delete out.to;
    } else {
      const back = rng.pick([0, 3, 30, 120, 400]);
      out.from = dayString(-back - rng.int(20));
      if (rng.chance(0.7)) out.to = dayString(-back);
      else delete out.to;
      delete out.days;
    }
  }
  if ('count' in out && name !== 'pageviews' && rng.chance(0.8)) delete out.count;
  const filters = def.filters.length && rng.chance(0.6) ? [rng.pick(def.filters)] : [];
  if (style === 'body') {
    if ('where' in out || filters.length) out.where = Object.fromEntries(filters.map((f) => [f, rng.pick(FILTER_VALUES)]));
  } else {
    for (const k of Object.keys(out)) if (k.startsWith('where.')) delete out[k];
    for (const f of filters) out[`where.${f}`] = rng.pick(FILTER_VALUES);
  }
  return out;
}

const STATS_OP = /\/(stats|summary|top)(\/|$)/;

/** A path segment decoded, or null when its percent escapes are malformed (a generated `%E0%A4%A`). */
function decodedOrNull(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The metric set an operation's spec is about, when its route fixes one. */
function setOf(op: Op, path: string): string | undefined {
  if (op.path.endsWith('/summary')) return 'pageviews';
  const raw = /\/top\/([^/?]+)/.exec(path)?.[1];
  const dim = raw === undefined ? undefined : decodedOrNull(raw);
  // Own keys only: a generated dimension such as `constructor` must not find Object's members.
  return dim != null && Object.hasOwn(catalogue.topDimensions, dim) ? catalogue.topDimensions[dim] : undefined;
}

/** The generated value with realistic values in some named fields (each with probability one half). */
function realistic(value: unknown, rng: Rng, w: World, schemas: Schemas, depth = 0): unknown {
  if (depth > 4 || !value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const h = rng.chance(0.5) ? hint(k, rng, w, schemas) : undefined;
    out[k] = h !== undefined ? h : realistic(v, rng, w, schemas, depth + 1);
  }
  return out;
}

/** A real id for a path parameter of this operation (rarely one of another kind). */
function realParam(op: Op, name: string, rng: Rng, w: World): string {
  if (name === 'id') {
    if (op.path.startsWith('/v1/sites/')) return w.siteId;
    if (op.path.startsWith('/v1/tokens/')) return w.extraTokenId;
    if (op.path.startsWith('/v1/members/invites/')) return w.inviteId;
    if (op.path.startsWith('/v1/auth/sessions/')) return rng.chance(0.8) ? w.extraSessionId : w.sessionId;
  }
  switch (name) {
    case 'userId':
      return rng.chance(0.8) ? w.memberId : w.userId;
    case 'keyId':
      return rng.chance(0.7) ? w.secretKeyId : w.publicKeyId;
    case 'hostname':
      return rng.pick([w.hostname, w.pendingHostname, w.hostname.toUpperCase()]);
    case 'goal':
      return w.goalId;
    case 'key':
      return w.experimentKey;
    case 'dimension':
      return rng.pick(TOP_DIMENSIONS);
  }
  return randomUUID();
}

function garbageParam(rng: Rng, w: World): string {
  return rng.pick([
    () => rng.pick(NASTY_STRINGS),
    () => randomUUID(),
    () => w.workspaceId,
    () => w.userId,
    () => w.siteId,
    () => `${w.siteId}x`,
    () => w.siteId.toUpperCase(),
    () => 'x'.repeat(10_000),
    () => String(rng.pick([-1, 0, 1e21, 2 ** 63])),
  ])();
}

// ---------------------------------------------------------------------------------------------------
// One request

interface Request {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  mutations: string[];
}

const HEADER_GARBAGE = ['', 'x'.repeat(300), 'not-a-uuid', '00000000-0000-0000-0000-000000000000', "' OR 1=1", '%00'];

function makeRequest(op: Op, rng: Rng, w: World, schemas: Schemas): Request {
  const mutations: string[] = [];
  const hostile = rng.chance(0.7);
  // Path parameters: real ids of the fixture, sometimes garbage.
  let path = op.path;
  for (const p of op.params.filter((x) => x.in === 'path')) {
    let value = realParam(op, p.name, rng, w);
    if (hostile && rng.chance(0.3)) {
      value = garbageParam(rng, w);
      mutations.push(`path ${p.name}`);
    }
    path = path.replace(`{${p.name}}`, encodePart(value));
  }
  // Query parameters, as one object schema.
  const queryParams = op.params.filter((x) => x.in === 'query');
  const query: [string, string][] = [];
  if (queryParams.length) {
    const schema: Js = {
      type: 'object',
      properties: Object.fromEntries(queryParams.map((p) => [p.name, p.schema])),
      required: queryParams.filter((p) => p.required).map((p) => p.name),
    };
    let value = realistic(fromSchema(schema, rng) ?? {}, rng, w, schemas) as Record<string, unknown>;
    if (STATS_OP.test(op.path) && rng.chance(0.7)) value = coherentSpec(value, rng, 'query', setOf(op, path));
    if (hostile && rng.chance(0.7)) {
      const m = mutateObject(value, schema, rng);
      mutations.push(`query ${m.what}`);
      value = (m.value && typeof m.value === 'object' && !Array.isArray(m.value) ? m.value : { days: m.value }) as Record<
        string,
        unknown
      >;
    }
    for (const [k, v] of Object.entries(value)) for (const s of queryValues(v)) query.push([k, s]);
  }
  // The JSON body.
  let body: string | undefined;
  let contentType = 'application/json';
  if (op.body) {
    let value = realistic(fromSchema(op.body, rng) ?? {}, rng, w, schemas);
    if (STATS_OP.test(op.path) && op.path.endsWith('/query') && rng.chance(0.7)) {
      value = coherentSpec(value as Record<string, unknown>, rng, 'body');
    }
    if (hostile && rng.chance(0.75)) {
      const m = mutateObject((value ?? {}) as Record<string, unknown>, op.body, rng);
      mutations.push(`body ${m.what}`);
      value = m.value;
    }
    body = JSON.stringify(value);
    if (hostile && rng.chance(0.08)) {
      body = rng.pick(RAW_BODIES);
      mutations.push('raw body');
    }
    if (hostile && rng.chance(0.05)) {
      contentType = rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']);
      mutations.push(`content-type ${contentType}`);
    }
  } else if (op.method !== 'GET' && hostile && rng.chance(0.2)) {
    body = JSON.stringify(mutateObject({}, undefined, rng).value);
    mutations.push('body on a body-less operation');
  }
  if (hostile && op.method !== 'GET' && op.method !== 'DELETE' && rng.chance(0.05)) {
    query.push([rng.pick(['name', 'email', 'x']), 'y']);
    mutations.push('query on a body method');
  }
  // Credentials: a token with every scope, or the owner's session (person-only routes refuse tokens).
  const headers: Record<string, string> = {};
  const useCookie = op.auth === 'person' ? !(hostile && rng.chance(0.1)) : op.auth === 'any' && rng.chance(0.25);
  if (op.auth !== 'none') {
    if (useCookie) headers.cookie = w.cookie;
    else headers.authorization = `Bearer ${w.token}`;
    if (useCookie && rng.chance(0.5)) {
      const workspace = hostile && rng.chance(0.4) ? rng.pick([...HEADER_GARBAGE, ...NASTY_STRINGS.slice(0, 12)]) : w.workspaceId;
      // The workspace rides in X-Workspace or in ?workspace= (header values must be Latin-1 text).
      if (rng.chance(0.3) || !/^[\x20-\x7e]*$/.test(workspace)) query.push(['workspace', workspace]);
      else headers['x-workspace'] = workspace;
      if (workspace !== w.workspaceId) mutations.push('workspace');
    }
  }
  let method = op.method;
  if (hostile && rng.chance(0.03)) {
    method = rng.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'].filter((m) => m !== op.method));
    mutations.push(`method ${method}`);
    if (method === 'GET') body = undefined;
  }
  if (op.idempotent && rng.chance(0.3)) {
    headers['idempotency-key'] = hostile && rng.chance(0.5) ? rng.pick(HEADER_GARBAGE) : `fuzz-${rng.int(4)}`;
  }
  if (body !== undefined) headers['content-type'] = contentType;
  const qs = query.map(([k, v]) => `${encodePart(k)}=${encodePart(v)}`).join('&');
  return { method, url: `${path}${qs ? `?${qs}` : ''}`, headers, body, mutations };
}

/** What a request said, as a problem could echo it: the decoded address and the body. */
function sentText(req: Request): string {
  let url = req.url;
  try {
    url = decodeURIComponent(url);
  } catch {
    // A malformed escape (a hostile case): the address as sent.
  }
  return `${url}\n${req.body ?? ''}`;
}

async function send(req: Request): Promise<Answer> {
  const res = await fetch(`${t.url}${req.url}`, { method: req.method, headers: req.headers, body: req.body, redirect: 'manual' });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** Answers by operation and status, printed at the end (per operation with FUZZ_VERBOSE=1). */
const tally = new Map<string, Map<number, number>>();
/** A few refusal titles per operation, to see how deep the cases get (FUZZ_VERBOSE=1). */
const titles = new Map<string, Set<string>>();
function count(label: string, status: number, text = '') {
  const m = tally.get(label) ?? new Map<number, number>();
  m.set(status, (m.get(status) ?? 0) + 1);
  tally.set(label, m);
  const title = /"title":"([^"]{0,90})/.exec(text)?.[1];
  if (status >= 400 && title) {
    const set = titles.get(label) ?? new Set<string>();
    if (set.size < 6) set.add(`${status} ${title}`);
    titles.set(label, set);
  }
}

afterAll(() => {
  let all = 0;
  let ok = 0;
  for (const [label, m] of tally) {
    const line = [...m].sort(([a], [b]) => a - b).map(([st, n]) => `${st}×${n}`);
    for (const [st, n] of m) {
      all += n;
      if (st < 300) ok += n;
    }
    if (process.env.FUZZ_VERBOSE) {
      console.log(
        `[fuzz-openapi] ${label}: ${line.join(' ')}\n${[...(titles.get(label) ?? [])].map((x) => `    ${x}`).join('\n')}`,
      );
    }
  }
  console.log(`[fuzz-openapi] ${all} requests, ${ok} answered 2xx (seed ${SEED})`);
});

const cut = (s: string | undefined, n = 600) =>
  s === undefined ? '' : s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s;

function report(op: string, req: Request | { body: string }, answer: Answer, why: string): string {
  const r = req as Request;
  const headers = r.headers ? Object.keys(r.headers).filter((h) => h !== 'authorization' && h !== 'cookie') : [];
  return [
    `${op}: ${why}`,
    r.method ? `  request: ${r.method} ${cut(r.url, 300)}` : '',
    r.mutations ? `  mutations: ${r.mutations.join(', ') || '(none: generated as the schema says)'}` : '',
    headers.length ? `  headers: ${headers.map((h) => `${h}: ${cut(r.headers[h], 80)}`).join('; ')}` : '',
    `  body: ${cut(req.body)}`,
    `  answer: ${answer.status} ${answer.contentType} ${cut(answer.text)}`,
  ]
    .filter(Boolean)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------------
// Setup, at the top level: the operations must be known before the tests are declared

// The edge platform and DNS stand in locally, so proxy hostnames and verification run their real code.
const edge = await startEdgeStandIn();
const dns = await startDnsServer();
// Billing runs its real code against the Stripe stand-in (checkout, portal, plan changes, webhooks).
const stripe = await startStripeStandIn();
const t = await startTestServer({
  env: { ...edge.env, ...stripeEnv(stripe), DNS_SERVERS: dns.address, PROXY_CNAME_TARGET: 'proxy.unseen.test' },
});
stripe.webhookUrl = `${t.url}/v1/billing/webhook`;
const docRes = await fetch(`${t.url}/v1/openapi.json`);
const doc = (await docRes.json()) as { paths: Record<string, Record<string, Js>> };
const passwordHash = await hashPassword(GOOD_PASSWORD);
const catalogue = await (async () => {
  const w = await makeWorld(false);
  const res = await fetch(`${t.url}/v1/stats/catalogue`, { headers: { authorization: `Bearer ${w.token}` } });
  return (await res.json()) as {
    metricSets: Record<string, { dimensions: string[]; filters: string[]; counts: string[] }>;
    topDimensions: Record<string, string>;
  };
})();
const DIMENSIONS = [...new Set(Object.values(catalogue.metricSets).flatMap((m) => m.dimensions))];
const FILTERS = [...new Set(Object.values(catalogue.metricSets).flatMap((m) => m.filters))];
const COUNTS = [...new Set(Object.values(catalogue.metricSets).flatMap((m) => m.counts))];
const TOP_DIMENSIONS = Object.keys(catalogue.topDimensions);

afterAll(async () => {
  await t.close();
  await stripe.close();
  await edge.close();
  await dns.close();
});

const OPS: Op[] = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, o]): Op => {
    const security = (o.security ?? []) as Record<string, unknown>[];
    const params = (o.parameters ?? []) as Param[];
    return {
      method: method.toUpperCase(),
      path,
      label: `${method.toUpperCase()} ${path}`,
      params,
      body: (o.requestBody as { content?: Record<string, { schema?: Js }> } | undefined)?.content?.['application/json']?.schema,
      auth: security.length === 0 ? 'none' : security.some((s) => 'bearer' in s) ? 'any' : 'person',
      idempotent: params.some((p) => p.name === 'Idempotency-Key'),
      tool: o['x-mcp-tool'] as string | undefined,
    };
  }),
);

const toolsList = await (async () => {
  const w = await makeWorld(false);
  const res = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${w.token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/list',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: envelope() } }),
  });
  const body = (await res.json()) as { result: { tools: { name: string; inputSchema: Js }[] } };
  return body.result.tools;
})();

// ---------------------------------------------------------------------------------------------------
// The runs

const schemas: Schemas = {
  statsSpec: OPS.find((o) => o.path === '/v1/sites/{id}/stats/query')?.body,
};

// Each operation has a workspace of its own, so operations run side by side (waiting on the database overlaps).
describe.concurrent(`every operation of /v1/openapi.json under fuzzing (seed ${SEED})`, () => {
  it('the document lists operations', () => {
    expect(OPS.length).toBeGreaterThan(40);
  });

  for (const op of OPS) {
    it(op.label, async ({ expect }) => {
      const rng = new Rng(SEED ^ hash32(op.label));
      const analytics = ANALYTICS.test(op.path);
      const plan: Plan = rng.chance(0.25) ? 'Free' : 'Business';
      let world = await makeWorld(analytics, plan);
      const failures: string[] = [];
      for (let i = 0; i < RUNS; i++) {
        const req = makeRequest(op, rng, world, schemas);
        const answer = await send(req);
        count(op.label, answer.status, answer.text);
        const why = judge(answer, sentText(req));
        if (why) failures.push(report(`${op.label} (case ${i})`, req, answer, why));
        if (destructive(op) && answer.status < 300 && i < RUNS - 1) world = await makeWorld(analytics, plan);
      }
      if (failures.length) console.error(failures.join('\n\n'));
      expect(failures, failures[0]).toEqual([]);
    });
  }
});

// ---------------------------------------------------------------------------------------------------
// MCP tools/call

const toolOps = new Map(OPS.filter((o) => o.tool).map((o) => [o.tool as string, o]));

async function mcp(token: string, body: unknown, name: string): Promise<Answer> {
  const res = await fetch(`${t.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** Nesting depth of a JSON value, counted up to `cap`. */
function depthOf(value: unknown, cap = 64): number {
  if (cap === 0 || value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((m, c) => Math.max(m, depthOf(c, cap - 1)), 0);
}

/**
 * What is wrong with a tools/call answer: it must be a result, a failure an isError result carrying a
 * problem under 500. Only the protocol layer may refuse arguments that are not an object at all
 * (-32602, MCP requires an object) and messages nested past MAX_MESSAGE_DEPTH (-32600, HTTP 400).
 */
function judgeTool(answer: Answer, args: unknown): string | undefined {
  const sent = JSON.stringify(args) ?? '';
  let body: { result?: { isError?: boolean; content?: { text?: string }[]; structuredContent?: Js }; error?: unknown };
  try {
    body = JSON.parse(answer.text);
  } catch {
    return judge(answer, sent) ?? 'answer is not JSON';
  }
  const code = (body.error as { code?: number } | undefined)?.code;
  const notObject = typeof args !== 'object' || args === null || Array.isArray(args);
  if (code === -32602 && notObject && answer.status === 200) return undefined;
  if (code === -32600 && answer.status === 400 && depthOf(args) + 3 > MAX_MESSAGE_DEPTH) return undefined;
  if (answer.status !== 200) return judge(answer, sent) ?? `HTTP ${answer.status} to a tools/call`;
  if (!body.result) return `JSON-RPC error instead of a tool result: ${JSON.stringify(body.error)}`;
  if (!body.result.isError) return judge(answer, sent);
  const problem = body.result.structuredContent ?? {};
  const status = Number(problem.status);
  if (!(status >= 400 && status < 500)) return `isError result with status ${String(problem.status)}`;
  const text = body.result.content?.[0]?.text ?? '';
  if (!text.trim() || typeof problem.title !== 'string' || !problem.title.trim()) return 'isError result without a title';
  if (status === 400 && (typeof problem.field !== 'string' || !problem.field)) return 'problem 400 without a field';
  return judge({ status, contentType: 'application/problem+json', text: JSON.stringify(problem) }, sent);
}

describe.concurrent(`every MCP tool under fuzzing (seed ${SEED})`, () => {
  it('tools/list lists tools', () => {
    expect(toolsList.length).toBeGreaterThan(30);
  });

  for (const tool of toolsList) {
    it(tool.name, async ({ expect }) => {
      const rng = new Rng(SEED ^ hash32(`mcp ${tool.name}`));
      const op = toolOps.get(tool.name);
      const analytics = op ? ANALYTICS.test(op.path) : false;
      const plan: Plan = rng.chance(0.25) ? 'Free' : 'Business';
      let world = await makeWorld(analytics, plan);
      const failures: string[] = [];
      for (let i = 0; i < MCP_RUNS; i++) {
        let args = realistic(fromSchema(tool.inputSchema, rng) ?? {}, rng, world, schemas) as Record<string, unknown>;
        for (const p of op?.params.filter((x) => x.in === 'path') ?? []) args[p.name] = realParam(op as Op, p.name, rng, world);
        if (op && STATS_OP.test(op.path) && !op.path.endsWith('/batch') && rng.chance(0.7)) {
          const style = op.method === 'GET' ? 'query' : 'body';
          args = coherentSpec(args, rng, style, setOf(op, `/top/${String(args.dimension ?? '')}`));
        }
        let what = '(none)';
        if (rng.chance(0.7)) {
          const m = mutateObject(args, tool.inputSchema, rng);
          args = m.value as Record<string, unknown>;
          what = m.what;
        }
        const body = {
          jsonrpc: '2.0',
          id: i + 1,
          method: 'tools/call',
          params: { name: tool.name, arguments: args, _meta: envelope() },
        };
        const answer = await mcp(world.token, body, tool.name);
        count(
          `MCP ${tool.name}`,
          /"isError":true/.test(answer.text) ? Number(/"status":(\d+)/.exec(answer.text)?.[1] ?? 0) : answer.status,
        );
        const why = judgeTool(answer, args);
        const text = JSON.stringify(body);
        if (why) failures.push(report(`MCP ${tool.name} (case ${i}, mutation ${what})`, { body: text }, answer, why));
        const ok = answer.status === 200 && !/"isError":true/.test(answer.text);
        if (op && destructive(op) && ok && i < MCP_RUNS - 1) world = await makeWorld(analytics, plan);
      }
      if (failures.length) console.error(failures.join('\n\n'));
      expect(failures, failures[0]).toEqual([]);
    });
  }
});
