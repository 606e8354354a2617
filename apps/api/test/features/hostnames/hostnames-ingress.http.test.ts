import { randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INGRESS_CHECKS_PER_RUN, type IngressRun } from '../../../src/features/hostnames/ingress-job.ts';
import { JOBS } from '../../../src/jobs/job-table.ts';
import { expectProblemCode } from '../../support/auth-helpers.ts';
import { type DnsStandIn, startDnsServer } from '../../support/dns-server.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { createSite, ownerWithSite } from '../../support/sites.ts';

const uniqueHost = (tag = 'shop') => `${tag}.i${randomBytes(5).toString('hex')}.example.test`;
const ORIGIN = 'https://origin.example.test';
const INGRESS = 'proxy.ingress.example.test';
const INGRESS_ADDRESSES = ['192.0.2.10', '2001:db8::10'];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('proxy-mode hostnames on the built-in ingress (no edge platform)', () => {
  let t: TestServer;
  let dns: DnsStandIn;
  const job = JOBS.find((j) => j.name === 'proxy hostnames');

  beforeAll(async () => {
    dns = await startDnsServer();
    dns.setAddresses(INGRESS, INGRESS_ADDRESSES);
    t = await startTestServer({ env: { DNS_SERVERS: dns.address, PROXY_CNAME_TARGET: INGRESS } });
  });
  afterAll(async () => {
    await t.close();
    await dns.close();
  });

  const add = (auth: string, siteId: string, body: unknown) =>
    t.request
      .post(`/v1/sites/${siteId}/hostnames`)
      .set('Authorization', auth)
      .send(body as object);
  const get = (auth: string, siteId: string, hostname: string) =>
    t.request.get(`/v1/sites/${siteId}/hostnames/${hostname}`).set('Authorization', auth).expect(200);
  const verify = (auth: string, siteId: string, hostname: string) =>
    t.request.post(`/v1/sites/${siteId}/hostnames/${hostname}/verify`).set('Authorization', auth).expect(200);
  /** One run of the job as the scheduler runs it, on these sites only (the database is shared), at `now`. */
  const runJob = (siteIds: string[], now: Date) =>
    job?.run({ orm: t.deps.orm, proxyIngress: t.deps, siteIds, now: () => now }) as Promise<IngressRun>;
  const rowOf = (siteId: string, hostname: string) =>
    t.deps.orm.em.fork().findOneOrFail(SiteHostname, { site: siteId, hostname });
  /** The records the customer is told to set. */
  const recordsOf = (host: string, token: string) => ({
    cname: { type: 'CNAME', name: host, value: INGRESS, purpose: 'traffic' },
    txt: { type: 'TXT', name: `_svc.${host}`, value: `svc-verify=${token}`, purpose: 'ownership' },
  });
  const setRecords = (host: string, token: string) => {
    dns.setTxt(`_svc.${host}`, [`svc-verify=${token}`]);
    dns.setCname(host, INGRESS);
  };

  it('runs every minute, and only with what it needs', () => {
    expect(job?.every({ orm: t.deps.orm })).toBe(MINUTE);
    expect(job?.enabled({ orm: t.deps.orm })).toBe(false);
    expect(job?.enabled({ orm: t.deps.orm, proxyIngress: t.deps })).toBe(true);
  });

  it('adds a proxy hostname as pending with the CNAME to the ingress and the ownership TXT record to set', async () => {
    const o = await ownerWithSite(t);
    const host = uniqueHost();
    const res = await add(o.auth, o.site.id, { hostname: host, proxy: true, origin: ORIGIN }).expect(201);
    const { verifyToken } = await rowOf(o.site.id, host);
    const { cname, txt } = recordsOf(host, verifyToken);
    expect(res.body).toEqual({
      hostname: host,
      proxy: { status: 'pending', sslStatus: null, live: true, origin: ORIGIN, records: [cname, txt] },
      verifiedAt: null,
      verification: null,
      createdAt: expect.any(String),
    });
    expect((await get(o.auth, o.site.id, host)).body).toEqual(res.body);
    expect(await rowOf(o.site.id, host)).toMatchObject({ proxy: true, edgeId: null, edgeStatus: 'pending', verifiedAt: null });
  });

  it('the job makes it live once both records are seen; GET then lists only the CNAME to keep', async () => {
    const o = await ownerWithSite(t);
    const host = uniqueHost();
    await add(o.auth, o.site.id, { hostname: host, proxy: true, origin: ORIGIN }).expect(201);
    const { verifyToken } = await rowOf(o.site.id, host);
    const start = new Date();

    // Nothing set yet: looked up, still pending.
    expect(await runJob([o.site.id], start)).toEqual({ checked: 1, live: [] });
    expect(dns.queries).toContain(`_svc.${host}`);
    expect(dns.queries).toContain(host);
    // Ownership alone is not enough: the traffic must come here.
    dns.setTxt(`_svc.${host}`, [`svc-verify=${verifyToken}`]);
    expect(await runJob([o.site.id], new Date(start.getTime() + MINUTE))).toEqual({ checked: 1, live: [] });
    expect((await rowOf(o.site.id, host)).edgeStatus).toBe('pending');

    dns.setCname(host, INGRESS);
    expect(await runJob([o.site.id], new Date(start.getTime() + 2 * MINUTE))).toEqual({ checked: 1, live: [host] });
    const row = await rowOf(o.site.id, host);
    expect(row.edgeStatus).toBe('active');
    expect(row.verifiedAt).toBeInstanceOf(Date);

    const live = await get(o.auth, o.site.id, host);
    expect(live.body.proxy).toEqual({
      status: 'active',
      sslStatus: null,
      live: true,
      origin: ORIGIN,
      records: [recordsOf(host, verifyToken).cname],
    });
    expect(Number.isNaN(Date.parse(live.body.verifiedAt))).toBe(false);
    await verify(o.auth, o.site.id, host).expect(200, { verified: true });
    // Live hostnames are not looked up again.
    expect(await runJob([o.site.id], new Date(start.getTime() + 3 * MINUTE))).toEqual({ checked: 0, live: [] });
    // It is a return target now: Caddy may get a certificate for it.
    await t.request.get('/proxy/tls-ask').query({ domain: host }).expect(200);
  });

  it('an apex name with CNAME flattening is live when all its addresses are the ingress addresses', async () => {
    const o = await ownerWithSite(t, { plan: 'Starter' });
    const apex = `i${randomBytes(5).toString('hex')}.example.test`;
    const mixed = `i${randomBytes(5).toString('hex')}.example.test`;
    for (const host of [apex, mixed]) {
      await add(o.auth, o.site.id, { hostname: host, proxy: true, origin: ORIGIN }).expect(201);
      dns.setTxt(`_svc.${host}`, [`svc-verify=${(await rowOf(o.site.id, host)).verifyToken}`]);
    }
    dns.setAddresses(apex, INGRESS_ADDRESSES);
    // One address elsewhere: part of its traffic would never reach the proxy.
    dns.setAddresses(mixed, ['192.0.2.10', '198.51.100.7']);

    const run = await runJob([o.site.id], new Date());
    expect(run).toEqual({ checked: 2, live: [apex] });
    const notYet = await verify(o.auth, o.site.id, mixed);
    expect(notYet.body.verified).toBe(false);
    expect(notYet.body.message).toContain(`${mixed} points elsewhere`);
    expect(notYet.body.message).toContain(`CNAME record ${mixed} → ${INGRESS}`);
  });

  it('a wrong TXT value, a CNAME to another proxy or a failing DNS server leave it pending', async () => {
    const o = await ownerWithSite(t, { plan: 'Starter' });
    const [wrongTxt, elsewhere, failing] = [uniqueHost('txt'), uniqueHost('cname'), uniqueHost('fail')];
    for (const host of [wrongTxt, elsewhere, failing]) {
      await add(o.auth, o.site.id, { hostname: host, proxy: true, origin: ORIGIN }).expect(201);
      setRecords(host, (await rowOf(o.site.id, host)).verifyToken);
    }
    dns.setTxt(`_svc.${wrongTxt}`, ['svc-verify=someone-else']);
    dns.setCname(elsewhere, 'proxy.another-service.example.test');
    dns.setAddresses('proxy.another-service.example.test', ['203.0.113.5']);
    dns.fail(failing);

    expect(await runJob([o.site.id], new Date())).toEqual({ checked: 3, live: [] });
    for (const host of [wrongTxt, elsewhere, failing]) expect((await rowOf(o.site.id, host)).edgeStatus).toBe('pending');

    const txt = await verify(o.auth, o.site.id, wrongTxt);
    expect(txt.body.message).toMatch(/TXT records at _svc\..* do not include svc-verify=[0-9a-f]{32}/);
    expect((await verify(o.auth, o.site.id, elsewhere)).body.message).toContain(`${elsewhere} points elsewhere`);
    const down = await verify(o.auth, o.site.id, failing);
    expect(down.body).toEqual({
      verified: false,
      message: expect.stringContaining(`DNS lookup of ${failing} failed (ESERVFAIL)`),
    });
  });

  it('POST …/verify checks at once, saying which records are missing, and makes it live', async () => {
    const o = await ownerWithSite(t);
    const host = uniqueHost();
    await add(o.auth, o.site.id, { hostname: host, proxy: true, origin: ORIGIN }).expect(201);
    const { verifyToken } = await rowOf(o.site.id, host);

    const before = await verify(o.auth, o.site.id, host);
    expect(before.body.verified).toBe(false);
    expect(before.body.message).toContain(`add a TXT record named _svc.${host} with the value svc-verify=${verifyToken}`);
    expect(before.body.message).toContain(`point ${host} at the proxy with a CNAME record ${host} → ${INGRESS}`);

    setRecords(host, verifyToken);
    await verify(o.auth, o.site.id, host).expect(200, { verified: true });
    expect((await get(o.auth, o.site.id, host)).body.proxy.status).toBe('active');
    await t.request.get('/proxy/tls-ask').query({ domain: host }).expect(200);
  });

  it('backs off for old pending hostnames: one a few days old is looked up once an hour', async () => {
    const o = await ownerWithSite(t);
    const host = uniqueHost('old');
    await add(o.auth, o.site.id, { hostname: host, proxy: true, origin: ORIGIN }).expect(201);
    const now = Date.now();
    await t.deps.orm.em
      .fork()
      .nativeUpdate(SiteHostname, { site: o.site.id, hostname: host }, { createdAt: new Date(now - 3 * 24 * HOUR) });

    expect(await runJob([o.site.id], new Date(now))).toEqual({ checked: 1, live: [] });
    setRecords(host, (await rowOf(o.site.id, host)).verifyToken);
    // The records are there now, but its next look is an hour after the last.
    for (const minutes of [1, 2, 30, 59]) {
      expect(await runJob([o.site.id], new Date(now + minutes * MINUTE))).toEqual({ checked: 0, live: [] });
    }
    expect((await rowOf(o.site.id, host)).edgeStatus).toBe('pending');
    expect(await runJob([o.site.id], new Date(now + HOUR))).toEqual({ checked: 1, live: [host] });
  });

  it(`checks at most ${INGRESS_CHECKS_PER_RUN} hostnames a run; the rest are looked up in the next`, async () => {
    const o = await ownerWithSite(t, { plan: 'Business' });
    const em = t.deps.orm.em.fork();
    const { site: second } = await createSite(em, { workspace: o.workspace.id, name: 'Second' });
    const sites = [o.site.id, second.id];
    const total = INGRESS_CHECKS_PER_RUN + 5;
    const hosts: string[] = [];
    for (let i = 0; i < total; i++) {
      const host = uniqueHost(`n${i}`);
      hosts.push(host);
      em.create(SiteHostname, {
        site: sites[i % 2] as string,
        hostname: host,
        proxy: true,
        origin: ORIGIN,
        verifyToken: `${i}`.padStart(32, '0'),
        edgeStatus: 'pending',
      });
      setRecords(host, `${i}`.padStart(32, '0'));
    }
    await em.flush();

    const now = new Date();
    const first = await runJob(sites, now);
    expect(first?.checked).toBe(INGRESS_CHECKS_PER_RUN);
    const second_ = await runJob(sites, now);
    expect(second_?.checked).toBe(5);
    expect([...(first?.live ?? []), ...(second_?.live ?? [])].sort()).toEqual([...hosts].sort());
  });

  it('one workspace’s many pending hostnames do not hold back another’s, nor its own oldest ones', async () => {
    // Workspace A adds more proxy hostnames than a run checks and never sets their records (each is looked up
    // every minute in its first hour); workspace B's hostname, two hours old, has its records in place.
    const a = await ownerWithSite(t, { plan: 'Business' });
    const em = t.deps.orm.em.fork();
    const { site: aSecond } = await createSite(em, { workspace: a.workspace.id, name: 'Second' });
    const now = Date.now();
    const pending = (siteId: string, host: string, token: string, createdAt: Date) =>
      em.create(SiteHostname, {
        site: siteId,
        hostname: host,
        proxy: true,
        origin: ORIGIN,
        verifyToken: token,
        edgeStatus: 'pending',
        createdAt,
      });
    const aHosts: string[] = [];
    for (let i = 0; i < INGRESS_CHECKS_PER_RUN + 5; i++) {
      const host = uniqueHost(`a${i}`);
      aHosts.push(host);
      // Made one second apart, the first the oldest.
      pending(i % 2 ? aSecond.id : a.site.id, host, `a${i}`.padStart(32, '0'), new Date(now - (100 - i) * 1000));
    }
    const aOldest = aHosts[0] as string;
    setRecords(aOldest, 'a0'.padStart(32, '0'));
    const b = await ownerWithSite(t, { plan: 'Business' });
    const bHost = uniqueHost('b');
    pending(b.site.id, bHost, 'b'.padStart(32, '0'), new Date(now - 2 * HOUR));
    setRecords(bHost, 'b'.padStart(32, '0'));
    await em.flush();

    const sites = [a.site.id, aSecond.id, b.site.id];
    const first = await runJob(sites, new Date(now));
    expect(first.checked).toBe(INGRESS_CHECKS_PER_RUN);
    expect(first.live).toEqual([bHost]);
    // A minute later every one of A's hostnames is due again: those not looked up yet go first.
    const second = await runJob(sites, new Date(now + MINUTE));
    expect(second.live).toEqual([aOldest]);
    expect((await rowOf(b.site.id, bHost)).edgeStatus).toBe('active');
  });

  it('a new hostname is looked up every minute even behind thousands of old pending ones not due yet', async () => {
    // More old pending hostnames than a run reads (each looked up once a day, the last time within the hour)
    // must not push a hostname added ten minutes ago, looked up two minutes ago, past its next minute.
    const o = await ownerWithSite(t, { plan: 'Business' });
    const em = t.deps.orm.em.fork();
    const { site: second } = await createSite(em, { workspace: o.workspace.id, name: 'Second' });
    const sites = [o.site.id, second.id];
    const now = Date.now();
    const stale = 2001;
    await em.getConnection().execute(
      `insert into site_hostnames (site_id, hostname, proxy, origin, verify_token, edge_status, created_at, ingress_checked_at)
       select (?::uuid[])[1 + i % 2], 'stale' || i || '.i' || ? || '.example.test', true, ?, lpad(i::text, 32, '0'),
              'pending', ?::timestamptz, ?::timestamptz - (3 + i % 57) * interval '1 minute'
         from generate_series(1, ?) as i`,
      [
        `{${sites.join(',')}}`,
        randomBytes(5).toString('hex'),
        ORIGIN,
        new Date(now - 40 * 24 * HOUR - 12 * HOUR),
        new Date(now),
        stale,
      ],
      'run',
    );
    const host = uniqueHost('new');
    em.create(SiteHostname, {
      site: o.site.id,
      hostname: host,
      proxy: true,
      origin: ORIGIN,
      verifyToken: 'y'.padStart(32, '0'),
      edgeStatus: 'pending',
      createdAt: new Date(now - 10 * MINUTE),
      ingressCheckedAt: new Date(now - 2 * MINUTE),
    });
    await em.flush();
    setRecords(host, 'y'.padStart(32, '0'));

    try {
      expect(await runJob(sites, new Date(now))).toEqual({ checked: 1, live: [host] });
      expect((await rowOf(o.site.id, host)).edgeStatus).toBe('active');
    } finally {
      // The database is shared: other suites need not see two thousand pending proxy hostnames.
      await em
        .getConnection()
        .execute('delete from site_hostnames where site_id = any(?::uuid[])', [`{${sites.join(',')}}`], 'run');
    }
  });

  it('keeps the Free allowance (402) and one proxying site per hostname (409)', async () => {
    const free = await ownerWithSite(t);
    const em = t.deps.orm.em.fork();
    const { site: other } = await createSite(em, { workspace: free.workspace.id, name: 'Other' });
    const host = uniqueHost();
    await add(free.auth, free.site.id, { hostname: host, proxy: true, origin: ORIGIN }).expect(201);
    expectProblemCode(await add(free.auth, other.id, { hostname: uniqueHost(), proxy: true, origin: ORIGIN }), 'plan-limit');

    const stranger = await ownerWithSite(t);
    const taken = expectProblemCode(
      await add(stranger.auth, stranger.site.id, { hostname: host, proxy: true, origin: ORIGIN }),
      'conflict',
    );
    expect(taken.title).toMatch(/another site/);
  });

  it('removing a pending hostname stops its checks', async () => {
    const o = await ownerWithSite(t);
    const host = uniqueHost();
    await add(o.auth, o.site.id, { hostname: host, proxy: true, origin: ORIGIN }).expect(201);
    await t.request.delete(`/v1/sites/${o.site.id}/hostnames/${host}`).set('Authorization', o.auth).expect(204);
    expect(await runJob([o.site.id], new Date())).toEqual({ checked: 0, live: [] });
  });
});
