// What restoring a dump into a new PostgreSQL does to the data, for tests: every row of every table copied
// from one database into another whose schema the same migrations made (pg_dump's data section, then
// pg_restore), each row written anew by the target's own transactions, its column values as they were.
// The Debian pg_dump on these machines is older than the embedded PostgreSQL, so COPY does the same here.
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Copies every row of `fromUrl`'s tables into `toUrl` (emptied first), with the sequences' positions. */
export async function copyEveryRow(fromUrl: string, toUrl: string): Promise<void> {
  const source = new pg.Client({ connectionString: fromUrl });
  const target = new pg.Client({ connectionString: toUrl });
  await source.connect();
  await target.connect();
  try {
    // The tables with rows of their own: partitioned parents stand for their partitions, which the target makes first.
    const { rows: tables } = await source.query<{ name: string; columns: string }>(
      `select c.relname as name,
              string_agg(quote_ident(a.attname), ', ' order by a.attnum) as columns
         from pg_class c
         join pg_namespace n on n.oid = c.relnamespace and n.nspname = 'public'
         join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
        where c.relkind in ('r', 'p') and not c.relispartition and c.relname <> 'mikro_orm_migrations'
        group by c.relname`,
    );
    const { rows: partitions } = await source.query<{ name: string; parent: string; bound: string }>(
      `select c.relname as name, p.relname as parent, pg_get_expr(c.relpartbound, c.oid) as bound
         from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
        where c.relispartition and c.relkind in ('r', 'p')`,
    );
    await target.query('begin');
    // As pg_restore's data-only restore: no triggers or foreign key checks while the rows go in.
    await target.query('set local session_replication_role = replica');
    for (const p of partitions) {
      await target.query(`create table if not exists ${ident(p.name)} partition of ${ident(p.parent)} ${p.bound}`);
    }
    await target.query(`truncate ${tables.map((t) => ident(t.name)).join(', ')}`);
    for (const t of tables) {
      const out = source.query(copyTo(`copy (select ${t.columns} from ${ident(t.name)}) to stdout`));
      const into = target.query(copyFrom(`copy ${ident(t.name)} (${t.columns}) from stdin`));
      await pipeline(out, into);
    }
    const { rows: sequences } = await source.query<{ name: string; value: string; called: boolean }>(
      `select sequencename as name, last_value::text as value, last_value is not null as called
         from pg_sequences where schemaname = 'public'`,
    );
    for (const s of sequences) {
      if (s.called) await target.query('select setval($1::regclass, $2::bigint, true)', [ident(s.name), s.value]);
    }
    await target.query('commit');
  } finally {
    await source.end();
    await target.end();
  }
}

/** The transaction id this server gives next (`pg_snapshot_xmax` of a current snapshot). */
export async function nextTransactionId(url: string): Promise<bigint> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ xmax: string }>('select pg_snapshot_xmax(pg_current_snapshot())::text as xmax');
    return BigInt(rows[0]?.xmax ?? '0');
  } finally {
    await client.end();
  }
}

/** Uses up transaction ids on `url` until the next one is at least `next` (a server that has run for a while). */
export async function advanceTransactionIds(url: string, next: bigint): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('set synchronous_commit = off');
    for (;;) {
      const { rows } = await client.query<{ xmax: string }>('select pg_snapshot_xmax(pg_current_snapshot())::text as xmax');
      const left = next - BigInt(rows[0]?.xmax ?? '0');
      if (left <= 0n) return;
      const n = Number(left < 20_000n ? left : 20_000n);
      // One transaction id per loop: each commits its own.
      await client.query(`do $$ begin for i in 1..${n} loop perform pg_current_xact_id(); commit; end loop; end $$`);
    }
  } finally {
    await client.end();
  }
}
