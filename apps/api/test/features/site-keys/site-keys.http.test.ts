import { createHash } from 'node:crypto';
import { SiteKey } from '@us/db';
import { SITE_KEY_LIMITS } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findSiteByPublicKey, findSiteBySecret } from '../../../src/features/site-keys/key-lookup.ts';
import { expectProblem } from '../../support/auth-helpers.ts';
import { collectSite, postReport } from '../../support/collect.ts';
import { modernCall } from '../../support/mcp-http.ts';
import { createToken, startTestServer, type TestServer } from '../../support/server.ts';
import { siteOfNewOwner as newOwnerSite } from '../../support/sites.ts';

type KeyRecord = { id: string; kind: string; value: string | null; prefix: string; createdAt: string; shownOnce: boolean };

describe('site keys: list, create, rotate, delete, lookups', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  const siteOfNewOwner = async () => {
    const o = await newOwnerSite(t, { name: 'Keys' });
    return { ...o, publicKey: o.publicKey as KeyRecord };
  };

  const em = () => t.deps.orm.em.fork();

  async function createSecret(o: { auth: string; siteId: string }) {
    const res = await t.request
      .post(`/v1/sites/${o.siteId}/keys`)
      .set('Authorization', o.auth)
      .send({ kind: 'secret' })
      .expect(201);
    return res.body.key as KeyRecord & { value: string };
  }

  it(`keeps at most ${SITE_KEY_LIMITS.secretsPerSite} server secrets per site (409), even when made at once`, async () => {
    const o = await siteOfNewOwner();
    const make = () => t.request.post(`/v1/sites/${o.siteId}/keys`).set('Authorization', o.auth).send({ kind: 'secret' });
    const answers = await Promise.all(Array.from({ length: SITE_KEY_LIMITS.secretsPerSite + 5 }, make));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(SITE_KEY_LIMITS.secretsPerSite);
    for (const refused of answers.filter((r) => r.status !== 201)) {
      expect(refused.status).toBe(409);
      expect(refused.body.title).toMatch(/delete the ones no longer used/);
    }
    const listed = await t.request.get(`/v1/sites/${o.siteId}/keys`).set('Authorization', o.auth).expect(200);
    expect(listed.body.keys.filter((k: KeyRecord) => k.kind === 'secret')).toHaveLength(SITE_KEY_LIMITS.secretsPerSite);
    // Rotating one still works: it replaces a secret.
    const one = answers.find((r) => r.status === 201)?.body.key as KeyRecord;
    await t.request.post(`/v1/sites/${o.siteId}/keys/${one.id}/rotate`).set('Authorization', o.auth).expect(200);
  });

  it('lists the public key in full', async () => {
    const o = await siteOfNewOwner();
    const res = await t.request.get(`/v1/sites/${o.siteId}/keys`).set('Authorization', o.auth).expect(200);
    expect(res.body).toEqual({ keys: [o.publicKey] });
  });

  it('creates a secret: 201, value shown once, stored only as SHA-256, listed by prefix after', async () => {
    const o = await siteOfNewOwner();
    const key = await createSecret(o);
    expect(key).toEqual({
      id: expect.any(String),
      kind: 'secret',
      value: expect.stringMatching(/^sk_live_[A-Za-z0-9]{32}$/),
      prefix: key.value.slice(0, 12),
      createdAt: expect.any(String),
      shownOnce: true,
    });
    expect(key.prefix.startsWith('sk_live_')).toBe(true);

    const [raw] = await em().getConnection().execute<Record<string, unknown>[]>('select * from site_keys where id = ?', [key.id]);
    expect(raw?.secret_hash).toBe(createHash('sha256').update(key.value).digest('hex'));
    expect(raw?.public_value).toBeNull();
    for (const v of Object.values(raw ?? {})) expect(JSON.stringify(v) ?? '').not.toContain(key.value);

    const list = await t.request.get(`/v1/sites/${o.siteId}/keys`).set('Authorization', o.auth).expect(200);
    expect(list.body.keys).toEqual([o.publicKey, { ...key, value: null, shownOnce: false }]);
    expect(JSON.stringify(list.body)).not.toContain(key.value);

    expect((await findSiteBySecret(em(), key.value))?.id).toBe(o.siteId);
  });

  it.each([[{}], [{ kind: 'server' }], [{ kind: 'secret', name: 'x' }]])('refuses %j: 400', async (body) => {
    const o = await siteOfNewOwner();
    const res = await t.request.post(`/v1/sites/${o.siteId}/keys`).set('Authorization', o.auth).send(body);
    const p = expectProblem(res, 400);
    expect(p.field).toBe('kind' in body && Object.keys(body).length === 2 ? 'name' : 'kind');
  });

  it('an idempotent repeat of create returns the same secret and makes one key', async () => {
    const o = await siteOfNewOwner();
    const send = () =>
      t.request
        .post(`/v1/sites/${o.siteId}/keys`)
        .set('Authorization', o.auth)
        .set('Idempotency-Key', 'k-1')
        .send({ kind: 'secret' });
    const a = await send().expect(201);
    const b = await send().expect(201);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(b.body).toEqual(a.body);
    expect(await em().count(SiteKey, { site: o.siteId, kind: 'secret' })).toBe(1);
  });

  it('rotating the public key ends the old one at once and gives a new public key', async () => {
    const o = await siteOfNewOwner();
    const old = o.publicKey;
    expect((await findSiteByPublicKey(em(), old.value as string))?.id).toBe(o.siteId);
    const res = await t.request.post(`/v1/sites/${o.siteId}/keys/${old.id}/rotate`).set('Authorization', o.auth).expect(200);
    const key = res.body.key as KeyRecord;
    expect(key).toEqual({
      id: expect.any(String),
      kind: 'public',
      value: expect.stringMatching(/^pk_[a-z0-9]{26}$/),
      prefix: (key.value as string).slice(0, 12),
      createdAt: expect.any(String),
      shownOnce: false,
    });
    expect(key.id).not.toBe(old.id);
    expect(key.value).not.toBe(old.value);
    expect(await findSiteByPublicKey(em(), old.value as string)).toBeNull();
    expect((await findSiteByPublicKey(em(), key.value as string))?.id).toBe(o.siteId);
    const list = await t.request.get(`/v1/sites/${o.siteId}/keys`).set('Authorization', o.auth).expect(200);
    expect(list.body.keys).toEqual([key]);
    // The old id is gone: rotating it again is 404.
    expectProblem(await t.request.post(`/v1/sites/${o.siteId}/keys/${old.id}/rotate`).set('Authorization', o.auth), 404);
  });

  it('rotating a secret ends the old one at once and shows the new secret once', async () => {
    const o = await siteOfNewOwner();
    const old = await createSecret(o);
    const res = await t.request.post(`/v1/sites/${o.siteId}/keys/${old.id}/rotate`).set('Authorization', o.auth).expect(200);
    const key = res.body.key as KeyRecord & { value: string };
    expect(key.kind).toBe('secret');
    expect(key.value).toMatch(/^sk_live_[A-Za-z0-9]{32}$/);
    expect(key.shownOnce).toBe(true);
    expect(await findSiteBySecret(em(), old.value)).toBeNull();
    expect((await findSiteBySecret(em(), key.value))?.id).toBe(o.siteId);
    expect(await em().count(SiteKey, { site: o.siteId })).toBe(2);
  });

  it('two parallel rotations of one key: one succeeds, the other finds it gone (404)', async () => {
    const o = await siteOfNewOwner();
    const old = await createSecret(o);
    const answers = await Promise.all(
      [1, 2].map(() => t.request.post(`/v1/sites/${o.siteId}/keys/${old.id}/rotate`).set('Authorization', o.auth)),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 404]);
    expect(await em().count(SiteKey, { site: o.siteId, kind: 'secret' })).toBe(1);
  });

  it('deletes a secret (204): it stops working at once', async () => {
    const o = await siteOfNewOwner();
    const secret = await createSecret(o);
    await t.request.delete(`/v1/sites/${o.siteId}/keys/${secret.id}`).set('Authorization', o.auth).expect(204);
    expect(await findSiteBySecret(em(), secret.value)).toBeNull();
    expectProblem(await t.request.delete(`/v1/sites/${o.siteId}/keys/${secret.id}`).set('Authorization', o.auth), 404);
  });

  it('deletes the public key (204, spec §4): its reports are refused as an unknown key; snippet and install status ask for a new one', async () => {
    const site = await collectSite(t, 'deleted-key.example');
    const [publicKey] = (await t.request.get(`/v1/sites/${site.siteId}/keys`).set('Authorization', site.auth).expect(200)).body
      .keys as KeyRecord[];
    expect(publicKey?.value).toBe(site.publicKey);
    await postReport(t, site).expect(202);
    const installStatus = async () =>
      (await t.request.get(`/v1/sites/${site.siteId}/install-status`).set('Authorization', site.auth).expect(200)).body;
    await expect.poll(async () => (await installStatus()).installed).toBe(true);

    await t.request.delete(`/v1/sites/${site.siteId}/keys/${publicKey?.id}`).set('Authorization', site.auth).expect(204);
    expect(await findSiteByPublicKey(em(), site.publicKey)).toBeNull();
    const list = await t.request.get(`/v1/sites/${site.siteId}/keys`).set('Authorization', site.auth).expect(200);
    expect(list.body.keys.map((k: KeyRecord) => k.kind)).toEqual(['secret']);
    // The collector answers a report with the deleted key as it answers any unknown key (a node reads the
    // sites' generation at most once a second, so within about a second).
    await expect.poll(async () => (await postReport(t, site)).status).toBe(404);
    const refused = await postReport(t, site).expect(404);
    expect(JSON.parse(refused.text).title).toMatch(/Unknown site key/);

    const snippet = expectProblem(await t.request.get(`/v1/sites/${site.siteId}/snippet`).set('Authorization', site.auth), 409);
    expect(snippet.title).toMatch(/no public key.*create one/i);
    const status = await installStatus();
    expect(status).toMatchObject({ installed: true, needsPublicKey: true });
    expect(status.message).toMatch(/needs a new public key/);
  });

  it('creates a public key only for a site without one (201); with one it is 409 (rotate it instead)', async () => {
    const o = await siteOfNewOwner();
    const again = expectProblem(
      await t.request.post(`/v1/sites/${o.siteId}/keys`).set('Authorization', o.auth).send({ kind: 'public' }),
      409,
    );
    expect(again.title).toMatch(/rotate/);
    await t.request.delete(`/v1/sites/${o.siteId}/keys/${o.publicKey.id}`).set('Authorization', o.auth).expect(204);

    // Two at once make one key: the second finds the first.
    const answers = await Promise.all(
      [1, 2].map(() => t.request.post(`/v1/sites/${o.siteId}/keys`).set('Authorization', o.auth).send({ kind: 'public' })),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    const key = answers.find((r) => r.status === 201)?.body.key as KeyRecord;
    expect(key).toEqual({
      id: expect.any(String),
      kind: 'public',
      value: expect.stringMatching(/^pk_[a-z0-9]{26}$/),
      prefix: (key.value as string).slice(0, 12),
      createdAt: expect.any(String),
      shownOnce: false,
    });
    expect(await em().count(SiteKey, { site: o.siteId, kind: 'public' })).toBe(1);
    const snippet = await t.request.get(`/v1/sites/${o.siteId}/snippet`).set('Authorization', o.auth).expect(200);
    expect(snippet.body.siteKey).toBe(key.value);
    const status = await t.request.get(`/v1/sites/${o.siteId}/install-status`).set('Authorization', o.auth).expect(200);
    expect(status.body).toMatchObject({ installed: false, needsPublicKey: false });
  });

  it('a key of another site, an unknown or malformed key id is 404', async () => {
    const o = await siteOfNewOwner();
    const other = await t.request.post('/v1/sites').set('Authorization', o.auth).send({ name: 'Other' }).expect(201);
    const otherKey = other.body.publicKey.id as string;
    for (const keyId of [otherKey, '00000000-0000-4000-8000-000000000000', 'nope']) {
      expectProblem(await t.request.post(`/v1/sites/${o.siteId}/keys/${keyId}/rotate`).set('Authorization', o.auth), 404);
      expectProblem(await t.request.delete(`/v1/sites/${o.siteId}/keys/${keyId}`).set('Authorization', o.auth), 404);
    }
  });

  it('needs sites:read to list and sites:write to change (403 naming the scope)', async () => {
    const o = await siteOfNewOwner();
    const reader = await createToken(t.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['sites:read'] });
    const auth = `Bearer ${reader.token}`;
    await t.request.get(`/v1/sites/${o.siteId}/keys`).set('Authorization', auth).expect(200);
    for (const req of [
      t.request.post(`/v1/sites/${o.siteId}/keys`).send({ kind: 'secret' }),
      t.request.post(`/v1/sites/${o.siteId}/keys/${o.publicKey.id}/rotate`),
      t.request.delete(`/v1/sites/${o.siteId}/keys/${o.publicKey.id}`),
    ]) {
      expect(expectProblem(await req.set('Authorization', auth), 403).title).toMatch(/sites:write/);
    }
  });

  it('lookups refuse malformed values without a match', async () => {
    expect(await findSiteByPublicKey(em(), 'pk_short')).toBeNull();
    expect(await findSiteByPublicKey(em(), `pk_${'a'.repeat(26)}`)).toBeNull();
    expect(await findSiteBySecret(em(), 'sk_live_x')).toBeNull();
    expect(await findSiteBySecret(em(), `sk_live_${'A'.repeat(32)}`)).toBeNull();
  });

  it('the MCP tools create_site_key and rotate_site_key show the secret once', async () => {
    const o = await siteOfNewOwner();
    const created = await modernCall(t.url, o.token, 'tools/call', {
      name: 'create_site_key',
      arguments: { id: o.siteId, kind: 'secret' },
    });
    const key = created.body.result.structuredContent.key;
    expect(key.shownOnce).toBe(true);
    const rotated = await modernCall(t.url, o.token, 'tools/call', {
      name: 'rotate_site_key',
      arguments: { id: o.siteId, keyId: key.id },
    });
    const next = rotated.body.result.structuredContent.key;
    expect(next.value).toMatch(/^sk_live_/);
    expect(await findSiteBySecret(em(), key.value)).toBeNull();
    const listed = await modernCall(t.url, o.token, 'tools/call', { name: 'list_site_keys', arguments: { id: o.siteId } });
    expect(listed.body.result.structuredContent.keys.map((k: KeyRecord) => k.value)).toEqual([o.publicKey.value, null]);
  });

  it('the MCP tool delete_site_key deletes the public key; get_site_snippet then says a new one is needed', async () => {
    const o = await siteOfNewOwner();
    const deleted = await modernCall(t.url, o.token, 'tools/call', {
      name: 'delete_site_key',
      arguments: { id: o.siteId, keyId: o.publicKey.id },
    });
    expect(deleted.body.result.isError ?? false).toBe(false);
    expect(await findSiteByPublicKey(em(), o.publicKey.value as string)).toBeNull();
    const snippet = await modernCall(t.url, o.token, 'tools/call', { name: 'get_site_snippet', arguments: { id: o.siteId } });
    expect(snippet.body.result.isError).toBe(true);
    expect(JSON.stringify(snippet.body.result.content)).toMatch(/no public key.*create one/i);
    const status = await modernCall(t.url, o.token, 'tools/call', {
      name: 'get_site_install_status',
      arguments: { id: o.siteId },
    });
    expect(status.body.result.structuredContent).toMatchObject({ needsPublicKey: true });
    const created = await modernCall(t.url, o.token, 'tools/call', {
      name: 'create_site_key',
      arguments: { id: o.siteId, kind: 'public' },
    });
    const key = created.body.result.structuredContent.key;
    expect(key).toMatchObject({ kind: 'public', value: expect.stringMatching(/^pk_/) });
    expect((await findSiteByPublicKey(em(), key.value))?.id).toBe(o.siteId);
  });
});
