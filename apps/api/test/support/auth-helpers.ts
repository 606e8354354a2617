import { randomInt } from 'node:crypto';
import { EmailToken, User } from '@us/db';
import { Secret, TOTP } from 'otpauth';
import type { Response } from 'supertest';
import { expect } from 'vitest';
import type { Problem } from '../../src/core/errors.ts';
import { isProblemCode, PROBLEM_TYPES, type ProblemCode } from '../../src/core/problem-types.ts';
import type { TestServer } from './server.ts';
import type { CapturedMail } from './smtp.ts';

/** Every `Set-Cookie` header of an answer. */
export function setCookies(res: Response): string[] {
  return ([] as string[]).concat(res.headers['set-cookie'] ?? []);
}

/** The full `Set-Cookie` line for `us_session`, or undefined when the answer sets none. */
export function sessionSetCookie(res: Response): string | undefined {
  return setCookies(res).find((c) => c.startsWith('us_session='));
}

/** `us_session=<value>` from an answer that must set a live session cookie. */
export function sessionCookieOf(res: Response): string {
  const line = sessionSetCookie(res);
  if (!line) throw new Error('the answer set no us_session cookie');
  const pair = line.split(';')[0] as string;
  expect(pair.length).toBeGreaterThan('us_session='.length);
  return pair;
}

/** The attributes of a Set-Cookie line, lower-cased names (`httponly`, `samesite`, `max-age`, ...). */
export function cookieAttributes(line: string): Map<string, string> {
  const attrs = new Map<string, string>();
  for (const part of line.split(';').slice(1)) {
    const [name = '', ...rest] = part.trim().split('=');
    attrs.set(name.toLowerCase(), rest.join('='));
  }
  return attrs;
}

/** What must never reach an answer: a stack trace, a file of ours, or SQL and its errors. */
export const STACK_OR_SQL = [
  /\n\s+at /,
  /at \S+ \(.*:\d+:\d+\)/,
  /node_modules/,
  /\.[cm]?[jt]s:\d+/,
  /\bselect\b[^"]*\bfrom\b/i,
  /\binsert into\b/i,
  /\bdelete from\b/i,
  /violates .* constraint/i,
  /syntax error at or near/i,
  /\bSQLSTATE\b|\bERROR: /,
];
/** In a problem body, not even the names of the libraries behind it. */
const LEAKS = [...STACK_OR_SQL, /postgres|mikro-?orm|zod/i];

/** A problem body as the service sends it. */
export type ProblemBody = Problem;

/**
 * Asserts `body` names its problem type as the type table has it: `type` first and `/problems/<code>`,
 * a known `code`, sent with a status that type comes with.
 */
export function expectTypedProblem(body: Record<string, unknown>, status: number) {
  const code = String(body.code);
  expect(isProblemCode(code), `unknown problem code ${code}`).toBe(true);
  expect(Object.keys(body)[0]).toBe('type');
  expect(body.type).toBe(`/problems/${code}`);
  const known: { status: number; alsoAs?: readonly number[] } = PROBLEM_TYPES[code as ProblemCode];
  expect([known.status, ...(known.alsoAs ?? [])], `${code} sent with ${status}`).toContain(status);
}

/**
 * Asserts the answer is an RFC 9457 problem as the spec describes it: problem+json, `status` equal to
 * the HTTP status, a non-empty `title`, a `field` for 400 (equal to `field` when given), a `type` and
 * `code` from the type table, and nothing that looks like a stack trace or SQL.
 */
export function expectProblem(res: Response, status: number, field?: string) {
  expect(res.status, `expected ${status}, got ${res.status}: ${res.text}`).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.text) as Record<string, unknown>;
  expect(body.status).toBe(status);
  expectTypedProblem(body, status);
  expect(typeof body.title).toBe('string');
  expect((body.title as string).trim().length).toBeGreaterThan(0);
  if (status === 400) {
    expect(typeof body.field).toBe('string');
    expect((body.field as string).length).toBeGreaterThan(0);
  }
  if (field !== undefined) expect(body.field).toBe(field);
  for (const leak of LEAKS) expect(res.text).not.toMatch(leak);
  return body as unknown as ProblemBody;
}

/** Asserts the answer is the problem `code` (with its type's status, and `field` when given). */
export function expectProblemCode(res: Response, code: ProblemCode, field?: string): ProblemBody {
  const body = expectProblem(res, PROBLEM_TYPES[code].status, field);
  expect(body.code).toBe(code);
  expect(body.type).toBe(`/problems/${code}`);
  return body;
}

/** A random private IPv4 address, so throttling by address never mixes tests (needs TRUST_PROXY). */
export function uniqueIp(): string {
  return `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
}

export const TOTP_PERIOD = 30;

/** The current TOTP time step. */
export function currentStep(now = Date.now()): number {
  return Math.floor(now / 1000 / TOTP_PERIOD);
}

/** The six-digit code of `secret` (base32) for time step `step` (now when omitted). */
export function totpCode(secret: string, step = currentStep()): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: TOTP_PERIOD }).generate({
    timestamp: step * TOTP_PERIOD * 1000 + 1000,
  });
}

/** A six-digit code that is not valid for `secret` anywhere near now. */
export function wrongCode(secret: string): string {
  const now = currentStep();
  const valid = new Set([-2, -1, 0, 1, 2].map((d) => totpCode(secret, now + d)));
  for (let i = 0; ; i++) {
    const code = String((123456 + i * 7919) % 1_000_000).padStart(6, '0');
    if (!valid.has(code)) return code;
  }
}

/** Turns two-factor sign-in on for a user straight through the ORM; returns the base32 secret. */
export async function enableTwoFactor(t: TestServer, userId: string): Promise<string> {
  const secret = new Secret({ size: 20 }).base32;
  const em = t.deps.orm.em.fork();
  await em.nativeUpdate(
    User,
    { id: userId },
    { totpSecretEnc: t.deps.ciphers.totp.encrypt(secret), twoFactorEnabledAt: new Date(), totpLastStep: null },
  );
  return secret;
}

/** Moves every e-mail link token of the user (of one purpose) into the past. */
export async function expireEmailTokens(t: TestServer, userId: string, purpose: 'verify' | 'reset') {
  const em = t.deps.orm.em.fork();
  const n = await em.nativeUpdate(EmailToken, { user: userId, purpose }, { expiresAt: new Date(Date.now() - 1000) });
  expect(n).toBeGreaterThan(0);
}

/** Messages the capture received for `to`, oldest first. */
export function mailsTo(t: TestServer, to: string): CapturedMail[] {
  return t.smtp.mails.filter((m) => m.to.includes(to));
}

/** The user row for an address. */
export async function userByEmail(t: TestServer, email: string) {
  return t.deps.orm.em.fork().findOneOrFail(User, { email });
}

/** The throttle delays recorded while `fn` ran. */
export async function sleepsDuring(t: TestServer, fn: () => Promise<unknown>): Promise<number[]> {
  const before = t.sleeps.length;
  await fn();
  return t.sleeps.slice(before);
}
