import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  archiveOf,
  bulkyPageviews,
  type ExportAnswer,
  fetchBytes,
  freeDownloadSlots,
  type HeldDownload,
  holdDownload,
  runningCopies,
} from '../support/download.ts';
import { createToken, ownerWithToken } from '../support/server.ts';
import { createSite } from '../support/sites.ts';
import { dayAgo, insertRows, pv, type StatsFixture, statsFixture } from '../support/stats-fixture.ts';

/**
 * One workspace downloading its export as badly as it can (20 downloads at once, over and over: half never
 * read, half go away at once) must not slow other workspaces' stats questions, which share the stats pool
 * with downloads: a workspace's downloads hold at most two of its connections, a client gone has its
 * statement cancelled, a reader that stopped is cut after the idle time (lowered here to 500 ms). Once the
 * attack stops, the workspace's slots come back and a new download works.
 */
describe('export downloads cannot starve other workspaces', () => {
  let f: StatsFixture;
  let exportAuth: string;
  let other: { siteId: string; auth: string };
  const yesterday = dayAgo('UTC', 1);

  beforeAll(async () => {
    f = await statsFixture({ downloadLimits: { idleMs: 500 } });
    exportAuth = `Bearer ${(await createToken(f.t.deps, { userId: f.userId, workspaceId: f.workspaceId, scopes: ['export:read'] })).token}`;
    const o = await ownerWithToken(f.t.deps, ['analytics:read']);
    const em = f.t.deps.orm.em.fork();
    const { siteId } = await createSite(em, { workspace: o.workspace.id, name: 'Other workspace' });
    await insertRows(
      f.t.deps.orm,
      'pageviews',
      Array.from({ length: 200 }, (_, i) => pv(siteId, new Date(`${yesterday}T09:00:00Z`), { path: `/p${i % 20}` })),
    );
    other = { siteId, auth: o.auth };
  });
  afterAll(() => f.close());

  /** The other workspace's questions, one after another: how long each took, and its status. */
  async function askOthers(rounds: number): Promise<{ ms: number; status: number }[]> {
    const out: { ms: number; status: number }[] = [];
    for (let i = 0; i < rounds; i++) {
      for (const ask of [
        () =>
          f.t.request
            .post(`/v1/sites/${other.siteId}/stats/query`)
            .set('Authorization', other.auth)
            .send({ metrics: 'pageviews', by: 'country', days: 7 }),
        () => f.t.request.get(`/v1/sites/${other.siteId}/summary?days=7`).set('Authorization', other.auth),
      ]) {
        const started = performance.now();
        const res = await ask();
        out.push({ ms: performance.now() - started, status: res.status });
      }
    }
    return out;
  }

  it("20 slow or vanishing downloads at once: others' stats stay answered in their usual time, the slots come back", async () => {
    const siteId = await f.site();
    // One large raw file (about 6 MB gzipped) to attack with, and a small one of another hour to download after.
    await insertRows(f.t.deps.orm, 'pageviews', bulkyPageviews(siteId, new Date(`${yesterday}T04:00:00Z`), 4000));
    await insertRows(f.t.deps.orm, 'pageviews', [pv(siteId, new Date(`${yesterday}T05:00:00Z`), { path: '/after' })]);
    const res = await f.t.request.post(`/v1/sites/${siteId}/export`).set('Authorization', exportAuth).send({}).expect(200);
    const files = await archiveOf(f.t, res.body as ExportAnswer);
    const [large, small] = [files[0]?.url as string, files[1]?.url as string];

    const baseline = await askOthers(5);
    expect(baseline.every((q) => q.status === 200)).toBe(true);
    const usual = Math.max(...baseline.map((q) => q.ms));

    let attacking = true;
    /** Slow clients keep their last connection open until the end of the test (the server must cut them). */
    let holding = true;
    let release!: () => void;
    const released = new Promise<void>((r) => {
      release = r;
    });
    const held = new Set<HeldDownload>();
    /** Downloads the large file over and over: a slow client reads nothing, a vanishing one goes at once. */
    const attacker = async (slow: boolean) => {
      while (attacking) {
        const d = holdDownload(large);
        held.add(d);
        const status = await d.status;
        // A slow client holds its connection until the server cuts it or the test lets go.
        if (slow && status === 200 && holding) await Promise.race([d.closed, released]);
        d.abort();
        held.delete(d);
        // Refused (429): the attacker's own pace between tries, not a wait for a result.
        if (status !== 200) await sleep(100);
      }
    };
    // The slow ones first, so they hold both slots before anyone else asks.
    const attackers = Array.from({ length: 10 }, () => attacker(true));
    await expect.poll(() => freeDownloadSlots(f.t, f.workspaceId), { timeout: 15_000, interval: 50 }).toBe(0);
    attackers.push(...Array.from({ length: 10 }, () => attacker(false)));
    const during = await askOthers(10);
    // No new downloads; the slow clients still hold theirs, reading nothing.
    attacking = false;

    expect(during.every((q) => q.status === 200)).toBe(true);
    // Generous: the attack's own work shares two cores with the questions; a starved pool would make
    // them wait for a connection up to the stats timeout (15 s).
    expect(Math.max(...during.map((q) => q.ms))).toBeLessThan(Math.max(10 * usual, 2000));

    // The workspace's slots come back while the slow clients still hold their connections (the server cut
    // them), no statement of its downloads is left, and a new download works.
    await expect.poll(() => freeDownloadSlots(f.t, f.workspaceId), { timeout: 15_000, interval: 100 }).toBe(2);
    expect(await runningCopies(f.t, siteId)).toBe(0);
    const after = await fetchBytes(f.t, small);
    expect(after.status).toBe(200);
    holding = false;
    release();
    for (const d of held) d.abort();
    await Promise.all(attackers);
  });
});
