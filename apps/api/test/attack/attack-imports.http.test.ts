import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../src/features/imports/imports-job.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { siteOfNewOwner } from '../support/sites.ts';
import { insertRows, pv } from '../support/stats-fixture.ts';

/**
 * Imports against what a stranger can send: a body declared past 200 MB is refused before it is read (the
 * server answers after a few megabytes at most and closes the connection), a CSV of 10,000 bad rows costs
 * a bounded answer (every bad row counted, 100 named), and meanwhile another site is answered with its
 * traffic counted.
 */
describe('imports under attack', () => {
  let t: TestServer;
  let attacker: Awaited<ReturnType<typeof siteOfNewOwner>>;
  let bystander: Awaited<ReturnType<typeof siteOfNewOwner>>;
  const scopes = ['sites:read', 'sites:write', 'analytics:read'] as const;

  beforeAll(async () => {
    t = await startTestServer();
    attacker = await siteOfNewOwner(t, { name: 'Attacker', scopes: [...scopes] });
    bystander = await siteOfNewOwner(t, { name: 'Bystander', scopes: [...scopes] });
    await insertRows(t.deps.orm, 'pageviews', [pv(bystander.siteId, new Date(), { path: '/still-here' })]);
  });
  afterAll(() => t?.close());

  const newImport = async () =>
    (
      await t.request
        .post(`/v1/sites/${attacker.siteId}/imports`)
        .set('Authorization', attacker.auth)
        .send({ source: 'plausible' })
        .expect(201)
    ).body.id as string;

  const bystanderToday = () =>
    t.request
      .get(`/v1/sites/${bystander.siteId}/stats`)
      .query({ metrics: 'pageviews', days: 1 })
      .set('Authorization', bystander.auth);

  it('a body declared past 200 MB is answered 413 after a few megabytes at most, and nothing is stored', async () => {
    const id = await newImport();
    const url = new URL(`${t.url}/v1/sites/${attacker.siteId}/imports/${id}/files/imported_pages_20240101_20240102.csv`);
    const chunk = Buffer.alloc(256 * 1024, 'a');
    let sent = 0;
    const status = await new Promise<number | 'closed'>((resolve) => {
      const req = request(url, {
        method: 'PUT',
        headers: { authorization: attacker.auth, 'content-length': String(210 * 1024 * 1024) },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      req.on('error', () => resolve('closed'));
      const pump = () => {
        while (sent < 210 * 1024 * 1024 && !req.destroyed) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
      };
      pump();
    });
    // Either the 413 was read, or the server closed the connection before taking the body.
    if (status !== 'closed') expect(status).toBe(413);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
    const imp = await t.request.get(`/v1/sites/${attacker.siteId}/imports/${id}`).set('Authorization', attacker.auth).expect(200);
    expect(imp.body.files).toEqual([]);
    await bystanderToday().expect(200);
  });

  it('10,000 bad rows: all counted, 100 named, and another site is answered meanwhile', async () => {
    const id = await newImport();
    const lines = ['date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors'];
    for (let i = 0; i < 10_000; i++) lines.push(`2024-01-01,example.com,/p${i},1,1,-${i},,0`);
    const base = `/v1/sites/${attacker.siteId}/imports/${id}`;
    await t.request
      .put(`${base}/files/imported_pages_20240101_20240102.csv`)
      .set('Authorization', attacker.auth)
      .send(`${lines.join('\n')}\n`)
      .expect(200);
    await t.request.post(`${base}/start`).set('Authorization', attacker.auth).send({}).expect(202);
    const [, answered] = await Promise.all([runImport(t.deps.orm, id), bystanderToday().expect(200)]);
    expect(answered.body.totals.pageviews).toBe(1);
    const imp = await t.request.get(base).set('Authorization', attacker.auth).expect(200);
    expect(imp.body).toMatchObject({ status: 'done', progress: { rowsRead: 10_000, rowsStored: 0, badRows: 10_000 } });
    expect(imp.body.badRowSamples).toHaveLength(100);
    expect(imp.body.badRowSamples[99]).toEqual({
      file: 'imported_pages_20240101_20240102.csv',
      line: 101,
      reason: 'pageviews "-99" is not a whole number',
    });
    expect(JSON.stringify(imp.body).length).toBeLessThan(20_000);
  });
});
