import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_BUDGETS } from '../../src/core/hot/address-budget.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The attack: `GET /_us/internal` in a loop, under a Host the proxy face does not take (a single label, the
 * service's own name). Each request looked its Host up in the database before anything else, with no budget:
 * one stranger held connections of the main pool. Every client here has an address of its own (TRUST_PROXY).
 */
describe('attack: /_us/internal in a loop', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
  });
  afterAll(() => t.close());

  const follow = (ip: string) => t.request.get('/_us/internal?token=x').set('Host', 'x').set('X-Forwarded-For', ip);

  it(`answers an address ${CHECK_BUDGETS.internal} a minute, then 429 with Retry-After; other addresses are answered`, async () => {
    for (let i = 0; i < CHECK_BUDGETS.internal; i++) await follow('203.0.113.7').expect(404);
    const refused = await follow('203.0.113.7').expect(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['content-type']).toMatch(/text\/html/);
    expect(refused.text).toMatch(/try again in a minute/);
    await follow('203.0.113.8').expect(404);
  });
});
