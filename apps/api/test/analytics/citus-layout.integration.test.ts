import {
  ANALYTICS_TABLES,
  CITUS_DISTRIBUTED_TABLES,
  createOrm,
  ensurePartitionsForDays,
  layOutOnCitus,
  migrate,
  type Orm,
} from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

/**
 * Where each table lives on Citus (packages/db/src/citus.ts). On plain PostgreSQL: the tables that hold a
 * site's analytics rows are in the distributed list, so a new one cannot be forgotten there unnoticed.
 */
describe('the Citus layout', () => {
  let orm: Orm;
  const q = <T>(sql: string, params: unknown[] = []) => orm.em.getConnection().execute<T[]>(sql, params, 'all');
  beforeAll(async () => {
    orm = await createOrm(inject('databaseUrl'), { poolMax: 2 });
  });
  afterAll(async () => {
    await orm?.close();
  });

  it('lists every raw table and every table keyed by site and day among the distributed ones', async () => {
    // Tables whose primary key starts (site_id, day): the analytics plane's rows and per-day results.
    const keyed = await q<{ name: string }>(
      `select c.relname::text as name
         from pg_constraint k join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace
        where k.contype = 'p' and n.nspname = current_schema() and c.relispartition = false
          and (select array_agg(a.attname::text order by x.i) from unnest(k.conkey) with ordinality x(att, i)
                 join pg_attribute a on a.attrelid = c.oid and a.attnum = x.att)[1:2] = array['site_id', 'day']`,
    );
    expect(keyed.length).toBeGreaterThan(4);
    for (const table of [...ANALYTICS_TABLES, ...keyed.map((k) => k.name)]) {
      expect(CITUS_DISTRIBUTED_TABLES as readonly string[], table).toContain(table);
    }
  });

  it.runIf(inject('databaseKind') === 'citus')(
    'on Citus: distributed by site_id and colocated, the control plane plain',
    async () => {
      const tables = await q<{ name: string; type: string; column: string; colocation: number }>(
        `select table_name::text as name, citus_table_type as type, distribution_column as column, colocation_id as colocation
         from citus_tables where table_name::text not like '%\\_p________'`,
      );
      const distributed = tables.filter((t) => t.type === 'distributed');
      expect(distributed.map((t) => t.name).sort()).toEqual([...CITUS_DISTRIBUTED_TABLES].sort());
      expect(new Set(distributed.map((t) => t.column))).toEqual(new Set(['site_id']));
      expect(new Set(distributed.map((t) => t.colocation)).size).toBe(1);
      // Nothing else is Citus's: the control plane (users, workspaces, sites, …) stays plain PostgreSQL.
      expect(tables.filter((t) => t.type !== 'distributed')).toEqual([]);
      const [plain] = await q<{ sites: boolean }>(
        `select not exists (select 1 from pg_dist_partition where logicalrelid = 'sites'::regclass) as sites`,
      );
      expect(plain?.sites).toBe(true);
      // A day partition made after the layout is distributed with its parent, on the same colocation.
      await ensurePartitionsForDays(orm, [new Date('2036-06-15T00:00:00Z')]);
      const partitions = await q<{ colocation: number }>(
        `select distinct colocation_id as colocation from citus_tables where table_name::text ~ '^pageviews_p[0-9]{8}$'`,
      );
      expect(partitions.map((p) => p.colocation)).toEqual([distributed[0]?.colocation]);
    },
  );

  it.runIf(inject('databaseKind') === 'citus')('undoes a layout with reference tables, as this service made before', async () => {
    for (const table of ['users', 'workspaces', 'sites']) await q(`select create_reference_table('${table}')`);
    const types = () =>
      q<{ type: string }>(`select distinct citus_table_type as type from citus_tables order by 1`).then((r) =>
        r.map((x) => x.type),
      );
    // The tables with keys to them were taken into Citus's metadata with them.
    expect(await types()).toEqual(['distributed', 'local', 'reference']);
    expect(await layOutOnCitus(orm)).toEqual(['users', 'workspaces', 'sites']);
    expect(await types()).toEqual(['distributed']);
    expect(await layOutOnCitus(orm)).toEqual([]);
  });

  it.runIf(inject('databaseKind') === 'citus')('on a coordinator without workers: start-up stops with what to do', async () => {
    const name = `no_workers_${process.pid}`;
    await q(`create database ${name}`);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${name}`;
    const bare = await createOrm(url.toString(), { poolMax: 1 });
    try {
      await bare.em.getConnection().execute('create extension citus');
      await expect(migrate(bare)).rejects.toThrow(/Citus coordinator without workers: register them first/);
    } finally {
      await bare.close();
      await q(`drop database ${name} with (force)`);
    }
  });
});
