import { randomUUID } from 'node:crypto';
import type { HotStore } from '../core/hot/store.ts';

/** How long a claim lives unless renewed: a node that dies mid-request frees its keys this soon. */
export const CLAIM_SECONDS = 60;
/** How often a running request renews its claim: three chances before it would run out. */
const RENEW_EVERY_MS = 20_000;

/**
 * One request's hold on an idempotency key while it runs. Its record names it (a random holder), so it is
 * renewed for as long as the request runs, however long, and settled or given back only while it is still
 * this request's: a claim that ran out (its node stalled, the hot store restarted) and was taken by a retry
 * is never deleted or overwritten by the first request finishing late.
 */
export class IdempotencyClaim {
  private readonly renewal: NodeJS.Timeout;

  private constructor(
    private readonly hot: HotStore,
    private readonly key: string,
    private readonly record: string,
    renewEveryMs: number,
  ) {
    this.renewal = setInterval(() => {
      // A renewal lost to a hot-store hiccup is retried at the next tick; the claim has time left.
      this.hot.replaceIfEquals(this.key, this.record, this.record, CLAIM_SECONDS).catch(() => {});
    }, renewEveryMs);
    this.renewal.unref();
  }

  /** Takes the key for this request, or null when another holds it (or its answer is kept). */
  static async take(
    hot: HotStore,
    key: string,
    fingerprint: string,
    renewEveryMs = RENEW_EVERY_MS,
  ): Promise<IdempotencyClaim | null> {
    const record = JSON.stringify({ fp: fingerprint, state: 'pending', holder: randomUUID() });
    if (!(await hot.setIfAbsent(key, record, CLAIM_SECONDS))) return null;
    return new IdempotencyClaim(hot, key, record, renewEveryMs);
  }

  /** Keeps the finished request's record for `ttlSeconds`, if the key is still this request's. */
  async settle(done: string, ttlSeconds: number): Promise<boolean> {
    clearInterval(this.renewal);
    return this.hot.replaceIfEquals(this.key, this.record, done, ttlSeconds);
  }

  /** Gives the key back (the request failed, or was refused), if it is still this request's. */
  async release(): Promise<void> {
    clearInterval(this.renewal);
    await this.hot.delIfEquals(this.key, this.record);
  }
}
