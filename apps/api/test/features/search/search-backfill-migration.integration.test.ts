import { createOrm, type Orm } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Migration20270109090000_search_backfill } from '../../../../../packages/db/src/migrations/Migration20270109090000_search_backfill.ts';
import { siteInNewWorkspace } from '../../support/sites.ts';

// The migration's data part, on connections as they were before it: one whose first pull filled its twelve weeks
// counts as made whole; one whose first pull failed and was followed by two-week pulls does not (its next pull
// asks for twelve), nor one whose pulls are stopped. Existing weeks take their connection's property.
describe('migration search_backfill', () => {
  let orm: Orm;
  beforeAll(async () => {
    orm = await createOrm(inject('databaseUrl'), { poolMax: 2 });
  });
  afterAll(() => orm?.close());

  it('marks as made whole only the connections a twelve-week pull filled, and gives the weeks their property', async () => {
    const db = orm.em.getConnection();
    const connectedAt = new Date('2026-10-07T09:00:00Z'); // a Wednesday; its week starts on 2026-10-05
    const make = async (name: string, weeks: string[], access = 'ok') => {
      const { siteId } = await siteInNewWorkspace(orm, name);
      const property = `https://${siteId}.example.test/`;
      await db.execute(
        `insert into search_connections (site_id, source, property, connected_at, last_pull_at, last_pull_ok, access)
         values (?, 'primary', ?, ?, ?, true, ?)`,
        [siteId, property, connectedAt, new Date('2026-11-01T00:00:00Z'), access],
      );
      for (const week of weeks) {
        await db.execute(`insert into search_weeks (site_id, source, week) values (?, 'primary', ?::date)`, [siteId, week]);
      }
      return { siteId, property };
    };
    // Twelve weeks back from the week of the connection: 2026-07-27 is 10 weeks before 2026-10-05.
    const whole = await make('Whole', ['2026-07-20', '2026-07-27', '2026-10-05']);
    const twoWeeks = await make('Two weeks only', ['2026-09-28', '2026-10-05', '2026-10-12']);
    const stopped = await make('Stopped', ['2026-07-20', '2026-10-05'], 'hostname-unverified');

    const migration = new Migration20270109090000_search_backfill(orm.em.getDriver(), orm.config);
    await migration.up();
    // The columns are there already (every migration is applied): only the updates run again.
    for (const sql of migration.getQueries().map(String)) {
      if (sql.startsWith('update')) await db.execute(sql);
    }

    const backfilled = async (siteId: string) =>
      (
        await db.execute<{ at: Date | null }[]>('select backfilled_at as at from search_connections where site_id = ?', [siteId])
      )[0]?.at ?? null;
    expect(await backfilled(whole.siteId)).not.toBeNull();
    expect(await backfilled(twoWeeks.siteId)).toBeNull();
    expect(await backfilled(stopped.siteId)).toBeNull();
    const properties = await db.execute<{ property: string | null }[]>(
      'select distinct property from search_weeks where site_id = ?',
      [whole.siteId],
    );
    expect(properties).toEqual([{ property: whole.property }]);
  });
});
