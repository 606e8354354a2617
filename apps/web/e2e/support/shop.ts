// A customer's site for page-script tests in a real browser: the customer's pages on their own hostname
// (an HTTP server on 127.0.0.1 that Chromium reaches under `host`), with a site of the service for that
// hostname whose snippet the pages carry.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Scope } from '@us/shared';
import type { Browser } from 'playwright-core';
import { createToken, createUser, type TestServer } from '../../../api/test/support/server.ts';
import { launchChromium } from './browser.ts';

export interface Shop {
  /** `http://<host>:<port>`, as the browser reaches the pages. */
  base: string;
  /** A Chromium in which `host` resolves to the shop. */
  browser: Browser;
  close(): Promise<void>;
}

/** Serves `page(pathname)` as HTML for every path, and opens a Chromium that finds it under `host`. */
export async function startShop(host: string, page: (pathname: string) => string): Promise<Shop> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.writeHead(200, { 'content-type': 'text/html' }).end(page(url.pathname));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const browser = await launchChromium([`--host-resolver-rules=MAP ${host} 127.0.0.1`]);
  return {
    base: `http://${host}:${(server.address() as AddressInfo).port}`,
    browser,
    async close() {
      await browser.close();
      await new Promise((r) => server.close(r));
    },
  };
}

/** A new owner with a token of `scopes`, and a site named Shop for `host` created through the API. */
export async function siteOnHost(t: TestServer, host: string, scopes: Scope[]) {
  const { user, workspace, email } = await createUser(t.deps);
  const { token } = await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes });
  const auth = `Bearer ${token}`;
  const created = await t.request
    .post('/v1/sites')
    .set('Authorization', auth)
    .send({ name: 'Shop', hostnames: [host] });
  if (created.status !== 201) throw new Error(`site not created: ${created.status} ${created.text}`);
  const siteId = created.body.site.id as string;
  const snippet = await t.request.get(`/v1/sites/${siteId}/snippet`).set('Authorization', auth);
  if (snippet.status !== 200) throw new Error(`no snippet: ${snippet.status} ${snippet.text}`);
  return { siteId, auth, email, pk: snippet.body.siteKey as string };
}
