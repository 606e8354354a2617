/**
 * The authorization matrix, generated from the router's meta (spec §5 and §7): which callers an
 * operation must refuse and how, the fixtures the callers need, and the requests themselves.
 * Nothing here lists routes: every REST operation that needs credentials is covered as it lands.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Invite, Membership, Session, SiteHostname, SiteKey, User, type Workspace } from '@us/db';
import { ROLE_SCOPES, type Role, SCOPES, type Scope } from '@us/shared';
import type { Response } from 'supertest';
import { z } from 'zod';
import { hashPassword } from '../../src/core/security/passwords.ts';
import { scopesOf } from '../../src/procedures/meta.ts';
import type { Operation } from '../../src/procedures/registry.ts';
import { createToken, createUser, GOOD_PASSWORD, signIn, type TestServer, uniqueEmail } from './server.ts';
import { createSite } from './sites.ts';

// ---------------------------------------------------------------------------------------------------
// Operations

/** One authenticated REST operation, with what the matrix needs to know about its route. */
export interface MatrixOp {
  op: Operation;
  method: string;
  path: string;
  /** `GET /v1/sites/{id}`: the operation's identity in test names. */
  label: string;
  params: string[];
  /** The path is `/v1/sites/{id}` or below it: the site is loaded with the caller's rights. */
  siteRoute: boolean;
  /** A site route whose only parameter is the site: an allowed caller must find it (never 404). */
  siteItself: boolean;
  /** A site route that changes the site itself: every caller gets a throwaway site of its own. */
  freshSites: boolean;
  /** Parameters the workspace-B owner fills with a real resource of workspace A (it must get 404). */
  foreignTargets: Partial<Record<string, ForeignKind>>;
}

type ForeignKind = 'token' | 'invite' | 'member' | 'session';

/** Non-site routes whose parameter names a resource of a workspace (or of a person): kind by path. */
const FOREIGN_TARGETS: { pattern: RegExp; param: string; kind: ForeignKind }[] = [
  { pattern: /^\/v1\/tokens\/\{id\}/, param: 'id', kind: 'token' },
  { pattern: /^\/v1\/members\/invites\/\{id\}/, param: 'id', kind: 'invite' },
  { pattern: /^\/v1\/members\/\{userId\}/, param: 'userId', kind: 'member' },
  { pattern: /^\/v1\/auth\/sessions\/\{id\}/, param: 'id', kind: 'session' },
];

/** Every REST operation that needs credentials (auth person or any), in declaration order. */
export function matrixOps(ops: Operation[]): MatrixOp[] {
  return ops.flatMap((op) => {
    const oa = op.meta.openapi;
    if (!oa || oa.enabled === false) return [];
    if (op.meta.auth !== 'person' && op.meta.auth !== 'any') return [];
    const method = oa.method.toUpperCase();
    const path = oa.path;
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
    const siteRoute = /^\/v1\/sites\/\{id\}(\/|$)/.test(path);
    const siteItself = siteRoute && params.length === 1;
    const foreignTargets: MatrixOp['foreignTargets'] = {};
    if (!siteRoute) {
      for (const f of FOREIGN_TARGETS) if (f.pattern.test(path) && params.includes(f.param)) foreignTargets[f.param] = f.kind;
    }
    return [
      {
        op,
        method,
        path,
        label: `${method} ${path}`,
        params,
        siteRoute,
        siteItself,
        freshSites: siteItself && method !== 'GET' && method !== 'HEAD',
        foreignTargets,
      },
    ];
  });
}

// ---------------------------------------------------------------------------------------------------
// Callers and what each must get

export type CallerKind =
  | { type: 'anonymous' }
  | { type: 'unknown-token' }
  | { type: 'unknown-session' }
  | { type: 'person'; role: Role }
  | { type: 'token'; scopes: Scope[]; restricted: null | 'own' | 'other' }
  | { type: 'foreign-owner' };

export interface Caller {
  key: string;
  label: string;
  kind: CallerKind;
}

export type Expectation =
  | { status: 401; label: string }
  | { status: 403; label: string; scope?: Scope }
  | { status: 404; label: string }
  | { status: 'allowed'; label: string; siteItself: boolean };

export interface MatrixCase {
  /** `DELETE /v1/sites/{id} · viewer → 403 (missing sites:write)` */
  title: string;
  mop: MatrixOp;
  caller: Caller;
  expect: Expectation;
}

/** The scope a "token with the op's scope" holds when the operation declares none. */
export const UNRELATED_SCOPE: Scope = 'export:read';
const ALL: Scope[] = [...SCOPES];

/** The callers of one operation. */
export function callersOf(mop: MatrixOp): Caller[] {
  const declared = scopesOf(mop.op.meta);
  const scopes: readonly Scope[] = declared.length ? declared : [UNRELATED_SCOPE];
  const named = scopes.join(', ');
  const callers: Caller[] = [
    { key: 'anonymous', label: 'no credentials', kind: { type: 'anonymous' } },
    { key: 'unknown-token', label: 'unknown token', kind: { type: 'unknown-token' } },
    { key: 'unknown-session', label: 'unknown session cookie', kind: { type: 'unknown-session' } },
    ...(['owner', 'admin', 'member', 'viewer'] as const).map(
      (role): Caller => ({ key: role, label: role, kind: { type: 'person', role } }),
    ),
    { key: 'token-with', label: `token [${named}]`, kind: { type: 'token', scopes: [...scopes], restricted: null } },
    {
      key: 'token-without',
      label: `token [every scope but ${named}]`,
      kind: { type: 'token', scopes: ALL.filter((s) => !scopes.includes(s)), restricted: null },
    },
    {
      key: 'token-restricted',
      label: mop.siteRoute ? 'token restricted to this site' : 'site-restricted token',
      kind: { type: 'token', scopes: ALL, restricted: 'own' },
    },
  ];
  if (mop.siteRoute) {
    callers.push({
      key: 'token-other-site',
      label: 'token restricted to another site',
      kind: { type: 'token', scopes: ALL, restricted: 'other' },
    });
  }
  callers.push({ key: 'foreign-owner', label: 'workspace-B owner', kind: { type: 'foreign-owner' } });
  return callers;
}

/** What the spec says this caller gets from this operation (spec §5 item 2, §7). */
export function expectationOf(mop: MatrixOp, caller: Caller): Expectation {
  const { auth, noRestricted } = mop.op.meta;
  const scopes = scopesOf(mop.op.meta);
  const allowed: Expectation = {
    status: 'allowed',
    label: mop.siteItself ? 'allowed (finds the site)' : 'allowed',
    siteItself: mop.siteItself,
  };
  const k = caller.kind;
  switch (k.type) {
    case 'anonymous':
    case 'unknown-token':
    case 'unknown-session':
      return { status: 401, label: '401' };
    case 'person': {
      const scope = scopes.find((s) => !ROLE_SCOPES[k.role].includes(s));
      if (scope) return { status: 403, label: `403 (missing ${scope})`, scope };
      return allowed;
    }
    case 'foreign-owner':
      if (mop.siteRoute || Object.keys(mop.foreignTargets).length > 0) return { status: 404, label: '404 (other workspace)' };
      return allowed;
    case 'token': {
      if (auth === 'person') return { status: 403, label: '403 (person-only)' };
      const scope = scopes.find((s) => !k.scopes.includes(s));
      if (scope) return { status: 403, label: `403 (missing ${scope})`, scope };
      if (noRestricted && k.restricted) return { status: 403, label: '403 (no-restricted)' };
      if (k.restricted === 'other') return { status: 404, label: '404 (outside the restriction)' };
      return allowed;
    }
  }
}

export function casesOf(mop: MatrixOp): MatrixCase[] {
  return callersOf(mop).map((caller) => {
    const expect = expectationOf(mop, caller);
    return { title: `${mop.label} · ${caller.label} → ${expect.label}`, mop, caller, expect };
  });
}

// ---------------------------------------------------------------------------------------------------
// Request bodies

/**
 * Callers expected to get 404 send a body the input schema accepts (when one can be made), so the
 * answer comes from the lookup and not from validation. Everybody else sends `{}`.
 */
export function validBody(mop: MatrixOp, params: Record<string, string>): Record<string, unknown> {
  const schema = mop.op.input;
  if (!schema || mop.method === 'GET') return {};
  const accepts = (body: Record<string, unknown>) => schema.safeParse({ ...body, ...params }).success;
  let sample: Record<string, unknown> = {};
  try {
    const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Js;
    const s = sampleOf(js, '', 0);
    if (s && typeof s === 'object' && !Array.isArray(s)) sample = s as Record<string, unknown>;
  } catch {
    // A schema JSON Schema cannot express: fall back to `{}`.
  }
  const body = Object.fromEntries(Object.entries(sample).filter(([k]) => !mop.params.includes(k)));
  if (accepts(body) || !accepts({})) return body;
  return {};
}

type Js = Record<string, unknown>;

function sampleOf(s: Js, name: string, index: number): unknown {
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  const alts = (s.anyOf ?? s.oneOf) as Js[] | undefined;
  if (Array.isArray(alts) && alts.length) {
    return sampleOf(alts.find((a) => a.type !== 'null') ?? (alts[0] as Js), name, index);
  }
  if (Array.isArray(s.allOf)) return sampleOf(Object.assign({}, ...(s.allOf as Js[])), name, index);
  const type = Array.isArray(s.type) ? (s.type as string[]).find((x) => x !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Js>;
      const out: Record<string, unknown> = {};
      for (const key of (s.required ?? []) as string[]) out[key] = sampleOf(props[key] ?? {}, key, 0);
      return out;
    }
    case 'array': {
      const n = typeof s.minItems === 'number' ? s.minItems : 0;
      return Array.from({ length: n }, (_, i) => sampleOf((s.items ?? {}) as Js, name, i));
    }
    case 'integer':
    case 'number':
      if (typeof s.minimum === 'number') return s.minimum;
      if (typeof s.exclusiveMinimum === 'number') return s.exclusiveMinimum + 1;
      return 1;
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return sampleString(s, name, index);
  }
}

function sampleString(s: Js, name: string, index: number): string {
  const suffix = index ? `-${index}` : '';
  const format = s.format as string | undefined;
  const candidates: string[] = [];
  if (format === 'email' || /e-?mail/i.test(name)) candidates.push(`authz-matrix${suffix}@example.test`);
  if (format === 'uuid' || /(^id|Id|Ids)$/.test(name)) candidates.push(randomUUID());
  if (format === 'date-time') candidates.push(new Date(Date.now() + 30 * 86_400_000).toISOString());
  if (format === 'date') candidates.push('2030-01-01');
  if (format === 'uri' || format === 'url' || /url|origin/i.test(name))
    candidates.push(`https://authz-matrix${suffix}.example.com`);
  if (/host/i.test(name)) candidates.push(`authz-matrix${suffix}.example.com`);
  if (/timezone|^tz$/i.test(name)) candidates.push('UTC');
  if (/cidr|network/i.test(name)) candidates.push(`10.${index}.0.0/16`);
  if (/code/i.test(name)) candidates.push('123456');
  if (/password/i.test(name)) candidates.push(`authz-matrix-${GOOD_PASSWORD}`);
  candidates.push(`authz-matrix${suffix}`, `authz${index || ''}`, `a${suffix}`, '123456');
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const max = typeof s.maxLength === 'number' ? s.maxLength : Number.POSITIVE_INFINITY;
  const pattern = typeof s.pattern === 'string' ? safeRegExp(s.pattern) : null;
  const fits = (c: string) => c.length >= min && c.length <= max && (!pattern || pattern.test(c));
  const found = candidates.find(fits);
  if (found) return found;
  const padded = (candidates[0] as string).padEnd(min, 'x').slice(0, Math.min(max, Math.max(min, 1)));
  return padded;
}

function safeRegExp(source: string): RegExp | null {
  try {
    return new RegExp(source, 'u');
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------------
// Fixtures

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const lowerAlnum = (n: number) => Array.from(randomBytes(n), (b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');

export interface Credential {
  cookie?: string;
  bearer?: string;
}

export interface MatrixFixtures {
  workspaceA: Workspace;
  ownerA: { id: string };
  siteA: string;
  siteA2: string;
  /** Real sub-resources of siteA, for the callers that must not reach them. */
  realSub: Record<string, string>;
  people: Record<Role, Credential>;
  foreignOwner: Credential;
  /** Real resources of workspace A for the workspace-B owner to aim at. */
  foreign: Record<ForeignKind, string>;
  /** A token of workspace A made by its owner (memoized by scopes and restriction). */
  token(scopes: Scope[], siteIds: string[] | null): Promise<Credential>;
  /** Throwaway sites of workspace A. */
  freshSites(n: number): Promise<string[]>;
}

/** Workspace A (owner, admin, member, viewer; siteA, siteA2) and workspace B (its owner), signed in. */
export async function createMatrixFixtures(t: TestServer): Promise<MatrixFixtures> {
  const owner = await createUser(t.deps, { workspaceName: 'Authz A' });
  const foreignUser = await createUser(t.deps, { workspaceName: 'Authz B' });
  const em = t.deps.orm.em.fork();
  const workspaceA = owner.workspace;
  const passwordHash = await hashPassword(GOOD_PASSWORD);

  // The other people of A belong to A only, so A is the workspace they act in without X-Workspace.
  const others = (['admin', 'member', 'viewer'] as const).map((role) => {
    const email = uniqueEmail(`authz-${role}`);
    const user = em.create(User, { email, passwordHash, emailVerifiedAt: new Date() });
    em.create(Membership, { workspace: workspaceA.id, user, role });
    return { role, email };
  });
  // A member of A for the workspace-B owner to aim at, with a session and an invite beside it.
  const target = em.create(User, { email: uniqueEmail('authz-target'), passwordHash, emailVerifiedAt: new Date() });
  em.create(Membership, { workspace: workspaceA.id, user: target, role: 'viewer' });
  const targetSession = em.create(Session, {
    user: target,
    tokenHash: sha256(randomUUID()),
    expiresAt: new Date(Date.now() + 86_400_000),
    network: null,
    device: null,
  });
  const invite = em.create(Invite, {
    workspace: workspaceA.id,
    email: uniqueEmail('authz-invitee'),
    role: 'viewer',
    tokenHash: sha256(randomUUID()),
    invitedBy: owner.user.id,
    expiresAt: new Date(Date.now() + 7 * 86_400_000),
  });
  const { site: siteA } = await createSite(em, { workspace: workspaceA.id, name: 'Authz site A' });
  const { site: siteA2 } = await createSite(em, { workspace: workspaceA.id, name: 'Authz site A2' });
  const secret = `sk_live_${randomBytes(24).toString('base64url').replace(/[-_]/g, 'x').slice(0, 32)}`;
  const realKey = em.create(SiteKey, {
    site: siteA,
    kind: 'secret',
    publicValue: null,
    secretHash: sha256(secret),
    prefix: secret.slice(0, 12),
  });
  const realHostname = `authz-${lowerAlnum(8)}.example.com`;
  em.create(SiteHostname, { site: siteA, hostname: realHostname, verifyToken: lowerAlnum(32) });
  await em.flush();

  const [ownerCookie, foreignCookie, ...otherCookies] = await Promise.all([
    signIn(t, owner.email),
    signIn(t, foreignUser.email),
    ...others.map((o) => signIn(t, o.email)),
  ]);
  const people = { owner: { cookie: ownerCookie } } as Record<Role, Credential>;
  others.forEach((o, i) => {
    people[o.role] = { cookie: otherCookies[i] as string };
  });

  const tokens = new Map<string, Promise<Credential>>();
  const token = (scopes: Scope[], siteIds: string[] | null) => {
    const key = `${[...scopes].sort().join(',')}|${siteIds?.join(',') ?? '*'}`;
    let p = tokens.get(key);
    if (!p) {
      p = createToken(t.deps, { userId: owner.user.id, workspaceId: workspaceA.id, scopes, siteIds }).then((r) => ({
        bearer: r.token,
      }));
      tokens.set(key, p);
    }
    return p;
  };
  const targetToken = await createToken(t.deps, {
    userId: owner.user.id,
    workspaceId: workspaceA.id,
    scopes: ['sites:read'],
    name: 'authz target',
  });

  return {
    workspaceA,
    ownerA: { id: owner.user.id },
    siteA: siteA.id,
    siteA2: siteA2.id,
    realSub: { keyId: realKey.id, hostname: realHostname },
    people,
    foreignOwner: { cookie: foreignCookie },
    foreign: { token: targetToken.id, invite: invite.id, member: target.id, session: targetSession.id },
    token,
    async freshSites(n: number) {
      const fem = t.deps.orm.em.fork();
      const ids: string[] = [];
      for (let i = 0; i < n; i++)
        ids.push((await createSite(fem, { workspace: workspaceA.id, name: `Authz throwaway ${i + 1}` })).siteId);
      return ids;
    },
  };
}

/** A value for a parameter that names nothing (a sub-resource that does not exist). */
export function madeUpParam(name: string): string {
  if (name === 'hostname') return `authz-missing-${lowerAlnum(6)}.example.com`;
  if (name === 'goal' || name === 'key') return `authz-missing-${lowerAlnum(6)}`;
  if (/id$/i.test(name)) return randomUUID();
  return `authz-missing-${lowerAlnum(6)}`;
}

// ---------------------------------------------------------------------------------------------------
// Requests

export interface Outcome {
  status: number;
  title: string | undefined;
  code: string | undefined;
  field: string | undefined;
  contentType: string;
  wwwAuthenticate: string | undefined;
  text: string;
}

export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

export async function send(
  t: TestServer,
  method: string,
  path: string,
  cred: Credential,
  body: Record<string, unknown> | undefined,
): Promise<Outcome> {
  const m = method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  let req = t.request[m](path);
  if (cred.cookie) req = req.set('Cookie', cred.cookie);
  if (cred.bearer) req = req.set('Authorization', `Bearer ${cred.bearer}`);
  const res: Response = await (body === undefined ? req : req.send(body));
  let parsed: { title?: unknown; code?: unknown; field?: unknown } = {};
  try {
    parsed = JSON.parse(res.text || '{}');
  } catch {
    // not JSON: the assertions report the text
  }
  return {
    status: res.status,
    title: typeof parsed.title === 'string' ? parsed.title : undefined,
    code: typeof parsed.code === 'string' ? parsed.code : undefined,
    field: typeof parsed.field === 'string' ? parsed.field : undefined,
    contentType: String(res.headers['content-type'] ?? ''),
    wwwAuthenticate: res.headers['www-authenticate'] as string | undefined,
    text: res.text.slice(0, 500),
  };
}
