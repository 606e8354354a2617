// `npm run bench`: throughput and latency of the API beside a bare Node http server on this machine.
import path from 'node:path';
import { formatRow, runLoad } from './load.ts';
import { startChild, stopChild } from './child.ts';

const here = import.meta.dirname;
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32);

console.log(`Benchmarks: ${seconds} s each, ${concurrency} keep-alive connections, loopback only.\n`);

const bare = await startChild<{ url: string }>(path.join(here, 'bare-server.ts'));
await runLoad(bare.info.url, { method: 'GET', path: '/' }, { seconds: 1, concurrency }); // warm-up
const baseline = await runLoad(bare.info.url, { method: 'GET', path: '/' }, { seconds, concurrency });
await stopChild(bare.proc);
console.log(formatRow('bare node http (constant)', baseline));

const api = await startChild<{ url: string; token: string }>(path.join(here, 'api-server.ts'));
const auth = { authorization: `Bearer ${api.info.token}` };
const me = { method: 'GET', path: '/v1/me', headers: auth };
await runLoad(api.info.url, me, { seconds: 1, concurrency });
console.log(formatRow('GET /v1/me (token)', await runLoad(api.info.url, me, { seconds, concurrency }), baseline));

const mcpBody = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'get_me',
    arguments: {},
    _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
  },
});
const mcp = {
  method: 'POST',
  path: '/mcp',
  headers: {
    ...auth,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'get_me',
  },
  body: mcpBody,
};
await runLoad(api.info.url, mcp, { seconds: 1, concurrency });
console.log(formatRow('MCP tools/call get_me (token)', await runLoad(api.info.url, mcp, { seconds, concurrency }), baseline));
await stopChild(api.proc);
