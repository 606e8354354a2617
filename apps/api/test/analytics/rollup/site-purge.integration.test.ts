import { createOrm, insertRows, type Orm, pageviewRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { purgeDeletedSites } from '../../../src/analytics/rollup/site-purge.ts';
import { createOwnDatabase } from '../../support/faults.ts';
import { siteInNewWorkspace } from '../../support/sites.ts';

/**
 * Sites deleted before `deleted_sites` existed left their rows: a run over every site finds their ids in the
 * analytics tables and purges them, leaving the sites that exist alone. Its own database: a run over every site on
 * the suites' shared one would purge other suites' rows of made-up site ids.
 */
describe('site purge of ids no site has', () => {
  let own: Awaited<ReturnType<typeof createOwnDatabase>>;
  let orm: Orm;
  beforeAll(async () => {
    own = await createOwnDatabase(inject('databaseUrl'));
    orm = await createOrm(own.url, { poolMax: 4 });
  });
  afterAll(async () => {
    await orm?.close();
    await own?.drop();
  });

  const count = async (siteId: string) =>
    (await orm.em.fork().execute<{ n: number }[]>('select count(*)::int as n from pageviews where site_id = ?', [siteId]))[0]?.n;

  it('purges the rows of a site deleted long ago, and keeps those of a live site', async () => {
    const { siteId: live } = await siteInNewWorkspace(orm, 'Live');
    const { siteId: gone } = await siteInNewWorkspace(orm, 'Gone');
    await insertRows(orm, 'pageviews', [pageviewRow(live, new Date()), pageviewRow(gone, new Date())]);
    // Deleted without its id recorded, as before the list existed.
    await orm.em.fork().execute('delete from sites where id = ?', [gone]);
    expect(await purgeDeletedSites(orm, { wait: true })).toMatchObject({ ran: true, sites: 1 });
    expect(await count(gone)).toBe(0);
    expect(await count(live)).toBe(1);
  });
});
