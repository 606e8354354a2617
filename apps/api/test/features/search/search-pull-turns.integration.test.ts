import { createOrm, type Orm } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dueConnections } from '../../../src/features/search/pull.ts';
import { createSite, siteInNewWorkspace } from '../../support/sites.ts';

// The attack: one workspace connects the same Bing key to thousands of sites (Growth has no site cap). Taken
// oldest due first, 500 a run, its connections filled run after run while every other workspace's daily pull
// waited. Now each run takes the workspaces' connections in turns.
describe('search pull: connections due are taken workspace by workspace', () => {
  let orm: Orm;
  beforeAll(async () => {
    orm = await createOrm(inject('databaseUrl'), { poolMax: 2 });
  });
  afterAll(() => orm?.close());

  async function connect(siteId: string, dueAt: Date) {
    await orm.em
      .getConnection()
      .execute(`insert into search_connections (site_id, source, property, next_pull_at) values (?, 'secondary', ?, ?)`, [
        siteId,
        `https://${siteId}.example.test/`,
        dueAt,
      ]);
  }

  it("gives the busy workspace's first connection and every other workspace's one turn each before its second", async () => {
    const now = new Date();
    const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
    const busy = await siteInNewWorkspace(orm, 'Many sites');
    const busySites = [busy.siteId];
    for (let i = 0; i < 5; i++) {
      const em = orm.em.fork();
      busySites.push((await createSite(em, { workspace: busy.site.workspace.id, name: `More ${i}` })).siteId);
    }
    // The busy workspace's connections have waited longest.
    for (const [i, siteId] of busySites.entries()) await connect(siteId, ago(600 - i));
    const quiet = [(await siteInNewWorkspace(orm, 'One site')).siteId, (await siteInNewWorkspace(orm, 'Another')).siteId];
    await connect(quiet[0] as string, ago(10));
    await connect(quiet[1] as string, ago(5));
    const all = [...busySites, ...quiet];

    const taken = (await dueConnections(orm.em.fork(), now, 3, all)).map((c) => c.site_id);
    expect(taken).toEqual([busySites[0], quiet[0], quiet[1]]);
    // Without a bound, the busy workspace's others follow, oldest first.
    expect((await dueConnections(orm.em.fork(), now, 100, all)).map((c) => c.site_id)).toEqual([
      busySites[0],
      quiet[0],
      quiet[1],
      ...busySites.slice(1),
    ]);
  });
});
