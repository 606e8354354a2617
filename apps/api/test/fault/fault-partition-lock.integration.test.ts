import { createOrm, partitionName } from '@us/db';
import { describe, expect, it } from 'vitest';
import { MemoryIngestBuffer, startIngest } from '../../src/analytics/ingest/index.ts';
import type { Logger } from '../../src/core/logger.ts';
import { startOwnPostgres } from '../support/faults.ts';
import { whileHolding } from '../support/held-lock.ts';

/**
 * A node starting while a raw table is held (an export streaming a day, a long question) when a partition is due:
 * the partition change waits out its retries, and the start failed with it (lock_not_available), so a node
 * restarted in a deploy came up only once the reader was done. Its own PostgreSQL: the lock holds every table's
 * partition changes for seconds.
 */
describe('fault: a start while a raw table is held', () => {
  it('goes on, and keeps the partitions once the table is free', async () => {
    const pg = await startOwnPostgres();
    const orm = await createOrm(pg.url, { poolMax: 4 });
    const locker = await createOrm(pg.url, { poolMax: 1 });
    try {
      const first = await startIngest({ orm, buffer: new MemoryIngestBuffer(), intervalMs: 60_000 });
      await first.stop();
      // The last day the upkeep keeps ready (7 days ahead) is not made yet.
      const due = partitionName('pageviews', new Date(Date.now() + 7 * 86_400_000));
      const exists = async () =>
        (await orm.em.getConnection().execute<{ t: string | null }[]>(`select to_regclass(?)::text as t`, [due]))[0]?.t === due;
      expect(await exists()).toBe(true);
      await orm.em.getConnection().execute(`drop table "${due}"`);
      const warnings: string[] = [];
      const logger = { debug() {}, info() {}, error() {}, warn: (m: string) => warnings.push(m) } as Logger;
      const ingest = await whileHolding(
        locker,
        (trx) => trx.execute('lock table pageviews in access share mode'),
        () => startIngest({ orm, buffer: new MemoryIngestBuffer(), intervalMs: 60_000, partitionRetryMs: 100, logger }),
      );
      expect(warnings.join('\n')).toMatch(/held too long to keep its partitions/);
      await expect.poll(exists, { timeout: 20_000 }).toBe(true);
      await ingest.stop();
    } finally {
      await locker.close();
      await orm.close();
      await pg.remove();
    }
  }, 60_000);
});
