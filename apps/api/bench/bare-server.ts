// A bare Node http server answering a constant: the baseline every benchmark is compared with.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const body = JSON.stringify({ ok: true });
const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
});
// The bench gone: its IPC channel closes, and nothing is left behind.
process.on('disconnect', () => process.exit(0));
