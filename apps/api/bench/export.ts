// Export over the stats bench site: one whole UTC day of raw records (every kind and hour) downloaded
// through the export's links, with the API process's RSS sampled meanwhile (no GC forced), and the
// rollups file. Files are produced as they are downloaded, so the memory growth is what streaming costs.
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import { createGunzip } from 'node:zlib';
import { askChild } from './child.ts';
import { type LoadRequest, runLoad } from './load.ts';

interface Download {
  bytes: number;
  lines: number;
  status: number;
}

/** GETs a path, counting bytes as sent and lines once gunzipped when `gzip`. */
function download(url: string, gzip: boolean): Promise<Download> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let bytes = 0;
        let lines = 0;
        res.on('data', (c: Buffer) => {
          bytes += c.length;
        });
        const text = gzip ? res.pipe(createGunzip()) : res;
        text.on('data', (c: Buffer) => {
          for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) lines++;
        });
        text.on('end', () => resolve({ bytes, lines, status: res.statusCode ?? 0 }));
        text.on('error', reject);
      })
      .on('error', reject);
  });
}

async function post(url: string, token: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

/** A page report as the page script sends it (the collect section's request). */
export function collectRequest(publicKey: string, hostname: string): LoadRequest {
  const body = JSON.stringify({
    t: 'pv',
    k: publicKey,
    u: `https://${hostname}/pricing?utm_source=bench&utm_medium=load`,
    id: 'benchpageview0001',
    r: 'https://www.google.com/',
    w: 1440,
    l: 'en-US',
    z: 'Europe/Berlin',
    n: 1,
  });
  return {
    method: 'POST',
    path: '/collect',
    // With its length, as the page script's sendBeacon sends it (Node's client would otherwise send it chunked).
    headers: {
      'content-type': 'text/plain',
      'content-length': String(Buffer.byteLength(body)),
      origin: `https://${hostname}`,
      'user-agent':
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    },
    body,
  };
}

/** Downloads every raw file of an export of `day`; answers records, gzip bytes, files and ms. */
async function downloadDay(api: { url: string; token: string }, siteId: string, day: string) {
  const made = await post(`${api.url}/v1/sites/${siteId}/export`, api.token, { from: day, to: day });
  if (made.status !== 200) throw new Error(`export answered ${made.status} ${JSON.stringify(made.json).slice(0, 160)}`);
  const files = (made.json as { files: { name: string; url: string }[] }).files;
  const archiveUrl = files.find((f) => f.name === 'archive.json')?.url as string;
  const archive = (await (await fetch(archiveUrl)).json()) as { files: { url: string; records: number }[] };
  const t0 = performance.now();
  let bytes = 0;
  let lines = 0;
  let listed = 0;
  for (const f of archive.files) {
    const d = await download(f.url, true);
    if (d.status !== 200) throw new Error(`archive file answered ${d.status}`);
    bytes += d.bytes;
    lines += d.lines;
    listed += f.records;
  }
  return { lines, listed, bytes, files: archive.files.length, ms: performance.now() - t0, links: files };
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

export async function benchExport(
  api: { url: string; token: string; proc: ChildProcess; collect: { publicKey: string; hostname: string } },
  siteId: string,
  day: string,
  concurrency: number,
): Promise<string[]> {
  const memory = () => askChild<NodeJS.MemoryUsage>(api.proc, 'rss');
  const start = await memory();
  const before = start.rss;
  let peak = before;
  const peaks = { heapUsed: start.heapUsed, external: start.external, arrayBuffers: start.arrayBuffers };
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const m = await memory();
      peak = Math.max(peak, m.rss);
      for (const k of Object.keys(peaks) as (keyof typeof peaks)[]) peaks[k] = Math.max(peaks[k], m[k]);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const out: string[] = [];
  try {
    const started = performance.now();
    const d = await downloadDay(api, siteId, day);
    const link = (name: string) => d.links.find((f) => f.name === name)?.url as string;
    out.push(
      `export: one day of raw files              ${((d.lines * 1000) / d.ms).toFixed(0).padStart(7)} records/s  ${d.lines.toLocaleString('en')} records in ${d.files} files, ${mb(d.bytes)} gzip, ${(d.ms / 1000).toFixed(1)} s (POST and listing ${(performance.now() - started - d.ms).toFixed(0)} ms)${d.lines === d.listed ? '' : `   ${d.listed} listed!`}`,
    );
    const t1 = performance.now();
    const rollups = await download(link('rollups.ndjson'), false);
    const rollupMs = performance.now() - t1;
    out.push(
      `export: rollups.ndjson                    ${((rollups.lines * 1000) / rollupMs).toFixed(0).padStart(7)} rows/s  ${rollups.lines.toLocaleString('en')} rows, ${mb(rollups.bytes)}, ${(rollupMs / 1000).toFixed(1)} s`,
    );
    // Again, from the copy kept at the first download.
    const t2 = performance.now();
    await download(link('settings.json'), false);
    out.push(`export: settings.json again (kept copy)   ${(performance.now() - t2).toFixed(0).padStart(7)} ms`);
  } finally {
    sampling = false;
    await sampler;
  }
  // Collect beside an export: page reports at a fixed concurrency alone, then while the day before is
  // exported and downloaded (raw files come from the stats pool, reports go to the ingest buffer).
  const collect = collectRequest(api.collect.publicKey, api.collect.hostname);
  const seconds = 4;
  const alone = await runLoad(api.url, collect, { seconds, concurrency });
  const before2 = new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  const exporting = downloadDay(api, siteId, before2);
  const beside = await runLoad(api.url, collect, { seconds, concurrency });
  await exporting;
  out.push(
    `export: POST /collect beside an export    ${beside.rps.toFixed(0).padStart(7)} req/s  p99 ${beside.p99.toFixed(1)} ms   ${((beside.rps / alone.rps) * 100).toFixed(1)}% of collect alone (${alone.rps.toFixed(0)} req/s, p99 ${alone.p99.toFixed(1)} ms)`,
  );
  out.push(
    `export: API heap while downloading        peak heap ${mb(peaks.heapUsed)} (was ${mb(start.heapUsed)}), external ${mb(peaks.external)} (was ${mb(start.external)}), array buffers ${mb(peaks.arrayBuffers)}`,
  );
  out.push(
    `export: API rss while downloading         ${mb(peak).padStart(10)} peak, +${mb(peak - before)} over the ${mb(before)} before (goal: under 200 MB added)`,
  );
  return out;
}
