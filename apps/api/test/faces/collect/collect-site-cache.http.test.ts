import { randomBytes } from 'node:crypto';
import type { PageReport } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Deps } from '../../../src/core/deps.ts';
import { bumpSitesGeneration } from '../../../src/core/hot/generations.ts';
import { collectBudgets } from '../../../src/faces/collect/budget.ts';
import { siteOfReport } from '../../../src/faces/collect/identify.ts';
import { siteCache } from '../../../src/faces/collect/site-cache.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';

// The collector caches sites by public key; a change made through the API must reach it within about a second.
describe('collector site cache', () => {
  let t: TestServer;
  let auth: string;
  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    const { token } = await createToken(t.deps, {
      userId: user.id,
      workspaceId: workspace.id,
      scopes: ['sites:read', 'sites:write'],
    });
    auth = `Bearer ${token}`;
  });
  afterAll(() => t.close());

  const report = (pk: string, host: string) =>
    t.request
      .post('/collect')
      .set('Content-Type', 'text/plain')
      .set('Origin', `https://${host}`)
      .send(
        JSON.stringify({
          t: 'pv',
          k: pk,
          u: `https://${host}/`,
          id: randomBytes(8).toString('hex'),
          r: '',
          w: 1000,
          l: 'en',
          z: 'UTC',
          n: 1,
        }),
      );

  /** The status of a report, asked until it is `status`: the collector looks at the sites' generation at most once a second. */
  const reportUntil = (pk: string, host: string, status: number) =>
    expect.poll(async () => (await report(pk, host)).status).toBe(status);

  async function newSite(hostnames: string[]) {
    const res = await t.request.post('/v1/sites').set('Authorization', auth).send({ name: 'Cache', hostnames }).expect(201);
    const keys = await t.request.get(`/v1/sites/${res.body.site.id}/keys`).set('Authorization', auth).expect(200);
    const pub = keys.body.keys.find((k: { kind: string }) => k.kind === 'public');
    return { id: res.body.site.id as string, pk: pub.value as string, keyId: pub.id as string };
  }

  it('stops accepting a removed hostname and accepts an added one', async () => {
    const site = await newSite(['a.cache.example', 'b.cache.example']);
    await report(site.pk, 'b.cache.example').expect(202);
    await report(site.pk, 'c.cache.example').expect(403);
    await t.request.delete(`/v1/sites/${site.id}/hostnames/b.cache.example`).set('Authorization', auth).expect(204);
    await t.request
      .post(`/v1/sites/${site.id}/hostnames`)
      .set('Authorization', auth)
      .send({ hostname: 'c.cache.example' })
      .expect(201);
    await reportUntil(site.pk, 'b.cache.example', 403);
    await report(site.pk, 'c.cache.example').expect(202);
  });

  it('refuses a rotated public key and a deleted site', async () => {
    const site = await newSite(['d.cache.example']);
    await report(site.pk, 'd.cache.example').expect(202);
    const rotated = await t.request.post(`/v1/sites/${site.id}/keys/${site.keyId}/rotate`).set('Authorization', auth).expect(200);
    await reportUntil(site.pk, 'd.cache.example', 404);
    await report(rotated.body.key.value, 'd.cache.example').expect(202);
    await t.request.delete(`/v1/sites/${site.id}`).set('Authorization', auth).expect(204);
    await reportUntil(rotated.body.key.value, 'd.cache.example', 404);
  });

  it('keeps taking reports for cached sites while the change counter cannot be read, and sees changes once it can', async () => {
    const site = await newSite(['d.cache.example', 'e.cache.example']);
    await report(site.pk, 'e.cache.example').expect(202);
    const hot = t.deps.hot;
    const get = hot.get.bind(hot);
    let failedReads = 0;
    hot.get = (key: string) => {
      if (key !== 'sites:generation') return get(key);
      failedReads += 1;
      return Promise.reject(new Error('store gone'));
    };
    try {
      await t.request.delete(`/v1/sites/${site.id}/hostnames/e.cache.example`).set('Authorization', auth).expect(204);
      // Reports go on until one has made the collector try the counter (at most once a second) and fail:
      // the change cannot be seen, the cached site answers as it was, and nothing fails.
      await vi.waitFor(
        async () => {
          await report(site.pk, 'e.cache.example').expect(202);
          expect(failedReads).toBeGreaterThan(0);
        },
        { timeout: 10_000, interval: 100 },
      );
      await report(site.pk, 'e.cache.example').expect(202);
      await report(site.pk, 'd.cache.example').expect(202);
    } finally {
      hot.get = get;
    }
    await reportUntil(site.pk, 'e.cache.example', 403);
  });

  /**
   * A site cache on the server's database and hot store, on a clock the test moves, counting its lookups; with a
   * `gate`, each query of a lookup waits for `gate.open` as it is when the query is sent.
   */
  function countedCache(gate?: { open: Promise<void> }) {
    let lookups = 0;
    let at = Date.now();
    const orm = new Proxy(t.deps.orm, {
      get(target, prop) {
        if (prop !== 'em') return Reflect.get(target, prop);
        return {
          fork: () => {
            lookups += 1;
            const em = target.em.fork();
            if (!gate) return em;
            return new Proxy(em, {
              get(real, name) {
                const value = Reflect.get(real, name);
                return typeof value === 'function'
                  ? async (...args: unknown[]) => {
                      await gate.open;
                      return value.apply(real, args);
                    }
                  : value;
              },
            });
          },
        };
      },
    });
    const cache = siteCache({ ...t.deps, orm } as Deps, { now: () => at });
    return { cache, lookups: () => lookups, advance: (ms: number) => (at += ms) };
  }

  it('looks a busy site up once when its entry expires, not once per report waiting for it', async () => {
    const site = await newSite(['f.cache.example']);
    const c = countedCache();
    expect((await c.cache.siteFor(site.pk)).site?.id).toBe(site.id);
    expect(c.lookups()).toBe(1);
    c.advance(61_000);
    // Reports of a busy site arriving together right after its entry expired.
    const answers = await Promise.all(Array.from({ length: 100 }, () => c.cache.siteFor(site.pk)));
    expect(answers.every((a) => a.site?.id === site.id && a.hostnames.has('f.cache.example'))).toBe(true);
    expect(c.lookups()).toBe(2);
  });

  // One busy address (an office's NAT, a proxy) sends a site's reports while its entry is looked up again (it expired
  // during a slow query): the reports that wait on that lookup make no lookup of their own, so they cost the address's
  // budget of unknown-key lookups nothing. Each counted one before, and past 120 in the minute they were refused 429.
  it('counts no lookup against an address for reports that join the lookup under way', async () => {
    const site = await newSite(['j.cache.example']);
    const gate = { open: Promise.resolve() };
    const c = countedCache(gate);
    await c.cache.siteFor(site.pk);
    // The entry expires, and its next lookup is a slow query: held until the reports below have arrived.
    let release = () => {};
    gate.open = new Promise<void>((r) => {
      release = r;
    });
    c.advance(61_000);
    const budgets = collectBudgets(
      t.deps.hot,
      {
        reportsPerAddress: 1e9,
        reportsPerSite: 1e9,
        batchesPerSite: 1e9,
        secretLookupsPerAddress: 120,
        keyLookupsPerAddress: 120,
      },
      t.deps.logger,
    );
    const pageReport: PageReport = {
      t: 'pv',
      k: site.pk,
      u: 'https://j.cache.example/',
      id: 'joining01',
      r: '',
      w: 1000,
      l: 'en',
      z: 'UTC',
      n: 1,
    };
    const send = () =>
      siteOfReport(c.cache, pageReport, 'https://j.cache.example', {
        budgets,
        ip: '198.51.100.7',
      });
    const first = send(); // the first report after the entry expired: the lookup starts
    await vi.waitFor(() => expect(c.lookups()).toBe(2));
    const waiting = Array.from({ length: 300 }, send);
    release();
    const answers = await Promise.allSettled([first, ...waiting]);
    expect(answers.filter((a) => a.status === 'rejected').map((a) => String(a.reason))).toEqual([]);
    expect(answers.every((a) => a.status === 'fulfilled' && a.value.site.id === site.id)).toBe(true);
    expect(c.lookups()).toBe(2);
    // The workspace's plan keeps five sites: this one makes room for the next test's.
    await t.request.delete(`/v1/sites/${site.id}`).set('Authorization', auth).expect(204);
  });

  it('refreshes a site in use before its entry expires, while reports go on with the entry', async () => {
    const site = await newSite(['g.cache.example']);
    const c = countedCache();
    await c.cache.siteFor(site.pk);
    c.advance(55_000);
    await Promise.all(Array.from({ length: 20 }, () => c.cache.siteFor(site.pk)));
    expect(c.lookups()).toBe(2);
    c.advance(20_000); // 75 s after the first lookup: only the refreshed entry (looked up at 55 s) is still live
    await vi.waitFor(() => expect(c.cache.knowsKey(site.pk)).toBe(true)); // the background lookup has ended
    expect((await c.cache.siteFor(site.pk)).site?.id).toBe(site.id);
    expect(c.lookups()).toBe(2);
  });

  // The attack: a tenant with `sites:write` changing something of its own in a loop (an annotation a second).
  // Every such change told every node to drop its whole site cache, so every tenant's reports, gate decisions and
  // proxied requests went back to the database. Now a node forgets only the site that changed.
  it("forgets only the changed site: another tenant's changes cost this site no lookup", async () => {
    const victim = await newSite(['h.cache.example']);
    const other = await createUser(t.deps);
    const { token } = await createToken(t.deps, {
      userId: other.user.id,
      workspaceId: other.workspace.id,
      scopes: ['sites:read', 'sites:write'],
    });
    const otherAuth = `Bearer ${token}`;
    const own = await t.request.post('/v1/sites').set('Authorization', otherAuth).send({ name: 'Loop' }).expect(201);
    const c = countedCache();
    expect((await c.cache.siteFor(victim.pk)).site?.id).toBe(victim.id);
    expect(c.lookups()).toBe(1);
    for (let i = 0; i < 5; i++) {
      await t.request
        .post(`/v1/sites/${own.body.site.id}/annotations`)
        .set('Authorization', otherAuth)
        .send({ day: '2026-11-01', text: `deploy ${i}` })
        .expect(201);
      c.advance(1_100);
      expect((await c.cache.siteFor(victim.pk)).site?.id).toBe(victim.id);
    }
    expect(c.lookups()).toBe(1);
    // A change of the victim's own site is seen at the next look.
    await t.request
      .post(`/v1/sites/${victim.id}/hostnames`)
      .set('Authorization', auth)
      .send({ hostname: 'i.cache.example' })
      .expect(201);
    c.advance(1_100);
    expect((await c.cache.siteFor(victim.pk)).hostnames.has('i.cache.example')).toBe(true);
    expect(c.lookups()).toBe(2);
    // A new site names itself: nothing the node holds is forgotten (it forgot every site, and a loop of new sites
    // kept every tenant's reports on the database).
    await t.request.post('/v1/sites').set('Authorization', otherAuth).send({ name: 'Another' }).expect(201);
    c.advance(1_100);
    await c.cache.siteFor(victim.pk);
    expect(c.lookups()).toBe(2);
    // A step naming no site makes the node forget every site.
    await bumpSitesGeneration(t.deps.hot);
    c.advance(1_100);
    await c.cache.siteFor(victim.pk);
    expect(c.lookups()).toBe(3);
  });
});
