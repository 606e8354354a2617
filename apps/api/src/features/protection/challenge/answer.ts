import { bitsFor, challengeOf, MAX_BITS, NONCES, solves, WORK } from './work.ts';

/**
 * The form the check page posts back: `t` the ticket, `b` and `i` the difficulty and time the page was
 * made with (bound into the challenge), `n` the eight nonces found, `wd` whether `navigator.webdriver` was set,
 * `tm` whether timers ran, `ms` how long the work took (informational). Every field is shaped before use.
 */
export type AnswerOutcome =
  /** The page's own fields are missing: the browser ran no script (nothing is counted against it). */
  | { kind: 'noScript' }
  /** The page is older than the answer may be: it runs again, nothing counted. */
  | { kind: 'stale' }
  /** A wrong or too-easy answer: a failed check; the page runs again, harder. */
  | { kind: 'failed' }
  /**
   * A browser that says it is automated (navigator.webdriver set, or timers that never ran): a failed
   * check too, but running the work again cannot change the answer, so the page is not offered again.
   */
  | { kind: 'automated' }
  | { kind: 'passed' };

const int = (v: string | null, min: number, max: number): number | undefined => {
  if (v === null || !/^\d{1,12}$/.test(v)) return undefined;
  const n = Number(v);
  return n >= min && n <= max ? n : undefined;
};

/**
 * Judges an answer against the ticket (`token`, its `risk`) and the visitor's failed checks of the day.
 * The challenge is recomputed from the pass key, so a form cannot choose its own; the difficulty must be
 * at least what this visitor is asked for now.
 */
export async function judgeAnswer(
  form: URLSearchParams,
  ctx: { passKey: string; token: string; risk: number; failedChecks: number; now: number },
): Promise<AnswerOutcome> {
  const nonce = form.get('n') ?? '';
  if (nonce === '' && !form.get('wd') && !form.get('tm')) return { kind: 'noScript' };
  const bits = int(form.get('b'), WORK.minBits, MAX_BITS);
  const issuedAt = int(form.get('i'), 0, 99_999_999_999);
  const nowSeconds = Math.floor(ctx.now / 1000);
  if (issuedAt === undefined || issuedAt > nowSeconds + WORK.skewSeconds) return { kind: 'failed' };
  if (nowSeconds - issuedAt > WORK.freshSeconds) return { kind: 'stale' };
  if (bits === undefined || bits < bitsFor(ctx.risk, ctx.failedChecks)) return { kind: 'failed' };
  if (form.get('wd') === '1' || form.get('tm') === '0') return { kind: 'automated' };
  if (!NONCES.test(nonce) || form.get('wd') !== '0' || form.get('tm') !== '1') return { kind: 'failed' };
  const challenge = await challengeOf(ctx.passKey, ctx.token, bits, issuedAt);
  return solves(challenge, nonce, bits) ? { kind: 'passed' } : { kind: 'failed' };
}
