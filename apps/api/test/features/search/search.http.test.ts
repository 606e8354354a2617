// Search connections over HTTP against local stand-ins of Google (token endpoint checking the JWT's
// signature, Search Console's sites.get) and Bing Webmaster Tools: connect in both Google modes and with
// a Bing key, every refusal with its field, credentials never shown or stored in the clear, disconnect.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { craftedRsaKey } from '../../support/crafted-rsa-key.ts';
import { type SearchProviders, searchTestServer, startSearchProviders } from '../../support/search-providers.ts';
import { createToken, createUser, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

describe('search connections', () => {
  let providers: SearchProviders;
  let t: TestServer;
  let auth: string;
  let readOnly: string;
  let workspaceId: string;
  let own: { email: string; keyFile: Record<string, string> };
  let customer: { email: string; keyFile: Record<string, string> };

  beforeAll(async () => {
    ({ providers, own, t } = await searchTestServer('unseen-delegated'));
    customer = providers.serviceAccount('customer-reader');
    const { user, workspace } = await createUser(t.deps);
    workspaceId = workspace.id;
    auth = `Bearer ${(await createToken(t.deps, { userId: user.id, workspaceId, scopes: ['search:read', 'search:write'] })).token}`;
    readOnly = `Bearer ${(await createToken(t.deps, { userId: user.id, workspaceId, scopes: ['search:read'] })).token}`;
  });
  afterAll(async () => {
    await t?.close();
    await providers?.close();
  });

  /** A site with one verified and one unverified hostname. */
  async function site() {
    const em = t.deps.orm.em.fork();
    const { site } = await createSite(em, { workspace: workspaceId, name: 'Searched' });
    const tag = randomBytes(4).toString('hex');
    const verified = `shop-${tag}.example.test`;
    const unverified = `blog-${tag}.example.test`;
    em.create(SiteHostname, { site, hostname: verified, verifyToken: 'v'.repeat(32), verifiedAt: new Date() });
    em.create(SiteHostname, { site, hostname: unverified, verifyToken: 'v'.repeat(32), verifiedAt: null });
    await em.flush();
    return { id: site.id, verified, unverified };
  }
  const get = (id: string, who = auth) => t.request.get(`/v1/sites/${id}/search`).set('Authorization', who);
  const put = (id: string, which: 'primary' | 'secondary', body: unknown, who = auth) =>
    t.request
      .put(`/v1/sites/${id}/search/${which}`)
      .set('Authorization', who)
      .send(body as object);
  const del = (id: string, which: 'primary' | 'secondary') =>
    t.request.delete(`/v1/sites/${id}/search/${which}`).set('Authorization', auth);

  it('starts unconnected and names the service account to grant for delegated mode', async () => {
    const s = await site();
    const res = await get(s.id).expect(200);
    expect(res.body).toEqual({ serviceAccount: own.email, primary: null, secondary: null });
  });

  it('connects with a service-account key whose account can read the property, and never shows or stores the key', async () => {
    const s = await site();
    const property = `https://${s.unverified}/`;
    providers.grant(customer.email, property);
    const res = await put(s.id, 'primary', { mode: 'service_account', property, key: JSON.stringify(customer.keyFile) }).expect(
      200,
    );
    expect(res.body.primary).toMatchObject({ mode: 'service_account', property, account: customer.email, lastPull: null });
    expect(JSON.stringify(res.body)).not.toContain('PRIVATE KEY');
    expect(JSON.stringify((await get(s.id).expect(200)).body)).not.toContain('PRIVATE KEY');
    const [row] = await t.deps.orm.em
      .getConnection()
      .execute<{ credentials_enc: string }[]>('select credentials_enc from search_connections where site_id = ?', [s.id]);
    expect(row?.credentials_enc).toBeTruthy();
    expect(row?.credentials_enc).not.toContain('PRIVATE KEY');
    expect(row?.credentials_enc).not.toContain(customer.email);
    // The key as an object works too, and replaces the connection.
    await put(s.id, 'primary', { mode: 'service_account', property, key: customer.keyFile }).expect(200);
  });

  it('refuses what is not a service-account key, a forged key and a token_uri elsewhere, each as 400 on key', async () => {
    const s = await site();
    const property = `https://${s.verified}/`;
    providers.grant(customer.email, property);
    const refuse = async (key: unknown, title: RegExp) => {
      const res = await put(s.id, 'primary', { mode: 'service_account', property, key }).expect(400);
      expect(res.body).toMatchObject({ field: 'key' });
      expect(res.body.title).toMatch(title);
    };
    await refuse('not json', /not JSON/);
    await refuse({ ...customer.keyFile, type: 'authorized_user' }, /type is not service_account/);
    await refuse({ ...customer.keyFile, private_key: 'nope' }, /not an RSA key/);
    // Another account's private key under this account's name: the token endpoint checks the signature.
    const forged = { ...customer.keyFile, private_key: providers.serviceAccount('other').keyFile.private_key };
    await refuse(forged, /Google refused the key: Google answered 400: Invalid JWT Signature/);
    const before = providers.seen.length;
    await refuse({ ...customer.keyFile, token_uri: 'http://169.254.169.254/latest/meta-data/' }, /token_uri/);
    expect(providers.seen.length).toBe(before);
    await put(s.id, 'primary', { mode: 'service_account', property }).expect(400);
    // At the door: line breaks are text in a key file, other control characters are not; size is bounded.
    const nul = await put(s.id, 'primary', {
      mode: 'service_account',
      property,
      key: { ...customer.keyFile, client_id: 'a\u0000b' },
    });
    expect(nul.status).toBe(400);
    expect(nul.body.field).toBe('key.client_id');
    const huge = await put(s.id, 'primary', { mode: 'service_account', property, key: 'x'.repeat(20_001) }).expect(400);
    expect(huge.body.field).toBe('key');
    const longKey = await put(s.id, 'secondary', { apiKey: 'k'.repeat(201), siteUrl: property }).expect(400);
    expect(longKey.body.field).toBe('apiKey');
    expect(providers.seen.length).toBe(before);
  });

  it('takes RSA keys of 2,048 to 4,096 bits only, shaped as Google makes them, refused (400 key) before any signing', async () => {
    const s = await site();
    const property = `https://${s.verified}/`;
    providers.grant(customer.email, property);
    const withKey = (private_key: string) => ({ ...customer.keyFile, private_key });
    const refuse = async (key: unknown, title: string | RegExp) => {
      const res = await put(s.id, 'primary', { mode: 'service_account', property, key }).expect(400);
      expect(res.body.field).toBe('key');
      if (typeof title === 'string') expect(res.body.title).toBe(title);
      else expect(res.body.title).toMatch(title);
    };
    const before = providers.seen.length;
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    const sizes = (bits: string) =>
      `The key file's private_key is an RSA key of ${bits} bits: give a key of 2,048 to 4,096 bits (Google makes 2,048-bit keys)`;
    await refuse(withKey(small.toString()), sizes('1,024'));
    await refuse(withKey(craftedRsaKey(4112)), sizes('4,112'));
    // A stranger's 16,384-bit key fits in the text form's 20,000 characters; one signature with it costs seconds.
    await refuse(JSON.stringify(withKey(craftedRsaKey(16_384))), sizes('16,384'));
    // Within the size, numbers larger than such a key has (they too make signing dearer).
    const shape = /^The key file's private_key is not an RSA key as Google makes them/;
    await refuse(withKey(craftedRsaKey(2048, { primeBits: 2048 })), shape);
    await refuse(withKey(craftedRsaKey(2048, { exponentBits: 64 })), shape);
    // An even modulus: OpenSSL refuses to sign with it (a 500 at the first pull).
    await refuse(withKey(craftedRsaKey(2048, { evenModulus: true })), shape);
    // None of them reached Google: nothing was signed.
    expect(providers.seen.length).toBe(before);
  });

  it('bounds the key file given as an object like the text form: 20,000 characters of JSON, flat, 32 fields', async () => {
    const s = await site();
    const property = `https://${s.verified}/`;
    providers.grant(customer.email, property);
    const refuse = async (key: unknown, field: string, title: RegExp) => {
      const res = await put(s.id, 'primary', { mode: 'service_account', property, key }).expect(400);
      expect(res.body.field).toBe(field);
      expect(res.body.title).toMatch(title);
    };
    const before = providers.seen.length;
    await refuse({ ...customer.keyFile, notes: 'x'.repeat(20_000) }, 'key', /at most 20,000 characters/);
    const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`extra_${i}`, 'x']));
    await refuse({ ...customer.keyFile, ...many }, 'key', /at most 32 fields/);
    await refuse(
      { ...customer.keyFile, nested: { deeper: [1, 2, 3] } },
      'key.nested',
      /a flat JSON object whose values are text/,
    );
    expect(providers.seen.length).toBe(before);
    // Google's own shape still connects.
    await put(s.id, 'primary', { mode: 'service_account', property, key: customer.keyFile }).expect(200);
  });

  it('refuses a property the account cannot read (400 property) and keeps nothing', async () => {
    const s = await site();
    const res = await put(s.id, 'primary', {
      mode: 'service_account',
      property: `https://${s.verified}/private/`,
      key: customer.keyFile,
    }).expect(400);
    expect(res.body).toMatchObject({ field: 'property' });
    expect(res.body.title).toContain(`${customer.email} has no access`);
    expect((await get(s.id).expect(200)).body.primary).toBeNull();
  });

  it('delegated mode: only for a verified hostname of the site, and only once the service account was granted', async () => {
    const s = await site();
    const unverified = await put(s.id, 'primary', { mode: 'delegated', property: `sc-domain:${s.unverified}` }).expect(400);
    expect(unverified.body).toMatchObject({ field: 'property' });
    expect(unverified.body.title).toContain('not a verified hostname');
    const notGranted = await put(s.id, 'primary', { mode: 'delegated', property: `sc-domain:${s.verified}` }).expect(400);
    expect(notGranted.body.title).toContain(`${own.email} has no access`);
    providers.grant(own.email, `sc-domain:${s.verified}`);
    const ok = await put(s.id, 'primary', { mode: 'delegated', property: `sc-domain:${s.verified}` }).expect(200);
    expect(ok.body.primary).toMatchObject({ mode: 'delegated', property: `sc-domain:${s.verified}`, account: own.email });
    const withKey = await put(s.id, 'primary', { mode: 'delegated', property: `sc-domain:${s.verified}`, key: customer.keyFile });
    expect(withKey.status).toBe(400);
    expect(withKey.body.field).toBe('key');
  });

  it('connects Bing with an API key for a verified site of its account; refuses a bad key and other sites', async () => {
    const s = await site();
    const apiKey = randomBytes(16).toString('hex');
    providers.bingKey(apiKey, [
      { url: `https://${s.verified}/`, verified: true },
      { url: `https://${s.unverified}/`, verified: false },
    ]);
    const bad = await put(s.id, 'secondary', { apiKey: 'wrong', siteUrl: `https://${s.verified}/` }).expect(400);
    expect(bad.body).toMatchObject({ field: 'apiKey' });
    expect(bad.body.title).toContain('InvalidApiKey');
    const other = await put(s.id, 'secondary', { apiKey, siteUrl: 'https://elsewhere.example.test/' }).expect(400);
    expect(other.body).toMatchObject({ field: 'siteUrl' });
    const pending = await put(s.id, 'secondary', { apiKey, siteUrl: `https://${s.unverified}` }).expect(400);
    expect(pending.body.title).toContain('not verified');
    const ok = await put(s.id, 'secondary', { apiKey, siteUrl: `HTTPS://${s.verified.toUpperCase()}` }).expect(200);
    expect(ok.body.secondary).toMatchObject({ siteUrl: `https://${s.verified}/`, lastPull: null });
    expect(JSON.stringify(ok.body)).not.toContain(apiKey);
  });

  it('disconnects each source (204, weeks kept); an unconnected one is 404; reading needs search:read only', async () => {
    const s = await site();
    const property = `https://${s.verified}/`;
    providers.grant(customer.email, property);
    await put(s.id, 'primary', { mode: 'service_account', property, key: customer.keyFile }).expect(200);
    await t.deps.orm.em
      .getConnection()
      .execute(`insert into search_weeks (site_id, source, week, clicks) values (?, 'primary', '2026-11-16', 12)`, [s.id]);
    await put(s.id, 'primary', { mode: 'service_account', property, key: customer.keyFile }, readOnly).expect(403);
    await get(s.id, readOnly).expect(200);
    await del(s.id, 'primary').expect(204);
    const again = await del(s.id, 'primary').expect(404);
    expect(again.body.title).toContain('not connected');
    await del(s.id, 'secondary').expect(404);
    expect((await get(s.id).expect(200)).body.primary).toBeNull();
    const [weeks] = await t.deps.orm.em
      .getConnection()
      .execute<{ n: string }[]>('select count(*) as n from search_weeks where site_id = ?', [s.id]);
    expect(Number(weeks?.n)).toBe(1);
  });

  it('answers 503 when the provider cannot be reached, and 404 for another workspace’s site', async () => {
    const { workspace } = await createUser(t.deps);
    const { site: foreign } = await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Theirs' });
    await get(foreign.id).expect(404);
    const s = await site();
    await providers.close();
    try {
      const res = await put(s.id, 'secondary', { apiKey: 'k', siteUrl: `https://${s.verified}/` }).expect(503);
      expect(res.body.title).toMatch(/could not be reached/);
    } finally {
      providers = await startSearchProviders();
    }
  });
});
