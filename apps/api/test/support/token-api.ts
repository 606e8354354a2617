import type { TestServer } from './server.ts';

/** Requests to the test server with one Authorization header: the suites' get/post/patch/delete. */
export function tokenApi(t: TestServer, auth: () => string) {
  return {
    get: (path: string, query: Record<string, string | number> = {}) =>
      t.request.get(path).query(query).set('Authorization', auth()),
    post: (path: string, body: unknown) =>
      t.request
        .post(path)
        .set('Authorization', auth())
        .send(body as object),
    patch: (path: string, body: unknown) =>
      t.request
        .patch(path)
        .set('Authorization', auth())
        .send(body as object),
    del: (path: string) => t.request.delete(path).set('Authorization', auth()),
  };
}
