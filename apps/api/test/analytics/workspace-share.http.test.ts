import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/analytics/runner.ts';
import { inWorkspaceSlot } from '../../src/analytics/site-slot.ts';
import { Params, statement } from '../../src/analytics/sql.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * One workspace's slow questions and another's quick one on a node whose stats pool has four connections. The
 * defect: the first took all four (a question runs two statements at once, a batch four questions), and the second
 * waited for one of them to end.
 */
describe("a workspace's share of the stats pool", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ env: { STATS_POOL_SIZE: '4' } });
  });
  afterAll(() => t?.close());

  const ask = (workspaceId: string, sql: string) =>
    inWorkspaceSlot(t.deps, workspaceId, () => run(t.deps.statsOrm.em.fork(), statement(sql, new Params())));
  const running = async (marker: string) => {
    const [row] = await t.deps.orm.em
      .fork()
      .execute<{ n: number }[]>(
        `select count(*)::int as n from pg_stat_activity where state = 'active' and pid <> pg_backend_pid() and query like ?`,
        [`%${marker}%`],
      );
    return row?.n ?? 0;
  };

  it('holds one workspace to half the pool: another workspace is answered while its questions run', async () => {
    const marker = `share-test-${randomUUID()}`;
    const order: string[] = [];
    const slow = Array.from({ length: 6 }, () =>
      ask(`slow-${marker}`, `select pg_sleep(1) as slept /* ${marker} */`).then(() => order.push('slow')),
    );
    // Its share is running: two of its statements at once, the other four waiting for their turn.
    await vi.waitFor(async () => expect(await running(marker)).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
    expect(await running(marker)).toBe(2);
    await ask(`quick-${marker}`, 'select 1 as one');
    order.push('quick');
    await Promise.all(slow);
    expect(order[0]).toBe('quick');
    expect(order.length).toBe(7);
  });
});
