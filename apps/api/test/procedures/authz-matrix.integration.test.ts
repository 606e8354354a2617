/**
 * Authorization matrix (spec §5 and §7), generated from the router's meta: every REST operation that
 * needs credentials, called by every kind of caller. Nothing lists routes by hand, so operations are
 * covered as they land. Expectations per caller:
 * - no, unknown credentials → 401 (with WWW-Authenticate for a missing or unknown bearer);
 * - person-only operations refuse tokens → 403;
 * - a missing scope (role or token) → 403 whose title names the scope;
 * - no-restricted operations refuse site-restricted tokens → 403;
 * - `/v1/sites/{id}` routes: another workspace's owner and a token restricted to another site → 404,
 *   as do other workspace's tokens, invites, members and sessions;
 * - everyone else is allowed: neither 401 nor 403 (400 for the empty body, or 404 for a made-up
 *   sub-resource, are fine), and finds the site when the route names only the site (a 404 about a
 *   part of the site, such as a search source not connected, is not a missing site).
 */
import { randomUUID } from 'node:crypto';
import { ROLE_SCOPES, SCOPES, type Scope } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations } from '../../src/procedures/registry.ts';
import { appRouter } from '../../src/router.ts';
import {
  type Caller,
  type Credential,
  casesOf,
  createMatrixFixtures,
  fillPath,
  type MatrixCase,
  type MatrixFixtures,
  type MatrixOp,
  madeUpParam,
  matrixOps,
  type Outcome,
  send,
  validBody,
} from '../support/authz-fixtures.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { type StripeStandIn, startStripeStandIn, stripeEnv } from '../support/stripe-standin.ts';

const allOps = listOperations(appRouter);
const OPS = matrixOps(allOps);
/** Counted independently of `matrixOps`: REST operations whose meta asks for credentials. */
const AUTHENTICATED_REST_OPS = allOps.filter(
  (op) => op.meta.openapi && op.meta.openapi.enabled !== false && op.meta.auth !== 'none' && op.meta.auth !== 'optional',
).length;

interface Result {
  outcome: Outcome;
  /** The same request with every real id swapped for a made-up one (cases expecting 404 only). */
  reference?: Outcome;
  sent: string;
}

/** What every case answered, by operation then caller; read by the summary checks at the end. */
const observed = new Map<string, Map<string, Result>>();
/** 404 cases answered 400 exactly as for a made-up id (the body was refused before the lookup). */
const refusedBeforeLookup: string[] = [];

function heldScopes(caller: Caller): readonly Scope[] {
  const k = caller.kind;
  if (k.type === 'person') return ROLE_SCOPES[k.role];
  if (k.type === 'token') return k.scopes;
  if (k.type === 'foreign-owner') return ROLE_SCOPES.owner;
  return [];
}

async function credentialOf(fx: MatrixFixtures, caller: Caller, site: string): Promise<Credential> {
  const k = caller.kind;
  switch (k.type) {
    case 'anonymous':
      return {};
    case 'unknown-token':
      return { bearer: `us_${randomUUID().replace(/-/g, '')}` };
    case 'unknown-session':
      return { cookie: `us_session=${randomUUID().replace(/-/g, '')}` };
    case 'person':
      return fx.people[k.role];
    case 'foreign-owner':
      return fx.foreignOwner;
    case 'token': {
      const siteIds = k.restricted === 'own' ? [site] : k.restricted === 'other' ? [fx.siteA2] : null;
      return fx.token(k.scopes, siteIds);
    }
  }
}

/** Every caller of one operation, in parallel; callers that change a site get a throwaway one each. */
async function runOp(t: TestServer, fx: MatrixFixtures, mop: MatrixOp, cases: MatrixCase[]): Promise<Map<string, Result>> {
  const sites = mop.freshSites ? await fx.freshSites(cases.length) : cases.map(() => fx.siteA);
  const results = await Promise.all(
    cases.map(async (c, i): Promise<[string, Result]> => {
      const site = sites[i] as string;
      const cred = await credentialOf(fx, c.caller, site);
      const aimed = c.expect.status === 404;
      const params: Record<string, string> = {};
      const madeUp: Record<string, string> = {};
      for (const name of mop.params) {
        madeUp[name] = madeUpParam(name);
        const foreign = mop.foreignTargets[name];
        if (mop.siteRoute && name === 'id') {
          params[name] = site;
          madeUp[name] = randomUUID();
        } else if (aimed && foreign) params[name] = fx.foreign[foreign];
        else if (aimed && fx.realSub[name]) params[name] = fx.realSub[name] as string;
        else params[name] = madeUp[name] as string;
      }
      const body = mop.method === 'GET' ? undefined : aimed ? validBody(mop, params) : {};
      const path = fillPath(mop.path, params);
      const [outcome, reference] = await Promise.all([
        send(t, mop.method, path, cred, body),
        aimed ? send(t, mop.method, fillPath(mop.path, madeUp), cred, body) : undefined,
      ]);
      const sent = `${mop.method} ${path}${body === undefined ? '' : ` ${JSON.stringify(body)}`}`;
      return [c.caller.key, reference ? { outcome, reference, sent } : { outcome, sent }];
    }),
  );
  return new Map(results);
}

function describeAnswer(r: Result): string {
  return `${r.sent} answered ${r.outcome.status}: ${r.outcome.text}`;
}

function expectProblemJson(o: Outcome, r: Result) {
  expect(o.contentType, `not problem+json: ${describeAnswer(r)}`).toMatch(/^application\/problem\+json/);
}

function check(c: MatrixCase, r: Result) {
  const o = r.outcome;
  const what = `${c.title}: ${describeAnswer(r)}`;
  const exp = c.expect;
  if (exp.status === 401) {
    expect(o.status, `RULE VIOLATION (expected 401) — ${what}`).toBe(401);
    expectProblemJson(o, r);
    expect(o.code, what).toBe('unauthenticated');
    if (c.caller.kind.type !== 'unknown-session') {
      expect(o.wwwAuthenticate, `401 without WWW-Authenticate — ${what}`).toBeTruthy();
    }
    return;
  }
  if (exp.status === 403) {
    expect(o.status, `RULE VIOLATION (expected 403) — ${what}`).toBe(403);
    expectProblemJson(o, r);
    if (exp.scope) expect(o.title ?? '', `403 title must name ${exp.scope} — ${what}`).toContain(exp.scope);
    // A missing scope is told apart from a caller of the wrong kind, so a client knows whether a scope helps.
    expect(o.code, what).toBe(exp.scope ? 'scope-missing' : 'forbidden');
    return;
  }
  if (exp.status === 404) {
    const ref = r.reference;
    if (o.status === 400 && ref?.status === 400 && o.field === ref.field) {
      // Validation refused the body before any lookup, exactly as for an unknown id: nothing leaks.
      refusedBeforeLookup.push(c.title);
      return;
    }
    expect(
      o.status,
      `RULE VIOLATION: cross-workspace / outside-restriction must be 404 (never 403 or 2xx) — ${what}` +
        (ref ? ` (a made-up id answered ${ref.status}${ref.field ? ` field ${ref.field}` : ''})` : ''),
    ).toBe(404);
    expectProblemJson(o, r);
    expect(o.code, what).toBe('not-found');
    return;
  }
  // Allowed: the meta's rules let this caller through.
  expect(o.status, `RULE VIOLATION: allowed caller got 401 — ${what}`).not.toBe(401);
  expect(o.status, `server error — ${what}`).toBeLessThan(500);
  if (o.status === 403) {
    // A service may check a scope the meta cannot state (e.g. removing someone else needs members:write);
    // that refusal is right only if it names a scope this caller really lacks.
    const named = /Missing scope ([a-z]+:[a-z]+)/.exec(o.title ?? '')?.[1] as Scope | undefined;
    const justified = named !== undefined && SCOPES.includes(named) && !heldScopes(c.caller).includes(named);
    expect(justified, `RULE VIOLATION: allowed caller got 403 — ${what}`).toBe(true);
    expect(o.code, what).toBe('scope-missing');
    return;
  }
  // The site must be found; a 404 about something of the site (a search source not connected) is fine.
  if (exp.siteItself && o.status === 404) {
    expect(o.title ?? '', `RULE VIOLATION: allowed caller did not find its own site — ${what}`).not.toMatch(/^No such site\b/);
  }
}

describe('authorization matrix (generated from the router meta)', () => {
  let t: TestServer;
  let fx: MatrixFixtures;
  let stripe: StripeStandIn;
  beforeAll(async () => {
    // Billing changes reach the Stripe stand-in, so an allowed caller gets a real answer, not "not configured".
    stripe = await startStripeStandIn();
    t = await startTestServer({ env: stripeEnv(stripe) });
    fx = await createMatrixFixtures(t);
  });
  afterAll(async () => {
    await t?.close();
    await stripe?.close();
  });

  it(`finds authenticated REST operations to cover (${OPS.length})`, () => {
    expect(AUTHENTICATED_REST_OPS).toBeGreaterThan(0);
    expect(OPS.length).toBe(AUTHENTICATED_REST_OPS);
  });

  describe.each(OPS)('$label', (mop) => {
    const cases = casesOf(mop);
    let results: Map<string, Result>;
    beforeAll(async () => {
      results = await runOp(t, fx, mop, cases);
      observed.set(mop.label, results);
    });

    it.each(cases)('$title', (c) => {
      const r = results.get(c.caller.key);
      if (!r) throw new Error(`no answer recorded for ${c.title}`);
      check(c, r);
    });
  });

  describe('matrix summary', () => {
    it(`covered every authenticated REST operation (N = ${AUTHENTICATED_REST_OPS})`, () => {
      expect(observed.size).toBeGreaterThanOrEqual(AUTHENTICATED_REST_OPS);
      for (const mop of OPS) expect(observed.has(mop.label), `${mop.label} was not exercised`).toBe(true);
    });

    it('every person-only operation refuses every token with 403', () => {
      const personOnly = OPS.filter((mop) => mop.op.meta.auth === 'person');
      expect(personOnly.length).toBeGreaterThan(0);
      for (const mop of personOnly) {
        const answers = observed.get(mop.label);
        const tokenCallers = casesOf(mop).filter((c) => c.caller.kind.type === 'token');
        expect(tokenCallers.length).toBeGreaterThan(0);
        for (const c of tokenCallers) {
          const r = answers?.get(c.caller.key);
          expect(r?.outcome.status, `RULE VIOLATION: ${mop.label} accepted ${c.caller.label} (${r?.outcome.text})`).toBe(403);
        }
      }
    });

    it('the 404 rule was reached, not pre-empted by validation', () => {
      const aimed = OPS.flatMap((mop) => casesOf(mop).filter((c) => c.expect.status === 404));
      if (OPS.some((mop) => mop.siteRoute)) expect(aimed.length).toBeGreaterThan(0);
      // A 400 matching the made-up-id answer leaks nothing, but then the lookup itself went untested.
      if (refusedBeforeLookup.length)
        console.info(`404 checks answered by validation first:\n  ${refusedBeforeLookup.join('\n  ')}`);
      expect(refusedBeforeLookup.length).toBeLessThan(Math.max(aimed.length, 1));
    });
  });
});
