import { randomUUID } from 'node:crypto';
import { createOrm, ensurePartitions, insertRowsTallied, pageviewRow } from '@us/db';
const orm = await createOrm(process.argv[3], { poolMax: 4 });
const conn = orm.em.getConnection();
const ws = await conn.execute<{ id: string }[]>(`select id from workspaces limit 1`);
const siteId = randomUUID();
await conn.execute(`insert into sites (id, workspace_id, name, timezone, settings, internal_key, created_at) values (?, ?, 'x', 'UTC', '{}', md5(random()::text), now())`, [siteId, ws[0].id]);
const tricky = ['/a"b', '/back\\slash', '/{braces}', '/a,b', 'NULL', '/ spaced ', '/ünï-😀', `/${'x'.repeat(2000)}`];
const off = Number(process.argv[2]);
const at = new Date(Date.now() + off * 86400000);
const rows = tricky.map((path) => pageviewRow(siteId, at, { id: randomUUID(), path }));
const p = ensurePartitions(orm, { from: new Date(Date.now() + (off - 1) * 86400000), daysAhead: 9 });
try { console.log((await insertRowsTallied(orm, 'pageviews', rows)).inserted); } catch (e) { console.log('ERR', (e as Error).message); }
await p;
console.log((await conn.execute(`select id, path from pageviews where site_id = ?`, [siteId])).length);
await orm.close();
