import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny HTTP proxy on 127.0.0.1 that adds `Authorization: Bearer <token>` to every request and
 * forwards it to `target` (same path). Lets tools that cannot send credentials (the conformance
 * suite) talk to the token-only /mcp endpoint.
 */
export async function startBearerForwarder(target: string, token: string) {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const headers = { ...req.headers, host: upstream.host, authorization: `Bearer ${token}` };
    const out = httpRequest(
      { hostname: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
