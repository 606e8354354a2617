import { randomBytes } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect } from 'node:tls';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Caddy, hasCaddy, startCaddy } from '../support/caddy.ts';
import { BROWSER_UA, type CollectSite, collectSite, pageReport } from '../support/collect.ts';
import { type DnsStandIn, startDnsServer } from '../support/dns-server.ts';
import { type Origin, startOrigin } from '../support/proxy.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { ownerWithSite } from '../support/sites.ts';

const INGRESS = 'ingress.caddy-test.example';
const PUBLIC_HOST = 'stats.caddy-test.example';
const uniqueHost = (tag: string) => `${tag}.c${randomBytes(5).toString('hex')}.example.test`;

type Handshake = { ok: true; authorized: boolean; names: string } | { ok: false; error: string };

const caddyMissing = !hasCaddy();
// Locally a machine without caddy skips this file; CI installs it (.ci/run), so there it must run.
const skip = caddyMissing && !process.env.CI;

/**
 * The built-in ingress for real: the Debian package's `caddy` running infra/caddy/Caddyfile (certificates
 * from its local CA instead of ACME) in front of the real service, which answers Caddy's on-demand `ask`.
 */
describe.skipIf(skip)(`Caddy's on-demand TLS in front of the service${skip ? ' (skipped: caddy is not on PATH)' : ''}`, () => {
  let t: TestServer;
  let dns: DnsStandIn;
  let caddy: Caddy;
  let origin: Origin;
  let auth = '';
  let siteId = '';
  const live = uniqueHost('live');
  const pending = uniqueHost('pending');

  beforeAll(async () => {
    if (caddyMissing) throw new Error('caddy is not on PATH: CI installs it (.ci/run); locally: apt-get install caddy');
    dns = await startDnsServer();
    origin = await startOrigin();
    dns.setAddresses(INGRESS, ['192.0.2.80']);
    t = await startTestServer({ env: { DNS_SERVERS: dns.address, PROXY_CNAME_TARGET: INGRESS, TRUST_PROXY: 'true' } });
    const o = await ownerWithSite(t, { plan: 'Starter' });
    auth = o.auth;
    siteId = o.site.id;
    // Both added as a customer would; only `live` has its records in DNS and is checked.
    for (const hostname of [live, pending]) {
      await t.request
        .post(`/v1/sites/${siteId}/hostnames`)
        .set('Authorization', auth)
        .send({ hostname, proxy: true, origin: origin.url })
        .expect(201);
    }
    const row = await t.deps.orm.em.fork().findOneOrFail(SiteHostname, { site: siteId, hostname: live });
    dns.setTxt(`_svc.${live}`, [`svc-verify=${row.verifyToken}`]);
    dns.setCname(live, INGRESS);
    await t.request
      .post(`/v1/sites/${siteId}/hostnames/${live}/verify`)
      .set('Authorization', auth)
      .expect(200, { verified: true });
    caddy = await startCaddy({ servicePort: Number(new URL(t.url).port), publicHost: PUBLIC_HOST });
  }, 60_000);
  afterAll(async () => {
    await caddy?.stop();
    await t?.close();
    await dns?.close();
    await origin?.close();
  });

  /** A TLS handshake with Caddy naming `servername`, trusting Caddy's local root only. */
  const handshake = (servername: string) =>
    new Promise<Handshake>((resolve) => {
      const socket = tlsConnect({ host: '127.0.0.1', port: caddy.httpsPort, servername, ca: caddy.rootCa });
      socket.once('secureConnect', () => {
        const names = socket.getPeerCertificate().subjectaltname ?? '';
        resolve({ ok: true, authorized: socket.authorized, names });
        socket.end();
      });
      socket.once('error', (err) => resolve({ ok: false, error: err.message }));
    });

  /** `method` `path` through Caddy on `hostname` (TLS server name and Host), with `body` and `headers` if given. */
  const send = (method: string, hostname: string, path: string, opts: { body?: string; headers?: Record<string, string> } = {}) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
      const req = httpsRequest(
        {
          method,
          host: '127.0.0.1',
          port: caddy.httpsPort,
          servername: hostname,
          ca: caddy.rootCa,
          path,
          headers: { host: hostname, ...opts.headers },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => {
            body += c;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      );
      req.once('error', reject);
      req.end(opts.body);
    });
  /** GET `path` through Caddy on `hostname`. */
  const get = (hostname: string, path: string) => send('GET', hostname, path);

  it('gets a certificate for a live proxy hostname, for that name, signed by the CA it uses', async () => {
    const hello = await handshake(live);
    expect(hello, caddy.log()).toEqual({ ok: true, authorized: true, names: `DNS:${live}` });
  });

  it("carries the live hostname's requests to the service with their Host", async () => {
    // An internal link is followed only on a hostname of its site: the Host reached the service unchanged.
    const link = await t.request
      .post(`/v1/sites/${siteId}/internal-link`)
      .set('Authorization', auth)
      .send({ hostname: live })
      .expect(201);
    const url = new URL(link.body.url as string);
    expect(url.hostname).toBe(live);
    const res = await get(live, `${url.pathname}${url.search}`);
    expect(res.status, res.body).toBe(200);
    expect(String(res.headers['set-cookie'])).toMatch(/^us_internal=v1\./);
    // Without a hostname of any site behind it the same path is refused: it is the Host that counted.
    const other = await get(PUBLIC_HOST, `${url.pathname}${url.search}`);
    expect(other.status).toBe(404);
  });

  it("forwards the live hostname's pages to its origin, with the forwarding headers set by the proxy", async () => {
    const res = await get(live, '/shop?item=7');
    expect(res.status, res.body).toBe(200);
    expect(res.body).toBe('origin GET /shop?item=7');
    const [seen] = origin.got('/shop?item=7');
    // The client as Caddy saw it (127.0.0.1), over HTTPS, asking for the customer's hostname.
    expect(seen?.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen?.headers['x-forwarded-proto']).toBe('https');
    expect(seen?.headers['x-forwarded-host']).toBe(live);
    // Recorded with the TLS version Caddy negotiated (X-Forwarded-Tls from the trusted hop), never the client's say.
    await expect
      .poll(async () => {
        await t.deps.ingest.flushNow();
        const rows = await t.deps.orm.em
          .fork()
          .execute<{ tls: string | null }[]>(`select tls from requests where site_id = ? and path = '/shop'`, [siteId]);
        return rows.map((r) => r.tls);
      })
      .toEqual(['TLSv1.3']);
  });

  it('gives no certificate for a pending proxy hostname, nor for a name nobody registered', async () => {
    for (const name of [pending, uniqueHost('stranger'), INGRESS]) {
      const hello = await handshake(name);
      expect(hello.ok, `${name}: ${JSON.stringify(hello)}`).toBe(false);
    }
    // The live one is still served meanwhile.
    expect(await handshake(live)).toMatchObject({ ok: true, authorized: true });
  });

  it("records a page report brought to the service's own hostname with the TLS version Caddy negotiated, never the client's claim", async () => {
    const site: CollectSite = await collectSite(t, uniqueHost('shop'));
    const report = pageReport(site);
    const res = await send('POST', PUBLIC_HOST, '/collect', {
      body: JSON.stringify(report),
      // A stranger's claim: Caddy replaces it with what it negotiated.
      headers: { 'content-type': 'text/plain', 'user-agent': BROWSER_UA, 'x-forwarded-tls': 'TLSv1.0' },
    });
    expect(res.status, res.body).toBe(202);
    await expect
      .poll(async () => {
        await t.deps.ingest.flushNow();
        const rows = await t.deps.orm.em
          .fork()
          .execute<{ tls: string | null }[]>(`select tls from pageviews where site_id = ? and pageview_id = ?`, [
            site.siteId,
            report.id,
          ]);
        return rows.map((r) => r.tls);
      })
      .toEqual(['TLSv1.3']);
  });

  it("serves the service's own hostname", async () => {
    expect(await handshake(PUBLIC_HOST)).toEqual({ ok: true, authorized: true, names: `DNS:${PUBLIC_HOST}` });
    const health = await get(PUBLIC_HOST, '/healthz');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: 'ok' });
  });
});
