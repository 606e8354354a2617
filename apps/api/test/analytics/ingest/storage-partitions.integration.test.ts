import { randomUUID } from 'node:crypto';
import {
  createOrm,
  dropPartitionsBefore,
  ensurePartitions,
  ensurePartitionsForDays,
  eventRow,
  forgetEnsuredPartitions,
  insertRows,
  listPartitions,
  type Orm,
  type PageviewRow,
  pageviewRow,
  requestRow,
} from '@us/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';

let orm: Orm;
beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'), { poolMax: 4 });
});
afterAll(async () => {
  await orm?.close();
});

const q = <T>(sql: string, params: unknown[] = []) => orm.em.getConnection().execute<T[]>(sql, params, 'all');

/** With a row id: inserting the same rows again must store nothing. */
const pageview = (siteId: string, at: Date, extra: Partial<PageviewRow> = {}) =>
  pageviewRow(siteId, at, { id: randomUUID(), visitor: 'v1', ...extra });

describe('analytics schema', () => {
  it('has no column that could hold an IP address or a user agent', async () => {
    const cols = await q<{ table_name: string; column_name: string }>(
      `select table_name, column_name from information_schema.columns
        where table_schema = current_schema()
          and table_name in ('pageviews', 'events', 'requests', 'daily_rollups')`,
    );
    expect(cols.length).toBeGreaterThan(40);
    const bad = cols.filter(
      ({ column_name: c }) => /(^|_)(ip|ips|ip_address|addr|user_agent|useragent|ua)(_|$)/i.test(c) || /agent/i.test(c),
    );
    expect(bad).toEqual([]);
  });

  it('partitions the raw tables by day with site_id leading the primary key, and has no foreign keys', async () => {
    const parts = await q<{ relname: string; def: string }>(
      `select c.relname, pg_get_partkeydef(c.oid) as def from pg_class c
        where c.relname in ('pageviews', 'events', 'requests') and c.relkind = 'p' order by c.relname`,
    );
    expect(parts).toEqual([
      { relname: 'events', def: 'RANGE (day)' },
      { relname: 'pageviews', def: 'RANGE (day)' },
      { relname: 'requests', def: 'RANGE (day)' },
    ]);
    const pks = await q<{ table_name: string; def: string }>(
      `select conrelid::regclass::text as table_name, pg_get_constraintdef(oid) as def from pg_constraint
        where contype = 'p' and conrelid::regclass::text in ('pageviews', 'events', 'requests') order by 1`,
    );
    expect(pks.map((p) => p.def)).toEqual(Array(3).fill('PRIMARY KEY (site_id, day, id)'));
    const fks = await q(
      `select 1 from pg_constraint where contype = 'f'
        and conrelid::regclass::text in ('pageviews', 'events', 'requests', 'daily_rollups')`,
    );
    expect(fks).toEqual([]);
  });
});

describe('partitions', () => {
  it('creates partitions ahead, idempotently, and drops whole partitions older than a cutoff', async () => {
    // Days long gone, so no other suite's partitions are in the way.
    const from = new Date('2001-03-01T15:00:00Z');
    const made = await ensurePartitions(orm, { from, daysAhead: 2 });
    expect(made).toContain('pageviews_p20010301');
    expect(made).toContain('requests_p20010303');
    await ensurePartitions(orm, { from, daysAhead: 2 }); // again: no error
    await Promise.all([ensurePartitions(orm, { from, daysAhead: 2 }), ensurePartitions(orm, { from, daysAhead: 2 })]);
    for (const t of ['pageviews', 'events', 'requests'] as const) {
      const list = await listPartitions(orm, t);
      expect(list).toEqual(expect.arrayContaining([`${t}_p20010301`, `${t}_p20010302`, `${t}_p20010303`]));
    }
    const site = randomUUID();
    await insertRows(orm, 'pageviews', [pageview(site, new Date('2001-03-01T10:00:00Z'))]);

    const dropped = await dropPartitionsBefore(orm, new Date('2001-03-03T00:00:00Z'));
    expect(dropped).toEqual(
      expect.arrayContaining(['pageviews_p20010301', 'pageviews_p20010302', 'events_p20010301', 'requests_p20010302']),
    );
    expect(dropped).not.toContain('pageviews_p20010303');
    const left = await listPartitions(orm, 'pageviews');
    expect(left).toContain('pageviews_p20010303');
    expect(left).not.toContain('pageviews_p20010301');
    const rows = await q(`select 1 from pageviews where site_id = ?`, [site]);
    expect(rows).toEqual([]);
    expect(await dropPartitionsBefore(orm, new Date('2001-03-03T00:00:00Z'))).toEqual([]);
    await dropPartitionsBefore(orm, new Date('2001-03-04T00:00:00Z'));
  });

  it('inserts each row into the partition of its UTC day, creating a missing partition on demand', async () => {
    forgetEnsuredPartitions();
    const site = randomUUID();
    // A year no partition exists for yet: the insert ensures it first.
    const year = 2090 + Math.floor(Math.random() * 9);
    const late = new Date(`${year}-06-01T23:59:59.999Z`);
    const early = new Date(`${year}-06-02T00:00:00.000Z`);
    const n = await insertRows(orm, 'pageviews', [pageview(site, late), pageview(site, early, { path: '/b' })]);
    expect(n).toBe(2);
    const rows = await q<{ part: string; day: string; path: string }>(
      `select tableoid::regclass::text as part, to_char(day, 'YYYY-MM-DD') as day, path from pageviews where site_id = ? order by at`,
      [site],
    );
    // On Citus a row lives in a shard of the partition, named after it with the shard's number.
    for (const r of rows) r.part = r.part.replace(/_\d+$/, '');
    expect(rows).toEqual([
      { part: `pageviews_p${year}0601`, day: `${year}-06-01`, path: '/' },
      { part: `pageviews_p${year}0602`, day: `${year}-06-02`, path: '/b' },
    ]);
  });

  it('never lets a new partition hold the raw table up behind a transaction that stays open', async () => {
    // Creating a partition needs the parent table to itself. While an open transaction holds the table,
    // the creation waits, and every reader and writer that comes after would queue behind it: the stats,
    // the rollups and every flush of every site, for as long as that transaction stays open.
    const held = new pg.Client({ connectionString: inject('databaseUrl') });
    const reader = new pg.Client({ connectionString: inject('databaseUrl') });
    await held.connect();
    await reader.connect();
    const year = 2070 + Math.floor(Math.random() * 9);
    let creating: Promise<string[]> | undefined;
    try {
      await held.query('begin');
      await held.query('select count(*) from pageviews where site_id = $1', [randomUUID()]);
      const heldPid = (await held.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]?.pid;
      creating = ensurePartitionsForDays(orm, [new Date(`${year}-03-01T12:00:00Z`)]);
      creating.catch(() => {});
      // The creation is waiting behind the open transaction (it gives way and tries again, so it is caught in
      // one of its waits).
      await vi.waitFor(
        async () => {
          const waiting = await reader.query(
            'select count(*)::int as n from pg_stat_activity where $1 = any(pg_blocking_pids(pid))',
            [heldPid],
          );
          expect(waiting.rows[0]?.n).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 20 },
      );
      // A reader arriving while the creation waits gets through (here: long before its statement timeout).
      await reader.query('set statement_timeout = 5000');
      const read = await reader.query('select count(*)::int as n from pageviews where site_id = $1', [randomUUID()]);
      expect(read.rows).toEqual([{ n: 0 }]);
      await held.query('commit');
    } finally {
      await reader.end();
      await held.end();
    }
    // Once the transaction ended, the partition is made.
    expect(await creating).toContain(`pageviews_p${year}0301`);
    expect(await listPartitions(orm, 'pageviews')).toContain(`pageviews_p${year}0301`);
  });

  it('inserts events and requests, chunks big batches under the parameter limit, and ignores a repeated id', async () => {
    const site = randomUUID();
    const at = new Date();
    const many = Array.from({ length: 3000 }, (_, i) => pageview(site, new Date(at.getTime() - i)));
    expect(await insertRows(orm, 'pageviews', many)).toBe(3000);
    expect(await insertRows(orm, 'pageviews', many.slice(0, 10))).toBe(0);
    expect(
      await insertRows(orm, 'events', [
        eventRow(site, at, { id: randomUUID(), pageviewId: 'pv', visitor: 'v', value: 1.5, device: 'mobile', country: 'DE' }),
        eventRow(site, at, {
          id: randomUUID(),
          pageviewId: 'pv',
          visitor: 'v',
          name: 'exp',
          kind: 'exposure',
          experiment: 'hero',
          variant: 'b',
          device: 'mobile',
        }),
      ]),
    ).toBe(2);
    expect(
      await insertRows(orm, 'requests', [
        requestRow(site, at, {
          id: randomUUID(),
          path: '/x',
          durationMs: 12,
          lane: 'bot',
          kind: 'verified-bot',
          botName: 'Googlebot',
          botCategory: 'search',
          verified: true,
          asn: 15169,
          asOrg: 'GOOGLE',
          tls: 'TLSv1.3',
        }),
      ]),
    ).toBe(1);
    const [c] = await q<{ p: string; e: string; r: string }>(
      `select (select count(*) from pageviews where site_id = ?) as p, (select count(*) from events where site_id = ?) as e,
              (select count(*) from requests where site_id = ?) as r`,
      [site, site, site],
    );
    expect(c).toEqual({ p: '3000', e: '2', r: '1' });
  });
});
