import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listOperations } from '../../../src/procedures/registry.ts';
import { appRouter } from '../../../src/router.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { ALL_SPEC_ROUTES, PERSON_ROUTES, SPEC_ROUTES, SPEC_STATUS } from './spec-routes.ts';

type Doc = { openapi: string; info: { version: string }; paths: Record<string, Record<string, Record<string, unknown>>> };

describe('OpenAPI document', () => {
  let t: TestServer;
  let doc: Doc;
  beforeAll(async () => {
    t = await startTestServer();
    doc = (await t.request.get('/v1/openapi.json').expect(200).expect('content-type', /json/)).body;
  });
  afterAll(() => t.close());

  it('is read with GET (or HEAD) only: another method is a 404 problem naming what it takes', async () => {
    await t.request.head('/v1/openapi.json').expect(200);
    for (const method of ['post', 'delete', 'put'] as const) {
      const res = await t.request[method]('/v1/openapi.json');
      expect(res.status, method).toBe(404);
      expect(res.headers['content-type']).toMatch(/problem\+json/);
      expect(res.headers.allow).toBe('GET, HEAD');
    }
  });

  it('is a valid OpenAPI 3.1 document, version 1', async () => {
    const validator = new Validator();
    const res = await validator.validate(doc);
    expect(res.errors ?? []).toEqual([]);
    expect(res.valid).toBe(true);
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(doc.info.version).toBe('1');
  });

  it.each(SPEC_ROUTES)('lists %s %s with its success status and problem+json errors', (method, path) => {
    const op = doc.paths[path]?.[method.toLowerCase()];
    expect(op, `${method} ${path} missing from /v1/openapi.json`).toBeDefined();
    const responses = op?.responses as Record<string, { content?: Record<string, unknown> }>;
    const status = SPEC_STATUS[`${method} ${path}`] ?? 200;
    expect(Object.keys(responses)).toContain(String(status));
    expect(responses['400']?.content?.['application/problem+json']).toBeDefined();
  });

  it('documents the 401 a sign-in answers and the 413 every body route answers', async () => {
    const statuses = (method: string, path: string) => Object.keys(doc.paths[path]?.[method]?.responses ?? {});
    expect(statuses('post', '/v1/auth/login')).toContain('401');
    expect(statuses('post', '/v1/auth/login/2fa')).toContain('401');
    expect(statuses('post', '/v1/auth/signup')).not.toContain('401');
    for (const [method, path] of SPEC_ROUTES) {
      const listed = statuses(method.toLowerCase(), path);
      if (method === 'GET') expect(listed, `${method} ${path}`).not.toContain('413');
      else expect(listed, `${method} ${path}`).toContain('413');
    }
    const wrong = await t.request.post('/v1/auth/login').send({ email: 'nobody@example.com', password: 'not the password' });
    expect(wrong.status).toBe(401);
    const big = await t.request
      .post('/v1/auth/login')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(300 * 1024) }));
    expect(big.status).toBe(413);
    expect(big.headers['content-type']).toMatch(/problem\+json/);
  });

  it('documents Idempotency-Key on idempotent routes and a session-only security on person routes', () => {
    for (const [method, path] of SPEC_ROUTES) {
      const op = doc.paths[path]?.[method.toLowerCase()] as { security?: unknown[]; parameters?: { name: string }[] };
      if (PERSON_ROUTES.has(`${method} ${path}`)) expect(op.security).toEqual([{ session: [] }]);
    }
    const enroll = doc.paths['/v1/auth/2fa/enroll']?.post as { parameters: { name: string }[] };
    expect(enroll.parameters.map((p) => p.name)).toContain('Idempotency-Key');
  });

  it.each([
    ['/v1/sites/{id}/goals/results', ['id'], ['days']],
    ['/v1/sites/{id}/experiments/{key}/results', ['id', 'key'], ['days', 'goal']],
  ])('documents %s with its path and query parameters', (path, inPath, inQuery) => {
    const op = doc.paths[path]?.get as { parameters: { name: string; in: string }[] };
    const named = (where: string) => op.parameters.filter((p) => p.in === where).map((p) => p.name);
    expect(named('path').sort()).toEqual([...inPath].sort());
    expect(named('query')).toEqual(expect.arrayContaining(inQuery));
  });

  it('exposes nothing over REST that the spec does not list', () => {
    const exposed = listOperations(appRouter)
      .filter((op) => op.meta.openapi)
      .map((op) => `${op.meta.openapi?.method} ${op.meta.openapi?.path}`);
    const spec = new Set(ALL_SPEC_ROUTES.map(([m, p]) => `${m} ${p}`));
    expect(exposed.filter((r) => !spec.has(r))).toEqual([]);
    expect(SPEC_ROUTES.map(([m, p]) => `${m} ${p}`).filter((r) => !exposed.includes(r))).toEqual([]);
  });

  it('every exposed procedure declares strict input, output and auth', () => {
    for (const op of listOperations(appRouter)) {
      expect(op.output, `${op.path} has no output schema`).toBeDefined();
      expect(op.input, `${op.path} has no input schema`).toBeDefined();
      expect(['none', 'person', 'any', 'optional']).toContain(op.meta.auth);
    }
  });
});
