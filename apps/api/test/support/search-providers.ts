// Local stand-ins for the two search providers, speaking their documented request and answer shapes on
// 127.0.0.1: Google's OAuth 2.0 token endpoint (the JWT bearer grant: the assertion's RS256 signature is
// checked against the public key of the service account it names, its audience against this endpoint,
// its expiry and scope), the Search Console API's sites.get, and Bing Webmaster Tools' JSON API
// (GetUserSites, answers wrapped in `d`). Tests say which account may read which property (and withdraw
// it: sites.get and searchAnalytics.query then answer 403) and which API key owns which sites. A figure a
// test leaves out of a day is left out of the answers, as a provider that does not report it would.
import { createPublicKey, generateKeyPairSync, type KeyObject, randomUUID, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer } from './server.ts';

/** One day of search traffic for a page and query, as both stand-ins report it (a figure left out: not reported). */
export interface SearchDay {
  day: string;
  page: string;
  query: string;
  clicks?: number;
  impressions?: number;
  position?: number;
}

export interface SearchProviders {
  url: string;
  googleUrl: string;
  bingUrl: string;
  tokenUri: string;
  /**
   * A service account the token endpoint knows; its key file as Google gives it. A new 2,048-bit key
   * unless `privateKey` is given (generate large ones once per file: a 4,096-bit key takes seconds).
   */
  serviceAccount(name: string, opts?: { privateKey?: KeyObject }): { email: string; keyFile: Record<string, string> };
  grant(email: string, property: string, level?: string): void;
  /** The account's access to the property withdrawn in Search Console. */
  revoke(email: string, property: string): void;
  bingKey(apiKey: string, sites: { url: string; verified: boolean }[]): void;
  /** Traffic Search Console reports for a property. */
  googleData(property: string, days: SearchDay[]): void;
  /** Traffic and inbound links Bing reports for a site URL. */
  bingData(siteUrl: string, days: SearchDay[], links: number[]): void;
  /**
   * The next Search Console call (sites.get or a query; `at: 'query'`: the next Search Analytics query)
   * answers `status`; `reason`: Google's usage-limit reason.
   */
  failNextGoogle(status: number, message: string, reason?: string, at?: 'any' | 'query'): void;
  /**
   * The next Google call of the kind named answers a body that cannot be read: `cut-off` (the connection
   * drops halfway through the body, as when the time limit ends it), `truncated` (half of the JSON, the
   * answer complete), `html` (a page, not JSON, as a proxy in the way gives). `at`: `token` (the token
   * endpoint), `site` (sites.get), or a Search Analytics query: `total`, `page` or `query` (its dimension).
   */
  breakNextGoogle(how: BrokenBody, at: GoogleCall, status?: number): void;
  /**
   * Holds the next Search Analytics query until `release()`: `reached` settles once it has come in. For what
   * happens meanwhile (a source connected again while its pull is under way).
   */
  holdNextQuery(): { reached: Promise<void>; release(): void };
  /** Every failure, broken body and hold asked for and not met yet, forgotten (a held query is let go). */
  resetGoogle(): void;
  /** Every request's method and path (no query), in order. */
  seen: string[];
  close(): Promise<void>;
}

export type BrokenBody = 'cut-off' | 'truncated' | 'html';
export type GoogleCall = 'token' | 'site' | 'total' | 'page' | 'query';

export async function startSearchProviders(): Promise<SearchProviders> {
  const publicKeys = new Map<string, KeyObject>();
  const tokens = new Map<string, string>();
  const grants = new Map<string, Map<string, string>>();
  const bing = new Map<string, { url: string; verified: boolean }[]>();
  const seen: string[] = [];
  const googleDays = new Map<string, SearchDay[]>();
  const bingDays = new Map<string, { days: SearchDay[]; links: number[] }>();
  let googleFailure: { status: number; message: string; reason?: string; at: 'any' | 'query' } | null = null;
  const broken = new Map<GoogleCall, { how: BrokenBody; status: number }>();
  let held: { arrived: () => void; released: Promise<void> } | null = null;
  /** Answers `body` broken as the test asked, when it asked for `at`: whether it did. */
  const brokenAnswer = (res: http.ServerResponse, at: GoogleCall, body: unknown): boolean => {
    const b = broken.get(at);
    if (!b) return false;
    broken.delete(at);
    const text = JSON.stringify(body);
    const half = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
    if (b.how === 'html') {
      res.writeHead(b.status, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body><h1>Forbidden</h1><p>The request was refused by the proxy.</p></body></html>');
    } else if (b.how === 'truncated') {
      res.writeHead(b.status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(half);
    } else {
      // The whole length announced, half of it sent, then the connection dropped.
      res.writeHead(b.status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
      res.write(half, () => res.socket?.destroy());
    }
    return true;
  };
  /** Google's error body, as its APIs write one (a usage limit names its reason under `errors`). */
  const googleError = (f: { status: number; message: string; reason?: string }) => ({
    error: {
      code: f.status,
      message: f.message,
      ...(f.reason ? { errors: [{ message: f.message, domain: 'usageLimits', reason: f.reason }] } : {}),
      status: f.status === 403 ? 'PERMISSION_DENIED' : 'RESOURCE_EXHAUSTED',
    },
  });
  let base = '';

  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  const readBody = (req: http.IncomingMessage) =>
    new Promise<string>((resolve) => {
      let s = '';
      req.on('data', (c) => {
        s += c;
      });
      req.on('end', () => resolve(s));
    });

  function grantToken(assertion: string): string | { error: string; error_description: string } {
    const [h, c, sig] = assertion.split('.');
    if (!h || !c || !sig) return { error: 'invalid_grant', error_description: 'Invalid JWT: Token must be a short-lived token' };
    const header = JSON.parse(Buffer.from(h, 'base64url').toString());
    const claims = JSON.parse(Buffer.from(c, 'base64url').toString());
    const key = publicKeys.get(claims.iss);
    if (header.alg !== 'RS256' || !key) return { error: 'invalid_grant', error_description: 'Invalid grant: account not found' };
    if (!verify('RSA-SHA256', Buffer.from(`${h}.${c}`), key, Buffer.from(sig, 'base64url'))) {
      return { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' };
    }
    const now = Date.now() / 1000;
    if (claims.aud !== `${base}/token`) return { error: 'invalid_grant', error_description: 'Invalid JWT: audience' };
    if (!(claims.exp > now && claims.iat <= now + 60 && claims.exp - claims.iat <= 3600)) {
      return {
        error: 'invalid_grant',
        error_description: 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.',
      };
    }
    if (!String(claims.scope).includes('https://www.googleapis.com/auth/webmasters')) {
      return { error: 'invalid_scope', error_description: 'Invalid OAuth scope or ID token audience provided.' };
    }
    const token = `ya29.${randomUUID()}`;
    tokens.set(token, claims.iss);
    return token;
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    seen.push(`${req.method} ${url.pathname}`);
    if (req.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(await readBody(req));
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
        return json(res, 400, { error: 'unsupported_grant_type', error_description: 'Invalid grant_type' });
      }
      const got = grantToken(form.get('assertion') ?? '');
      if (typeof got !== 'string') return json(res, 400, got);
      const answer = { access_token: got, expires_in: 3599, token_type: 'Bearer' };
      if (brokenAnswer(res, 'token', answer)) return;
      return json(res, 200, answer);
    }
    const analytics = /^\/google\/webmasters\/v3\/sites\/([^/]+)\/searchAnalytics\/query$/.exec(url.pathname);
    if (req.method === 'POST' && analytics) {
      const email = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      const property = decodeURIComponent(analytics[1] as string);
      if (!email || !grants.get(property)?.get(email)) {
        return json(res, 403, {
          error: { code: 403, message: 'User does not have sufficient permission', status: 'PERMISSION_DENIED' },
        });
      }
      if (googleFailure) {
        const f = googleFailure;
        googleFailure = null;
        return json(res, f.status, googleError(f));
      }
      const q = JSON.parse(await readBody(req)) as { startDate: string; endDate: string; dimensions?: string[] };
      if (held) {
        const h = held;
        held = null;
        h.arrived();
        await h.released;
      }
      const days = (googleDays.get(property) ?? []).filter((d) => d.day >= q.startDate && d.day <= q.endDate);
      const dim = q.dimensions?.[0] as 'page' | 'query' | undefined;
      const groups = new Map<string, SearchDay[]>();
      for (const d of days) groups.set(dim ? d[dim] : '', [...(groups.get(dim ? d[dim] : '') ?? []), d]);
      // A figure some day of the group does not report is left out of the group's row.
      const sum = (ds: SearchDay[], f: 'clicks' | 'impressions') =>
        ds.every((d) => d[f] !== undefined) ? ds.reduce((n, d) => n + (d[f] ?? 0), 0) : undefined;
      const rows = [...groups.entries()].map(([k, ds]) => {
        const clicks = sum(ds, 'clicks');
        const impressions = sum(ds, 'impressions');
        const placed = impressions !== undefined && ds.every((d) => d.position !== undefined);
        return {
          ...(dim ? { keys: [k] } : {}),
          clicks,
          impressions,
          ctr: clicks !== undefined && impressions ? clicks / impressions : undefined,
          position:
            placed && impressions
              ? ds.reduce((n, d) => n + (d.position ?? 0) * (d.impressions ?? 0), 0) / impressions
              : undefined,
        };
      });
      // Search Console leaves `rows` out when there is nothing.
      const answer = rows.length ? { rows, responseAggregationType: 'byProperty' } : { responseAggregationType: 'byProperty' };
      if (brokenAnswer(res, (q.dimensions?.[0] as 'page' | 'query' | undefined) ?? 'total', answer)) return;
      return json(res, 200, answer);
    }
    const site = /^\/google\/webmasters\/v3\/sites\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && site) {
      const email = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!email) {
        return json(res, 401, {
          error: { code: 401, message: 'Request had invalid authentication credentials.', status: 'UNAUTHENTICATED' },
        });
      }
      const property = decodeURIComponent(site[1] as string);
      if (googleFailure?.at === 'any') {
        const f = googleFailure;
        googleFailure = null;
        return json(res, f.status, googleError(f));
      }
      const level = grants.get(property)?.get(email);
      if (brokenAnswer(res, 'site', level ? { siteUrl: property, permissionLevel: level } : { error: { code: 403 } })) return;
      if (!level) {
        return json(res, 403, {
          error: {
            code: 403,
            message: `User does not have sufficient permission for site '${property}'.`,
            status: 'PERMISSION_DENIED',
          },
        });
      }
      return json(res, 200, { siteUrl: property, permissionLevel: level });
    }
    if (req.method === 'GET' && url.pathname === '/bing/GetUserSites') {
      const sites = bing.get(url.searchParams.get('apikey') ?? '');
      if (!sites) return json(res, 400, { ErrorCode: 3, Message: 'InvalidApiKey' });
      return json(res, 200, {
        d: sites.map((s) => ({ __type: 'Site:#Microsoft.Bing.Webmaster.Api', Url: s.url, IsVerified: s.verified })),
      });
    }
    const bingMethod = /^\/bing\/(GetRankAndTrafficStats|GetQueryStats|GetPageStats|GetLinkCounts)$/.exec(url.pathname)?.[1];
    if (req.method === 'GET' && bingMethod) {
      const sites = bing.get(url.searchParams.get('apikey') ?? '');
      if (!sites) return json(res, 400, { ErrorCode: 3, Message: 'InvalidApiKey' });
      const data = bingDays.get(url.searchParams.get('siteUrl') ?? '') ?? { days: [], links: [] };
      const date = (day: string) => `/Date(${Date.parse(`${day}T00:00:00Z`)})/`;
      // Query and page stats come bucketed by week: the bucket's date is the week's Monday.
      const monday = (day: string) => {
        const d = new Date(`${day}T00:00:00Z`);
        d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
        return d.toISOString().slice(0, 10);
      };
      if (bingMethod === 'GetLinkCounts') {
        return json(res, 200, {
          d: { Links: data.links.map((Count, i) => ({ Count, Url: `https://linker${i}.example/` })), TotalPages: 1 },
        });
      }
      if (bingMethod === 'GetRankAndTrafficStats') {
        return json(res, 200, { d: data.days.map((d) => ({ Date: date(d.day), Clicks: d.clicks, Impressions: d.impressions })) });
      }
      const key = bingMethod === 'GetQueryStats' ? 'query' : 'page';
      return json(res, 200, {
        d: data.days.map((d) => ({
          Date: date(monday(d.day)),
          Query: d[key],
          Clicks: d.clicks,
          Impressions: d.impressions,
          AvgImpressionPosition: d.position,
          AvgClickPosition: d.position,
        })),
      });
    }
    json(res, 404, { error: { code: 404, message: 'Not found' } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    googleUrl: `${base}/google`,
    bingUrl: `${base}/bing`,
    tokenUri: `${base}/token`,
    serviceAccount(name, opts = {}) {
      const email = `${name}@unseen-test.iam.gserviceaccount.com`;
      const privateKey = opts.privateKey ?? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
      const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      publicKeys.set(email, createPublicKey(privateKey));
      return {
        email,
        keyFile: {
          type: 'service_account',
          project_id: 'unseen-test',
          private_key_id: randomUUID().replaceAll('-', ''),
          private_key: pem,
          client_email: email,
          client_id: '1234567890',
          auth_uri: 'https://accounts.google.com/o/oauth2/auth',
          token_uri: `${base}/token`,
        },
      };
    },
    grant(email, property, level = 'siteFullUser') {
      const m = grants.get(property) ?? new Map<string, string>();
      m.set(email, level);
      grants.set(property, m);
    },
    revoke(email, property) {
      grants.get(property)?.delete(email);
    },
    bingKey(apiKey, sites) {
      bing.set(apiKey, sites);
    },
    googleData(property, days) {
      googleDays.set(property, days);
    },
    bingData(siteUrl, days, links) {
      bingDays.set(siteUrl, { days, links });
    },
    failNextGoogle(status, message, reason, at = 'any') {
      googleFailure = { status, message, at, ...(reason ? { reason } : {}) };
    },
    breakNextGoogle(how, at, status = 200) {
      broken.set(at, { how, status });
    },
    holdNextQuery() {
      let arrived = () => {};
      let release = () => {};
      const reached = new Promise<void>((r) => {
        arrived = r;
      });
      const released = new Promise<void>((r) => {
        release = r;
      });
      held = { arrived, released };
      return { reached, release };
    },
    resetGoogle() {
      googleFailure = null;
      broken.clear();
      held = null;
    },
    seen,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** The stand-ins and a test server using them, the service's own account (delegated mode) named `ownName`. */
export async function searchTestServer(ownName: string) {
  const providers = await startSearchProviders();
  const own = providers.serviceAccount(ownName);
  const t = await startTestServer({
    env: {
      SEARCH_GOOGLE_API_URL: providers.googleUrl,
      SEARCH_BING_API_URL: providers.bingUrl,
      SEARCH_SERVICE_ACCOUNT_KEY: JSON.stringify(own.keyFile),
    },
  });
  return { providers, own, t };
}
