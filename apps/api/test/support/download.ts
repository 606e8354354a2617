import type { TestServer } from './server.ts';

/** GETs a download link's path as bytes (gzip included), as anyone holding the link would: no credentials. */
export function fetchBytes(t: TestServer, url: string) {
  return t.request
    .get(new URL(url).pathname)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
}
