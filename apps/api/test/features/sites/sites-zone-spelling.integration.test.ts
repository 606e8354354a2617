import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Migration20270108090000_site_zone_spelling } from '../../../../../packages/db/src/migrations/Migration20270108090000_site_zone_spelling.ts';
import { createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/** Zones stored, before names were stored in PostgreSQL's spelling, in the letter case they were typed in. */
describe("sites' zones in PostgreSQL's spelling", () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('the migration respells zones kept as typed, which the rollup jobs could not match, and leaves the others', async () => {
    const { workspace } = await createUser(t.deps);
    const em = t.deps.orm.em.fork();
    const typed = await createSite(em, { workspace: workspace.id, name: 'Typed', timezone: 'Asia/Ho_chi_minh' });
    const listed = await createSite(em, { workspace: workspace.id, name: 'Listed', timezone: 'Europe/Berlin' });
    const db = em.getConnection();
    const zoneOf = async (id: string) =>
      (await db.execute<{ timezone: string }[]>('select timezone from sites where id = ?', [id]))[0]?.timezone;
    const known = async (id: string) =>
      (
        await db.execute<{ known: boolean }[]>(
          'select timezone in (select name from pg_timezone_names) as known from sites where id = ?',
          [id],
        )
      )[0]?.known;
    expect(await known(typed.siteId)).toBe(false);

    const migration = new Migration20270108090000_site_zone_spelling(t.deps.orm.em.getDriver(), t.deps.orm.config);
    await migration.up();
    for (const sql of migration.getQueries()) await db.execute(String(sql));

    expect(await zoneOf(typed.siteId)).toBe('Asia/Ho_Chi_Minh');
    expect(await known(typed.siteId)).toBe(true);
    expect(await zoneOf(listed.siteId)).toBe('Europe/Berlin');
  });
});
