// Export copies in S3-compatible storage, against s3rver (a local server speaking S3's REST API; the
// service uses the official AWS SDK): the first download streams the file and uploads it, later ones
// are sent to a presigned GET of the object valid until the link's expiry; a store that is down costs
// only the copy; the sweep deletes objects older than a day.
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { copyStoreOf } from '../../../src/features/export/copies.ts';
import { fetchBytes } from '../../support/download.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';
import { insertRows, pv } from '../../support/stats-fixture.ts';

const BUCKET = 'unseen-exports';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}
const KEYS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

describe('export copies in S3-compatible storage', () => {
  let s3rver: S3rver;
  let endpoint: string;
  let t: TestServer;
  let auth: string;
  let workspaceId: string;
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

  beforeAll(async () => {
    // A fixed port, so the store can be stopped and started again at the address the service knows.
    const port = await freePort();
    s3rver = new S3rver({
      port,
      address: '127.0.0.1',
      silent: true,
      directory: mkdtempSync(path.join(tmpdir(), 'us-s3-')),
      configureBuckets: [{ name: BUCKET, configs: [] }],
    });
    await s3rver.run();
    endpoint = `http://127.0.0.1:${port}`;
    t = await startTestServer({
      env: {
        EXPORT_S3_BUCKET: BUCKET,
        EXPORT_S3_ENDPOINT: endpoint,
        EXPORT_S3_PREFIX: 'exports/',
        EXPORT_S3_ACCESS_KEY_ID: KEYS.accessKeyId,
        EXPORT_S3_SECRET_ACCESS_KEY: KEYS.secretAccessKey,
      },
    });
    const { user, workspace } = await createUser(t.deps);
    workspaceId = workspace.id;
    const { token } = await createToken(t.deps, { userId: user.id, workspaceId, scopes: ['export:read'] });
    auth = `Bearer ${token}`;
  });
  afterAll(async () => {
    await t?.close();
    await s3rver?.close();
  });

  const s3 = () => new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: KEYS });
  const exists = async (key: string) =>
    s3()
      .send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))
      .then(
        () => true,
        () => false,
      );

  async function exportedSite() {
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: workspaceId, name: 'S3 site' });
    await insertRows(t.deps.orm, 'pageviews', [
      pv(siteId, new Date(`${day}T07:10:00Z`), { path: '/one' }),
      pv(siteId, new Date(`${day}T07:20:00Z`), { path: '/two' }),
    ]);
    const made = await t.request.post(`/v1/sites/${siteId}/export`).set('Authorization', auth).send({}).expect(200);
    const archiveUrl = made.body.files.find((f: { name: string }) => f.name === 'archive.json').url as string;
    const archive = (await t.request.get(new URL(archiveUrl).pathname).expect(200)).body;
    return { siteId, exportId: made.body.id as string, rawUrl: archive.files[0].url as string };
  }
  const raw = (url: string) => fetchBytes(t, url);

  /** The export of the first test, whose copy the sweep must delete. */
  let firstExport = '';

  it('uploads a file as it is first sent, then sends later downloads to a presigned GET of the copy', async () => {
    const { exportId, rawUrl } = await exportedSite();
    firstExport = exportId;
    const first = await raw(rawUrl).expect(200);
    const lines = gunzipSync(first.body as Buffer)
      .toString()
      .trim()
      .split('\n');
    expect(lines.map((l) => JSON.parse(l).path)).toEqual(['/one', '/two']);
    const key = `exports/${exportId}/archive/pageviews/${day}T07.ndjson.gz`;
    await vi.waitFor(async () => expect(await exists(key)).toBe(true), { timeout: 5000 });

    const again = await t.request.get(new URL(rawUrl).pathname).expect(302);
    const signed = new URL(again.headers.location as string);
    expect(signed.origin).toBe(endpoint);
    expect(signed.pathname).toBe(`/${BUCKET}/${key}`);
    expect(signed.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    expect(Number(signed.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(3600);
    expect(signed.searchParams.get('response-content-disposition')).toContain('filename=');
    const fromStore = Buffer.from(await (await fetch(signed)).arrayBuffer());
    expect(fromStore.equals(first.body as Buffer)).toBe(true);
  });

  it('still answers a download while the store is down, and sweeps day-old objects', async () => {
    const { rawUrl } = await exportedSite();
    await s3rver.close();
    try {
      const res = await raw(rawUrl).expect(200);
      expect(gunzipSync(res.body as Buffer).toString()).toContain('/two');
    } finally {
      await s3rver.run();
    }
    // (The SDK retries the upload, so the copy may still arrive once the store is back.)
    // Objects older than the cut go; with a cut in the past nothing does. The store's own sweep, cut a day ahead: the
    // whole sweep a day ahead also deleted every other suite's export rows of the shared database (their links 404).
    const store = copyStoreOf(t.deps.env);
    expect(await store.sweep(new Date(Date.now() - 3600_000))).toBe(0);
    expect(await store.sweep(new Date(Date.now() + 86_401_000))).toBeGreaterThan(0);
    expect(await exists(`exports/${firstExport}/archive/pageviews/${day}T07.ndjson.gz`)).toBe(false);
  });
});
