import { Site, SiteHostname } from '@us/db';
import { issueTicket, newKey, seal } from '@us/protection';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGrant } from '../../src/features/protection/challenge/grant.ts';
import { challengeOf } from '../../src/features/protection/challenge/work.ts';
import { failedChecks, visitorCodeOf } from '../../src/features/protection/failed-checks.ts';
import { answerTo, type CheckSite, checkSite, formOf, grantOf, solve } from '../support/check.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * The check page is reached by strangers with a ticket in the address. Each attack on it is a test: a
 * ticket tampered with, signed by another site, expired, for a hostname the site has not proven, or
 * carrying a path that would leave the host; answers that are wrong, too easy, automated or replayed.
 * Every client here has an address of its own (TRUST_PROXY), as visitors do.
 */
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
let seq = 0;
const nextIp = () => `198.51.100.${++seq}`;

describe('attack: the bot check page', () => {
  let t: TestServer;
  let s: CheckSite;
  beforeAll(async () => {
    t = await startTestServer({ env: { TRUST_PROXY: 'true' } });
    s = await checkSite(t);
  });
  afterAll(() => t.close());

  const show = (ticket: string, ip = nextIp(), lang?: string) => {
    const r = t.request
      .get(`/challenge?t=${encodeURIComponent(ticket)}`)
      .set('X-Forwarded-For', ip)
      .set('User-Agent', UA);
    return lang ? r.set('Accept-Language', lang) : r;
  };
  const post = (body: string, ip: string) =>
    t.request
      .post('/challenge')
      .set('X-Forwarded-For', ip)
      .set('User-Agent', UA)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(body);
  const expectPage = (res: { status: number; headers: Record<string, string>; text: string }, status: number, text: RegExp) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.location).toBeUndefined();
    expect(res.text).toMatch(text);
  };

  describe('GET: the page', () => {
    it('serves our own page for a good ticket: strict CSP with a nonce, nothing third-party, not cached', async () => {
      const res = await show(await s.ticket());
      expectPage(res, 200, /Checking your browser/);
      const csp = res.headers['content-security-policy'] as string;
      const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain(`form-action 'self' https://${s.hosts.verified}`);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.text).toContain(`<script nonce="${nonce}">`);
      expect(res.text).toContain(`<style nonce="${nonce}">`);
      expect(res.text).not.toMatch(/\ssrc=|<link|@import|url\(/);
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    });

    it('is usable without sight or a mouse: lang, a labelled live region, a focusable button, a noscript note', async () => {
      const res = await show(await s.ticket());
      expect(res.text).toMatch(/<html lang="en">/);
      expect(res.text).toMatch(/<p id="us-status" role="status" aria-live="polite" aria-label="State of the check">/);
      expect(res.text).toMatch(/<progress [^>]*aria-label="Progress of the check"/);
      expect(res.text).toMatch(/<button type="submit" id="us-go"[^>]*>Continue<\/button>/);
      expect(res.text).toMatch(/<noscript>.*needs JavaScript/);
    });

    it.each([
      ['de-AT,de;q=0.9,en;q=0.5', 'de', 'Ihr Browser wird geprüft'],
      ['fr-CH, fr;q=0.9', 'fr', 'Vérification de votre navigateur'],
      ['es', 'es', 'Comprobando su navegador'],
      ['ja,en;q=0.2', 'en', 'Checking your browser'],
      ['it', 'en', 'Checking your browser'],
      ['en;q=0.3,de;q=0.8', 'de', 'Ihr Browser wird geprüft'],
    ])('speaks the language Accept-Language %s names (%s)', async (header, lang, title) => {
      const res = await show(await s.ticket(), nextIp(), header);
      expect(res.text).toContain(`<html lang="${lang}">`);
      expect(res.text).toContain(title);
      expect(res.headers['content-language']).toBe(lang);
    });

    it('sizes the work by the ticket’s risk: 12 bits at 0, 16 at 50, 20 at 100', async () => {
      for (const [r, bits] of [
        [0, 12],
        [50, 16],
        [100, 20],
      ] as const) {
        expect(formOf((await show(await s.ticket({ r }))).text).bits).toBe(bits);
      }
    });

    it('serves tickets for an active proxy-mode hostname', async () => {
      await show(await s.ticket({ h: s.hosts.proxyActive })).expect(200);
    });

    it('refuses a ticket tampered with (400), never redirecting', async () => {
      const good = await s.ticket();
      const [body, sig] = good.split('.') as [string, string];
      const forged = Buffer.from(JSON.stringify({ s: s.siteId, h: 'evil.example', p: '/', r: 0, e: 9_999_999_999 })).toString(
        'base64url',
      );
      // The signature's last two characters replaced by two others (a signature ending in "AA" got "AA" back: 200).
      const resigned = `${body}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`;
      for (const bad of [`${forged}.${sig}`, resigned, `${body}x.${sig}`]) {
        expectPage(await show(bad), 400, /This check cannot start/);
      }
    });

    it('refuses a ticket signed with another key, naming this site or a made-up one (400)', async () => {
      const foreign = await issueTicket(newKey(), { s: s.siteId, h: s.hosts.verified, p: '/', r: 0 });
      expectPage(await show(foreign), 400, /This check cannot start/);
      const unknown = await issueTicket(newKey(), {
        s: '00000000-0000-4000-8000-000000000000',
        h: s.hosts.verified,
        p: '/',
        r: 0,
      });
      expectPage(await show(unknown), 400, /This check cannot start/);
    });

    it('does not make a pass key for a site that has none, on a stranger’s ticket', async () => {
      const other = await checkSite(t);
      const em = t.deps.orm.em.fork();
      await em.nativeUpdate(Site, { id: other.siteId }, { passKeyEnc: null });
      expectPage(await show(await other.ticket()), 400, /cannot start/);
      const row = await t.deps.orm.em.fork().findOne(Site, { id: other.siteId });
      expect(row?.passKeyEnc).toBeNull();
    });

    it('refuses a ticket of one site for a hostname of another (403)', async () => {
      const other = await checkSite(t);
      expectPage(await show(await s.ticket({ h: other.hosts.verified })), 403, /not a verified address/);
    });

    it.each(['unverified', 'proxyPending'] as const)(
      'refuses a ticket for a %s hostname (403), with no link there',
      async (kind) => {
        const res = await show(await s.ticket({ h: s.hosts[kind] }));
        expectPage(res, 403, /not a verified address/);
        expect(res.text).not.toContain(s.hosts[kind]);
      },
    );

    it('refuses an expired ticket (410) and offers a link back only to the proven host', async () => {
      const res = await show(await s.ticket({ p: '/shop/cart?x=1' }, Date.now() - 11 * 60_000));
      expectPage(res, 410, /This check has expired/);
      expect(res.text).toContain(`<a href="https://${s.hosts.verified}/shop/cart?x=1">`);
      const unproven = await show(await s.ticket({ h: s.hosts.unverified }, Date.now() - 11 * 60_000));
      expectPage(unproven, 410, /expired/);
      expect(unproven.text).not.toContain('<a ');
    });

    it.each([
      ['//evil.example', 'p'],
      ['//evil.example/path', 'p'],
      ['https://evil.example', 'p'],
      ['/\\evil.example', 'p'],
      ['/\t/evil.example', 'p'],
      ['/ok\n', 'p'],
      ['evil', 'p'],
      ['', 'p'],
      ['evil.example/', 'h'],
      [`${'x'}.example:443`, 'h'],
      ['EVIL..example', 'h'],
      ['', 'h'],
    ])('refuses a signed ticket whose return %j (%s) would leave the host (400)', async (value, field) => {
      const res = await show(await s.ticket({ [field]: value }));
      expectPage(res, 400, /This check cannot start/);
      expect(res.text).not.toContain('evil');
    });

    it('refuses a missing, malformed or oversized ticket (400)', async () => {
      for (const q of [
        '',
        '?t=',
        '?t=abc',
        '?t[]=a',
        `?t=${'a'.repeat(9000)}.${'b'.repeat(22)}`,
        '?t=%00.AAAAAAAAAAAAAAAAAAAAAA',
      ]) {
        const res = await t.request.get(`/challenge${q}`).set('X-Forwarded-For', nextIp());
        expectPage(res, 400, /cannot start/);
      }
    });

    it('counts before checking: past 60 requests a minute from one browser (address and user agent), 429 with Retry-After', async () => {
      const ip = nextIp();
      const statuses: number[] = [];
      for (let i = 0; i < 61; i++) statuses.push((await t.request.get('/challenge?t=x').set('X-Forwarded-For', ip)).status);
      expect(statuses.slice(0, 60).every((x) => x === 400)).toBe(true);
      const last = await t.request.get('/challenge?t=x').set('X-Forwarded-For', ip);
      expectPage(last, 429, /Too many attempts/);
      expect(last.headers['retry-after']).toBe('60');
    });

    it('one client behind a shared address cannot spend the check of the others there', async () => {
      const ip = nextIp();
      const greedy = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
      const other =
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1';
      for (let i = 0; i < 61; i++) await t.request.get('/challenge?t=x').set('X-Forwarded-For', ip).set('User-Agent', greedy);
      expect((await t.request.get('/challenge?t=x').set('X-Forwarded-For', ip).set('User-Agent', greedy)).status).toBe(429);
      // The other browser on the same address still gets its page (here: a bad link, not "too many").
      const res = await t.request.get('/challenge?t=x').set('X-Forwarded-For', ip).set('User-Agent', other);
      expectPage(res, 400, /cannot start/);
    });

    it('past 1,200 requests a minute from one address, whatever the user agents, 429', async () => {
      const ip = nextIp();
      const statuses: number[] = [];
      for (let i = 0; i < 1201; i++) {
        statuses.push((await t.request.get('/challenge?t=x').set('X-Forwarded-For', ip).set('User-Agent', `Agent/${i}`)).status);
      }
      expect(statuses.slice(0, 1200).every((x) => x === 400)).toBe(true);
      expect(statuses[1200]).toBe(429);
    });

    it('answers other methods with 405 and Allow', async () => {
      const res = await t.request.put('/challenge').set('X-Forwarded-For', nextIp());
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('GET, POST');
    });
  });

  describe('POST: the answer', () => {
    it('sends a right answer to https://<hostname>/_us/pass with a sealed two-minute grant (303)', async () => {
      const ip = nextIp();
      const page = await show(await s.ticket(), ip);
      const res = await post(answerTo(page.text), ip);
      expect(res.status).toBe(303);
      expect(res.headers.location).toMatch(new RegExp(`^https://${s.hosts.verified.replace(/\./g, '\\.')}/_us/pass\\?g=`));
      const grant = await openGrant(s.passKey, grantOf(res.headers.location));
      expect(grant).toMatchObject({ s: s.siteId, h: s.hosts.verified, p: expect.stringMatching(/^\/shop\/cart\?x=\d+$/) });
      expect((grant?.e ?? 0) - Date.now() / 1000).toBeGreaterThan(110);
      expect((grant?.e ?? 0) - Date.now() / 1000).toBeLessThanOrEqual(120);
    });

    it('takes a ticket once: the same answer again is 410', async () => {
      const ip = nextIp();
      const body = answerTo((await show(await s.ticket(), ip)).text);
      expect((await post(body, ip)).status).toBe(303);
      expectPage(await post(body, ip), 410, /already used/);
      // Back or reload: the page of a used ticket says so and links back to the page (where the pass now works).
      const ticket = new URLSearchParams(body).get('t') as string;
      const reload = await show(ticket, ip);
      expectPage(reload, 410, /already used/);
      expect(reload.text).toMatch(new RegExp(`<a href="https://${s.hosts.verified.replace(/\./g, '\\.')}/shop/cart\\?x=\\d+">`));
    });

    it('counts a wrong answer as a failed check and shows the page again, harder (403)', async () => {
      const ip = nextIp();
      const page = await show(await s.ticket(), ip);
      const wrong = Array.from({ length: 8 }, (_, k) => k.toString(16).padStart(8, '0')).join('');
      const res = await post(answerTo(page.text, { n: wrong }), ip);
      expectPage(res, 403, /did not succeed/);
      expect(formOf(res.text).bits).toBe(14);
      const code = await visitorCodeOf(t.deps, s.siteId, ip, UA);
      expect(await failedChecks(t.deps, s.siteId, code)).toBe(1);
      // The old, easier page no longer passes for this visitor; the harder one does.
      expect((await post(answerTo(page.text), ip)).status).toBe(403);
      expect(formOf((await show(await s.ticket(), ip)).text).bits).toBe(16);
      expect((await post(answerTo((await show(await s.ticket(), ip)).text), ip)).status).toBe(303);
    });

    // Global Privacy Control: a browser sending it is not recorded on any path, behaviour memory included. Its failed
    // check was filed under its visitor code for a day (the gate's failed-check sign).
    it.each([
      ['a wrong nonce', { n: '0000abcd' }],
      ['navigator.webdriver set', { wd: '1' }],
    ])('fails %s from a browser sending Sec-GPC: 1 without remembering it', async (_label, over) => {
      const ip = nextIp();
      const res = await post(answerTo((await show(await s.ticket(), ip)).text, over), ip).set('Sec-GPC', '1');
      expect(res.status).toBe(403);
      expect(await failedChecks(t.deps, s.siteId, await visitorCodeOf(t.deps, s.siteId, ip, UA))).toBe(0);
      // The next page is no harder: nothing was kept to make it so.
      expect(formOf((await show(await s.ticket(), ip)).text).bits).toBe(12);
    });

    it.each([
      ['navigator.webdriver set', { wd: '1' }],
      ['timers that never ran', { tm: '0' }],
    ])(
      'counts a right nonce from a browser saying it is automated (%s) as a failed check, and offers no new work (403)',
      async (_label, over) => {
        const ip = nextIp();
        const res = await post(answerTo((await show(await s.ticket(), ip)).text, over), ip);
        expectPage(res, 403, /controlled by automation software/);
        // No form and no script: the browser is not sent round the check again (it would fail again at once).
        expect(res.text).not.toContain('<form');
        expect(res.text).not.toContain('<script');
        expect(await failedChecks(t.deps, s.siteId, await visitorCodeOf(t.deps, s.siteId, ip, UA))).toBe(1);
      },
    );

    it.each([
      ['no signals', { wd: '', tm: '' }],
      ['an easier difficulty than asked', { b: '4' }],
      ['a page time in the future', { i: String(Math.floor(Date.now() / 1000) + 3600) }],
      ['a nonce of another shape', { n: 'zz' }],
      ['one nonce where eight are due', { n: '0000abcd' }],
    ])('counts a right nonce with %s as a failed check (403)', async (_label, over) => {
      const ip = nextIp();
      const res = await post(answerTo((await show(await s.ticket(), ip)).text, over), ip);
      expectPage(res, 403, /did not succeed/);
      expect(await failedChecks(t.deps, s.siteId, await visitorCodeOf(t.deps, s.siteId, ip, UA))).toBe(1);
    });

    it('cannot choose its own challenge: a nonce for a made-up one fails', async () => {
      const ip = nextIp();
      const f = formOf((await show(await s.ticket(), ip)).text);
      const body = new URLSearchParams({ t: f.t, b: '12', i: f.i, n: solve('A'.repeat(32), 12), wd: '0', tm: '1' });
      expect((await post(body.toString(), ip)).status).toBe(403);
    });

    it('runs a page older than ten minutes again without counting it (200)', async () => {
      const ip = nextIp();
      const ticket = await s.ticket();
      const i = Math.floor(Date.now() / 1000) - 11 * 60;
      const n = solve(await challengeOf(s.passKey, ticket, 12, i), 12);
      const res = await post(new URLSearchParams({ t: ticket, b: '12', i: String(i), n, wd: '0', tm: '1' }).toString(), ip);
      expectPage(res, 200, /took too long/);
      expect(await failedChecks(t.deps, s.siteId, await visitorCodeOf(t.deps, s.siteId, ip, UA))).toBe(0);
    });

    it('tells a browser without JavaScript what to do, without counting it (400)', async () => {
      const ip = nextIp();
      const f = formOf((await show(await s.ticket(), ip)).text);
      const res = await post(new URLSearchParams({ t: f.t, b: f.b, i: f.i, n: '', wd: '', tm: '', ms: '' }).toString(), ip);
      expectPage(res, 400, /needs JavaScript/);
      expect(await failedChecks(t.deps, s.siteId, await visitorCodeOf(t.deps, s.siteId, ip, UA))).toBe(0);
    });

    it('refuses a tampered, foreign or expired ticket in the answer as the page does', async () => {
      const ip = nextIp();
      const page = await show(await s.ticket(), ip);
      const foreign = await issueTicket(newKey(), { s: s.siteId, h: s.hosts.verified, p: '/', r: 0 });
      expectPage(await post(answerTo(page.text, { t: foreign }), ip), 400, /cannot start/);
      const expired = await s.ticket({}, Date.now() - 11 * 60_000);
      expectPage(await post(answerTo(page.text, { t: expired }), ip), 410, /expired/);
    });

    it('refuses when the hostname stopped being the site’s between the page and the answer (403)', async () => {
      const other = await checkSite(t);
      const ip = nextIp();
      const page = await show(await other.ticket(), ip);
      await t.deps.orm.em.fork().nativeDelete(SiteHostname, { site: other.siteId, hostname: other.hosts.verified });
      const res = await post(answerTo(page.text), ip);
      expectPage(res, 403, /not a verified address/);
    });

    it('refuses a grant-shaped token forged with a guessed key as a ticket', async () => {
      const forged = await seal(newKey(), { s: s.siteId, h: 'evil.example', p: '//evil.example', r: 0, e: 9_999_999_999 });
      expectPage(await show(forged), 400, /cannot start/);
    });

    it('refuses a body that is not a form (400) or too large (413)', async () => {
      const ip = nextIp();
      const json = await t.request.post('/challenge').set('X-Forwarded-For', ip).send({ t: 'x' });
      expectPage(json, 400, /cannot start/);
      const big = await post(`t=${'a'.repeat(20_000)}`, ip);
      expect(big.status).toBe(413);
      expect(big.headers['content-type']).toMatch(/^text\/html/);
    });
  });
});
