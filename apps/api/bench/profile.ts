// Where one face's time goes under load: starts the bench API, loads one request kind for a few seconds
// with a CPU profile running only meanwhile (not start-up), and prints the self time by package or file
// and by function. `npm run bench:profile -- me|mcp|collect|proxy` (default me); BENCH_SECONDS (default 6).
// `proxy` loads a page through proxy mode, its origin the bench's bare http server (proxy.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiInfo } from './api-server.ts';
import { askChild, startApiChild, startChild, stopChild } from './child.ts';
import { collectRequest } from './export.ts';
import { type LoadRequest, mcpToolCall, runLoad } from './load.ts';
import { prepareProxySite, proxyRequest } from './proxy.ts';

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

const which = process.argv[2] ?? 'me';
const seconds = Number(process.env.BENCH_SECONDS ?? 6);
const api = await startApiChild<ApiInfo>();
const origin = which === 'proxy' ? await startChild<{ url: string }>(path.join(import.meta.dirname, 'bare-server.ts')) : null;
try {
  if (origin) await prepareProxySite(api.info.dbUrl, api.info.workspaceId, origin.info.url);
  const requests: Record<string, LoadRequest> = {
    me: { method: 'GET', path: '/v1/me', headers: { authorization: `Bearer ${api.info.token}` } },
    mcp: mcpToolCall(api.info.token, 'get_me'),
    collect: collectRequest(api.info.collect.publicKey, api.info.collect.hostname),
    proxy: proxyRequest,
  };
  const req = requests[which];
  if (!req) throw new Error(`profile what? one of ${Object.keys(requests).join(', ')}`);
  await runLoad(api.info.url, req, { seconds: 2, concurrency: 32 });
  await askChild(api.proc, 'profile-start');
  const r = await runLoad(api.info.url, req, { seconds, concurrency: 32 });
  const { file } = await askChild<{ file: string }>(api.proc, 'profile-stop');
  console.log(`${which}: ${Math.round(r.rps)} req/s, ${r.errors} errors, profile ${file}`);
  summarise(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
} finally {
  if (origin) await stopChild(origin.proc);
  await stopChild(api.proc);
}

function summarise(prof: CpuProfile) {
  const self = new Map<number, number>();
  prof.samples.forEach((id, i) => {
    self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0));
  });
  const byFn = new Map<string, number>();
  const byPackage = new Map<string, number>();
  let total = 0;
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  for (const n of prof.nodes) {
    const t = self.get(n.id) ?? 0;
    total += t;
    const f = n.callFrame;
    const file = (f.url || '(native)').replace(/^file:\/\/.*?\/(apps|packages|node_modules)\//, '$1/');
    const parts = file.split('/');
    const pkg = parts[0] === 'node_modules' ? parts.slice(0, parts[1]?.startsWith('@') ? 3 : 2).join('/') : file;
    add(byFn, `${f.functionName || '(anonymous)'}  ${file}:${f.lineNumber + 1}`, t);
    add(byPackage, pkg, t);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${((v / total) * 100).toFixed(1).padStart(5)} %  ${k}`)
      .join('\n');
  console.log(`\nself time by package or file\n${top(byPackage, 25)}\n\nself time by function\n${top(byFn, 40)}`);
}
