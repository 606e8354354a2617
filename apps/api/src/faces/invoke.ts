import { LIMITS } from '@us/shared';
import { AppError, tooMany } from '../core/errors.ts';
import { authorize } from '../procedures/authorize.ts';
import { procedureCaller } from '../procedures/call-procedure.ts';
import type { Ctx } from '../procedures/context.ts';
import { refuseDeepInput } from '../procedures/input-guard.ts';
import type { Operation } from '../procedures/registry.ts';
import { appRouter } from '../router.ts';
import { IdempotencyClaim } from './idempotency-claim.ts';

const callProcedure = procedureCaller(appRouter);

export interface Invocation {
  data: unknown;
  /** True when the answer is the stored answer of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

interface IdempotencyRecord {
  fp: string;
  state: 'pending' | 'done';
  sealed?: string;
}

/** JSON with object keys sorted, so the same request with its fields in another order is the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** Calls the operation in-process with every middleware (what the REST and MCP faces do). */
function call(op: Operation, ctx: Ctx, input: unknown): Promise<unknown> {
  return callProcedure(op.path, ctx, input);
}

export function checkIdempotencyKey(key: string, field: string) {
  if (key.length < LIMITS.idempotencyKey.min || key.length > LIMITS.idempotencyKey.max) {
    throw new AppError(400, `Use an ${field} of 1 to 255 characters`, { field });
  }
}

/**
 * Counts a new idempotency key against its caller's 24 hours in the workspace (each keeps its answer that long in the
 * hot store, which a loop of new keys grew without bound); past LIMITS.idempotencyKeysPerDay, 429 (the caller gives
 * the key back). Per caller: counted per workspace, one member's loop of keys left everyone else's keyed writes 429.
 * Answers how to take the count back (a refused or failed request keeps no answer).
 */
async function countNewKey(hot: Ctx['deps']['hot'], scope: string): Promise<() => Promise<unknown>> {
  const counter = `idem-n:${scope}`;
  const n = await hot.incr(counter, LIMITS.idempotencyTtlSeconds);
  const takeBack = () => hot.decrBy(counter, 1);
  if (n <= LIMITS.idempotencyKeysPerDay) return takeBack;
  await takeBack();
  const ttl = await hot.ttl(counter);
  throw tooMany(
    ttl > 0 ? ttl : 3600,
    `You have used ${LIMITS.idempotencyKeysPerDay.toLocaleString('en')} idempotency keys in 24 hours in this workspace, the most kept: send without one, or wait`,
  );
}

/**
 * Invokes an operation, honouring an idempotency key for operations that accept one: a repeat within
 * 24 hours by the same caller returns the first answer; the same key with another request is 422.
 * Only successful answers are kept (encrypted: they may hold secrets shown once).
 */
export async function invoke(
  op: Operation,
  ctx: Ctx,
  input: unknown,
  idempotencyKey?: string,
  keyField = 'Idempotency-Key',
): Promise<Invocation> {
  if (idempotencyKey === undefined || !op.meta.idempotent) return { data: await call(op, ctx, input), replayed: false };
  checkIdempotencyKey(idempotencyKey, keyField);
  // The fingerprint below walks the input recursively: refuse absurd nesting before it does.
  refuseDeepInput(input);
  // The same checks as the procedure itself: a replay must not skip them (cross-site, scope, ...).
  const actor = await authorize(ctx, op.meta);
  if (!actor) return { data: await call(op, ctx, input), replayed: false };
  const { hot, ciphers } = ctx.deps;
  // One record per caller and workspace: a person in several workspaces never gets one's answer in another.
  const owner =
    actor.type === 'user' ? `u:${actor.user.id}` : actor.type === 'token' ? `t:${actor.token.id}` : `s:${actor.shareId}`;
  const scope = `${owner}:w:${actor.workspaceId ?? '-'}`;
  // Keyed fingerprints: the input may hold passwords, and a plain hash of it could be tested against guesses.
  const key = `idem:${scope}:${ciphers.idempotency.mac(idempotencyKey)}`;
  const fp = ciphers.idempotency.mac(`${scope}\n${op.path}\n${canonicalJson(input ?? null)}`);

  const claim = await IdempotencyClaim.take(hot, key, fp);
  if (!claim) {
    const raw = await hot.get(key);
    const rec = raw ? (JSON.parse(raw) as IdempotencyRecord) : null;
    if (rec && rec.fp !== fp) {
      throw new AppError(422, `This ${keyField} was already used for a different request: use a new key`, { field: keyField });
    }
    if (rec?.state === 'done' && rec.sealed !== undefined) {
      return { data: JSON.parse(ciphers.idempotency.decrypt(rec.sealed)), replayed: true };
    }
    throw new AppError(409, 'A request with this key is still running: wait a moment, then retry', {
      code: 'idempotency-in-progress',
    });
  }
  let data: unknown;
  let takeBack: (() => Promise<unknown>) | undefined;
  try {
    takeBack = await countNewKey(hot, scope);
    data = await call(op, ctx, input);
  } catch (err) {
    // Refused or failed: the key is free again and uncounted (only failures are not kept), and this error is the answer.
    await claim.release().catch(() => {});
    await takeBack?.().catch(() => {});
    throw err;
  }
  const sealed = ciphers.idempotency.encrypt(JSON.stringify(data ?? null));
  await claim.settle(JSON.stringify({ fp, state: 'done', sealed } satisfies IdempotencyRecord), LIMITS.idempotencyTtlSeconds);
  return { data, replayed: false };
}
