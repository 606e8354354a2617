// A database restored from a dump into a new PostgreSQL (a move to another server, a backup brought back):
// each raw row keeps the `arrival` the old server gave it, and each rollup the snapshot it counted, both
// in the old server's transaction ids, while the new server numbers its own transactions from where its
// initdb left it, far below. The rollups of the restored days must still hold exactly the rows the SQL
// rollup (support/rollup-sql.ts) gives for them: brought up to date after late rows, stepped on again, and
// counted whole (as after a new rollup format).
import { createOrm, insertRows, type Orm, type PageviewRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SiteDay } from '../../../src/analytics/rollup/pending-days.ts';
import { rollupSiteDay, siteDaySource } from '../../../src/analytics/rollup/rollup.ts';
import { ROLLUP_VERSION } from '../../../src/analytics/rollup/rollup-format.ts';
import { type OwnPostgres, startOwnPostgres } from '../../support/faults.ts';
import { advanceTransactionIds, copyEveryRow, nextTransactionId } from '../../support/restore-copy.ts';
import { generatedSiteDay, normalRows, pageview, storedRollupRows } from '../../support/rollup-day.ts';
import { sqlRollupRows } from '../../support/rollup-sql.ts';
import { testDatabaseKind } from '../../support/test-database.ts';

const TZ = 'Europe/Berlin';
const HOUR = 3_600_000;
let oldServer: OwnPostgres;
let newServer: OwnPostgres;
let before: Orm;
let after: Orm;
let sd: SiteDay;
let other: SiteDay;
let x: { visitor: string };
let y: { visitor: string };
let lo: number;

const hour = (h: number) => new Date(lo + h * HOUR);
const until = (h: number) => hour(h).toISOString();
const pv = (visitor: string, h: number, extra: Partial<PageviewRow> = {}) =>
  pageview(sd.siteId, visitor, hour(h), { path: '/late', ...extra });

/** What the SQL rollup counts for a site-day up to `h` (or the whole day), from every raw row stored. */
async function expected(orm: Orm, day: SiteDay, h?: number) {
  return normalRows(await sqlRollupRows(orm, await siteDaySource(orm, day, h === undefined ? undefined : until(h))));
}

async function visitorsBefore(orm: Orm, h: number, n: number) {
  const found = await orm.em
    .getConnection()
    .execute<{ visitor: string }[]>(
      `select distinct visitor from pageviews where site_id = ? and at >= ? and at < ? and lane = 'human' order by visitor limit ?`,
      [sd.siteId, hour(1), hour(h), n],
      'all',
    );
  if (found.length < n) throw new Error(`fewer than ${n} visitors before ${h}:00`);
  return found;
}

// The test starts two PostgreSQL servers of its own: the Citus lane would run the same again.
const own = testDatabaseKind() !== 'citus';

beforeAll(async () => {
  if (!own) return;
  [oldServer, newServer] = await Promise.all([startOwnPostgres(), startOwnPostgres()]);
  // The old server has run for a while: its transaction ids are well ahead of the new one's.
  await advanceTransactionIds(oldServer.url, (await nextTransactionId(newServer.url)) + 60_000n);
  before = await createOrm(oldServer.url, { poolMax: 4 });
  sd = await generatedSiteDay(before, 'Restored', TZ, 3000);
  other = await generatedSiteDay(before, 'Restored whole', TZ, 1500);
  lo = Date.parse((await siteDaySource(before, sd)).whereParams[3] as string);
  // On the old server: one day rolled up to 16:00, then a late row no rollup has seen (the dump carries it);
  // another day rolled up whole.
  expect((await rollupSiteDay(before, sd, until(16)))?.recounted).toBeNull();
  [x, y] = (await visitorsBefore(before, 15, 2)) as [{ visitor: string }, { visitor: string }];
  await insertRows(before, 'pageviews', [pv(x.visitor, 2, { path: '/in-the-dump', sessionStart: true })]);
  await rollupSiteDay(before, other);

  await copyEveryRow(oldServer.url, newServer.url);
  after = await createOrm(newServer.url, { poolMax: 4 });
}, 180_000);

afterAll(async () => {
  await before?.close();
  await after?.close();
  await Promise.all([oldServer?.remove(), newServer?.remove()]);
});

describe.runIf(own)('rollups of a database restored into a new PostgreSQL', () => {
  it('bring a restored day up to date, step on and close it with exactly the stored rows', async () => {
    const [rolled] = await after.em
      .getConnection()
      .execute<{ xmin: string }[]>(
        'select pg_snapshot_xmin(snapshot)::text as xmin from rollup_days where site_id = ? and day = ?',
        [sd.siteId, sd.day],
        'all',
      );
    // The premise: the restored rollup's snapshot is ahead of every transaction the new server has run.
    expect(BigInt(rolled?.xmin ?? '0')).toBeGreaterThan(await nextTransactionId(newServer.url));

    // On the new server: late rows before 16:00 (a known visitor, a new one) and one after it.
    await insertRows(after, 'pageviews', [
      pv(y.visitor, 3, { path: '/after-the-move', sessionStart: true }),
      pv('restored-new', 5, { path: '/after-the-move', sessionStart: true, country: 'FR' }),
      pv('restored-later', 16.5, { sessionStart: true }),
    ]);
    // Counted whole on the new server: the last rollup's snapshot is the old server's.
    expect((await rollupSiteDay(after, sd, until(17)))?.recounted).toBeNull();
    const seventeen = await storedRollupRows(after, sd);
    expect(seventeen).toEqual(await expected(after, sd, 17));
    expect(seventeen).toContain('pageviews|page|/in-the-dump|human = 1/1');
    expect(seventeen).toContain('pageviews|page|/after-the-move|human = 2/2');

    // The next steps start from the new server's own snapshots: nothing restored counts twice.
    await insertRows(after, 'pageviews', [pv('restored-evening', 17.5, { sessionStart: true, path: '/evening' })]);
    expect((await rollupSiteDay(after, sd, until(18)))?.recounted).toBeGreaterThan(0);
    expect(await storedRollupRows(after, sd)).toEqual(await expected(after, sd, 18));
    await insertRows(after, 'pageviews', [pv(x.visitor, 6, { path: '/very-late' })]);
    expect((await rollupSiteDay(after, sd, until(19)))?.recounted).toBeGreaterThan(0);
    expect(await storedRollupRows(after, sd)).toEqual(await expected(after, sd, 19));
    await rollupSiteDay(after, sd);
    const closed = await storedRollupRows(after, sd);
    expect(closed).toEqual(await expected(after, sd));
    expect(closed).toContain('pageviews|page|/very-late|human = 1/1');
  });

  it('count a restored day whole (a new rollup format) with every restored row', async () => {
    const whole = await expected(after, other);
    expect(whole.length).toBeGreaterThan(100);
    // As a new rollup format makes the job do for every kept day.
    await after.em
      .getConnection()
      .execute('update rollup_days set version = ? where site_id = ? and day = ?', [ROLLUP_VERSION - 1, other.siteId, other.day]);
    expect((await rollupSiteDay(after, other))?.recounted).toBeNull();
    expect(await storedRollupRows(after, other)).toEqual(whole);
    // And again after a late row.
    const noon = new Date(Date.parse(`${other.day}T12:00:00Z`));
    await insertRows(after, 'pageviews', [
      pageview(other.siteId, 'restored-other', noon, { sessionStart: true, path: '/other' }),
    ]);
    await rollupSiteDay(after, other);
    const again = await storedRollupRows(after, other);
    expect(again).toEqual(await expected(after, other));
    expect(again).toContain('pageviews|page|/other|human = 1/1');
  });

  it('roll up where the server does not say which it is (pg_control_system refused to the role)', async () => {
    const admin = after.em.getConnection();
    await admin.execute('create role limited_rollups login password $$limited$$');
    await admin.execute('grant all on all tables in schema public to limited_rollups');
    await admin.execute('grant all on all sequences in schema public to limited_rollups');
    await admin.execute('revoke execute on function pg_control_system() from public');
    const url = new URL(newServer.url);
    url.username = 'limited_rollups';
    url.password = 'limited';
    const limited = await createOrm(url.toString(), { poolMax: 2 });
    try {
      const noon = new Date(Date.parse(`${other.day}T12:30:00Z`));
      await insertRows(limited, 'pageviews', [
        pageview(other.siteId, 'limited-role', noon, { sessionStart: true, path: '/limited' }),
      ]);
      await rollupSiteDay(limited, other);
      const rows = await storedRollupRows(limited, other);
      expect(rows).toEqual(await expected(limited, other));
      expect(rows).toContain('pageviews|page|/limited|human = 1/1');
      const [day] = await limited.em
        .getConnection()
        .execute<{ server: string }[]>('select snapshot_server as server from rollup_days where site_id = ? and day = ?', [
          other.siteId,
          other.day,
        ]);
      expect(day?.server).toBe('');
    } finally {
      await limited.close();
    }
  });
});
