// A download holds its slot (and a stats-pool connection) only while its bytes move: a client that goes
// away gets its statement cancelled, and the slot comes back only once that statement has ended; a
// client that stops reading is cut after the idle time; a file still being sent after the per-file time
// limit is cut. Each server here has the limit under test lowered (`downloadLimits`).
//
// "A statement still running" is made deterministic by holding an exclusive lock on the partition the
// file reads, from a connection of the test's own: the file's COPY waits on it.
import { partitionName } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DownloadLimits } from '../../../src/features/export/limits.ts';
import {
  archiveOf,
  bulkyPageviews,
  type ExportAnswer,
  fetchBytes,
  freeDownloadSlots,
  holdDownload,
  lockPartition,
  recordsOf,
  runningCopies,
} from '../../support/download.ts';
import { createToken, createUser } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';
import { dayAgo, insertRows, pv, statsFixture } from '../../support/stats-fixture.ts';

/** A day of its own for the locked partition, so no other suite's rows wait behind the lock. */
const LOCKED_DAY = dayAgo('UTC', 77);
const WAIT = { timeout: 15_000, interval: 100 };

async function exportServer(limits: Partial<DownloadLimits> & { atOnceOnNode?: number }) {
  const f = await statsFixture({ downloadLimits: limits });
  const { token } = await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['export:read'] });
  const exportOf = async (siteId: string, body: Record<string, unknown> = {}) =>
    (await f.t.request.post(`/v1/sites/${siteId}/export`).set('Authorization', `Bearer ${token}`).send(body).expect(200))
      .body as ExportAnswer;
  /** A site with a few pageviews on the locked day: the link of its one raw-record file. */
  const lockableFile = async () => {
    const siteId = await f.site();
    await insertRows(f.t.deps.orm, 'pageviews', [pv(siteId, new Date(`${LOCKED_DAY}T10:05:00Z`), { path: '/locked' })]);
    const [file] = await archiveOf(f.t, await exportOf(siteId, { from: LOCKED_DAY, to: LOCKED_DAY }));
    return { siteId, url: file?.url as string };
  };
  return { f, exportOf, lockableFile };
}

describe('a download that ends early', () => {
  let s: Awaited<ReturnType<typeof exportServer>>;
  beforeAll(async () => {
    // The idle time lowered; the per-file limit stays at its 15 minutes.
    s = await exportServer({ idleMs: 300 });
  });
  afterAll(() => s.f.close());

  it('a client that goes away gets its statement cancelled, and its slot back only once the statement has ended', async () => {
    const { siteId, url } = await s.lockableFile();
    const unlock = await lockPartition(partitionName('pageviews', new Date(`${LOCKED_DAY}T00:00:00Z`)));
    try {
      const held = holdDownload(url);
      await expect.poll(() => runningCopies(s.f.t, siteId), WAIT).toBe(1);
      expect(await freeDownloadSlots(s.f.t, s.f.workspaceId)).toBe(1);
      held.abort();
      await expect.poll(() => freeDownloadSlots(s.f.t, s.f.workspaceId), WAIT).toBe(2);
      // The slot came back because the statement ended, not before: the lock is still held.
      expect(await runningCopies(s.f.t, siteId)).toBe(0);
    } finally {
      await unlock();
    }
    // Nothing of the cut file was kept: the next download writes it whole.
    expect((await recordsOf(s.f.t, url)).map((r) => r.path)).toEqual(['/locked']);
  });

  it('a client that stops reading is cut after the idle time; its slot comes back and its statement ends', async () => {
    const siteId = await s.f.site();
    const at = new Date(`${dayAgo('UTC', 1)}T03:00:00Z`);
    // About 6 MB gzipped: more than every buffer between the server and a client that reads nothing.
    await insertRows(s.f.t.deps.orm, 'pageviews', bulkyPageviews(siteId, at, 4000));
    const [file] = await archiveOf(s.f.t, await s.exportOf(siteId));
    const held = holdDownload(file?.url as string);
    await expect.poll(() => freeDownloadSlots(s.f.t, s.f.workspaceId), WAIT).toBe(1);
    // Cut: the slot is back and the statement is over, though the client never closed its connection.
    await expect.poll(() => freeDownloadSlots(s.f.t, s.f.workspaceId), WAIT).toBe(2);
    expect(await runningCopies(s.f.t, siteId)).toBe(0);
    const outcome = await held.finish();
    expect(outcome.status).toBe(200);
    expect(outcome.complete).toBe(false);
    // A reader that reads gets the whole file.
    expect((await recordsOf(s.f.t, file?.url as string)).length).toBe(4000);
  });
});

describe('a file that takes longer than the per-file time limit', () => {
  let s: Awaited<ReturnType<typeof exportServer>>;
  beforeAll(async () => {
    s = await exportServer({ fileMs: 1500 });
  });
  afterAll(() => s.f.close());

  it('is cut: the client gets no file, the statement is cancelled and the slot comes back', async () => {
    const { siteId, url } = await s.lockableFile();
    const unlock = await lockPartition(partitionName('pageviews', new Date(`${LOCKED_DAY}T00:00:00Z`)));
    let held: ReturnType<typeof holdDownload>;
    try {
      held = holdDownload(url);
      await expect.poll(() => runningCopies(s.f.t, siteId), WAIT).toBe(1);
      // Still locked: only the limit can end it.
      await expect.poll(() => freeDownloadSlots(s.f.t, s.f.workspaceId), WAIT).toBe(2);
      expect(await runningCopies(s.f.t, siteId)).toBe(0);
      await expect.poll(() => held.ended, WAIT).toBe(true);
    } finally {
      await unlock();
    }
    expect((await held.finish()).complete).toBe(false);
    expect((await recordsOf(s.f.t, url)).map((r) => r.path)).toEqual(['/locked']);
  });
});

// The attack: each file being written holds a stats-pool connection while its client reads; two a workspace, but
// a few workspaces' slow downloads held the whole pool every tenant's dashboard asks on.
describe('files being written at once on a node, over every workspace', () => {
  let s: Awaited<ReturnType<typeof exportServer>>;
  beforeAll(async () => {
    s = await exportServer({ atOnceOnNode: 1 });
  });
  afterAll(() => s.f.close());

  it('past the node’s share another workspace’s file is 503 with Retry-After, and is written once one ends', async () => {
    const other = await createUser(s.f.t.deps);
    const em = s.f.t.deps.orm.em.fork();
    const otherSite = (await createSite(em, { workspace: other.workspace.id, name: 'Other site' })).siteId;
    const day = dayAgo('UTC', 5);
    await insertRows(s.f.t.deps.orm, 'pageviews', [pv(otherSite, new Date(`${day}T10:00:00Z`), { path: '/other' })]);
    const { token } = await createToken(s.f.t.deps, {
      userId: other.user.id,
      workspaceId: other.workspace.id,
      scopes: ['export:read'],
    });
    const answer = await s.f.t.request
      .post(`/v1/sites/${otherSite}/export`)
      .set('Authorization', `Bearer ${token}`)
      .send({ from: day, to: day })
      .expect(200);
    const [otherFile] = await archiveOf(s.f.t, answer.body as ExportAnswer);

    const { siteId, url } = await s.lockableFile();
    const unlock = await lockPartition(partitionName('pageviews', new Date(`${LOCKED_DAY}T00:00:00Z`)));
    let held: ReturnType<typeof holdDownload> | undefined;
    try {
      held = holdDownload(url);
      await expect.poll(() => runningCopies(s.f.t, siteId), WAIT).toBe(1);
      const busy = await fetchBytes(s.f.t, otherFile?.url as string);
      expect(busy.status, busy.body.toString()).toBe(503);
      expect(busy.headers['retry-after']).toBe('5');
      held.abort();
      await expect.poll(() => runningCopies(s.f.t, siteId), WAIT).toBe(0);
    } finally {
      await unlock();
    }
    await expect.poll(async () => (await fetchBytes(s.f.t, otherFile?.url as string)).status, WAIT).toBe(200);
    expect((await recordsOf(s.f.t, otherFile?.url as string)).map((r) => r.path)).toEqual(['/other']);
  });
});
