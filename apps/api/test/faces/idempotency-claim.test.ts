import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from '../../src/core/hot/memory.ts';
import { CLAIM_SECONDS, IdempotencyClaim } from '../../src/faces/idempotency-claim.ts';

/**
 * An idempotency key's claim while its request runs. The store's clock is moved by the test; renewals run on
 * real timers (every few ms here), so the test waits for a renewal to show rather than for a time.
 */
describe('idempotency claim', () => {
  let moved = 0;
  const hot = new MemoryStore(() => Date.now() + moved);
  const claims: IdempotencyClaim[] = [];
  afterEach(async () => {
    await Promise.all(claims.splice(0).map((c) => c.release()));
  });
  const take = async (key: string, fp: string, renewEveryMs: number) => {
    const claim = await IdempotencyClaim.take(hot, key, fp, renewEveryMs);
    if (claim) claims.push(claim);
    return claim;
  };

  it('a request running past the claim’s minute keeps its key: a retry is still told it runs', async () => {
    expect(await take('idem:long', 'fp', 5)).not.toBeNull();
    for (let i = 0; i < 3; i++) {
      moved += (CLAIM_SECONDS - 10) * 1000;
      // The claim would have run out on the next move without a renewal since this one.
      await vi.waitFor(async () => expect(await hot.ttl('idem:long')).toBeGreaterThan(CLAIM_SECONDS - 5), {
        timeout: 5000,
        interval: 5,
      });
    }
    expect(await take('idem:long', 'fp', 5)).toBeNull();
  });

  it('a claim that ran out and was taken by a retry is neither given back nor settled by the first request', async () => {
    const first = await take('idem:lapsed', 'fp', 1e9);
    expect(first).not.toBeNull();
    moved += (CLAIM_SECONDS + 1) * 1000; // the first request's node stalled: no renewal in time
    const retry = await take('idem:lapsed', 'fp', 1e9);
    expect(retry).not.toBeNull();
    const retryRecord = await hot.get('idem:lapsed');

    await first?.release();
    expect(await hot.get('idem:lapsed')).toBe(retryRecord);
    expect(await first?.settle('{"state":"done","from":"first"}', 3600)).toBe(false);
    expect(await hot.get('idem:lapsed')).toBe(retryRecord);

    expect(await retry?.settle('{"state":"done","from":"retry"}', 3600)).toBe(true);
    expect(await hot.get('idem:lapsed')).toBe('{"state":"done","from":"retry"}');
  });

  it('a settled or given-back claim is renewed no more', async () => {
    const settled = await take('idem:settled', 'fp', 5);
    expect(await settled?.settle('done', 30)).toBe(true);
    const given = await take('idem:given', 'fp', 5);
    await given?.release();
    await hot.set('idem:given', 'another', 30);
    // A claim still running renews every few ms: once it has several times, the two ended ones would have too.
    const renewals = vi.spyOn(hot, 'replaceIfEquals');
    await take('idem:still-running', 'fp', 5);
    await vi.waitFor(() =>
      expect(renewals.mock.calls.filter(([key]) => key === 'idem:still-running').length).toBeGreaterThanOrEqual(3),
    );
    expect(renewals.mock.calls.filter(([key]) => key === 'idem:settled' || key === 'idem:given')).toEqual([]);
    renewals.mockRestore();
    expect(await hot.get('idem:settled')).toBe('done');
    expect(await hot.ttl('idem:settled')).toBeLessThanOrEqual(30);
    expect(await hot.get('idem:given')).toBe('another');
  });
});
