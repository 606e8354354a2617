import { randomBytes, randomUUID } from 'node:crypto';
import { get, type IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { type PageviewRow, pageviewRow } from '@us/db';
import pg from 'pg';
import { inject } from 'vitest';
import { DOWNLOADS_AT_ONCE } from '../../src/faces/downloads.ts';
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

export interface ExportAnswer {
  id: string;
  files: { name: string; url: string; expiresAt: string }[];
  archive: { files: number; records: number; complete: boolean };
}

/** The link of one of an export's six files. */
export const linkOf = (answer: ExportAnswer, name: string) => answer.files.find((f) => f.name === name)?.url as string;

export interface ArchiveEntry {
  kind: string;
  hour: string;
  records: number;
  name: string;
  url: string;
}

/** The raw-record files archive.json lists, read through its link. */
export async function archiveOf(t: TestServer, answer: ExportAnswer): Promise<ArchiveEntry[]> {
  const res = await fetchBytes(t, linkOf(answer, 'archive.json'));
  if (res.status !== 200) throw new Error(`archive.json answered ${res.status}`);
  return JSON.parse(res.body.toString()).files;
}

/** The records of a gzipped NDJSON raw-record file, read through its link. */
export async function recordsOf(t: TestServer, url: string): Promise<Record<string, unknown>[]> {
  const res = await fetchBytes(t, url);
  if (res.status !== 200) throw new Error(`a raw-record file answered ${res.status}`);
  return gunzipSync(res.body)
    .toString()
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** What a held download got: its status (0 when cut before its headers), whether the whole file came, its bytes. */
export interface HeldOutcome {
  status: number;
  complete: boolean;
  bytes: Buffer;
}

export interface HeldDownload {
  /** The answer's status once its headers arrive; 0 when the connection ended before them. */
  status: Promise<number>;
  /** Reads the rest of the answer (the reader was paused until now) and tells how it ended. */
  finish(): Promise<HeldOutcome>;
  /** Closes the connection, as a client that goes away does. */
  abort(): void;
  /** True once the connection ended (the file came whole, or the server cut it). */
  readonly ended: boolean;
  /** Settles when the connection ends, without reading on (the reader stays paused). */
  readonly closed: Promise<HeldOutcome>;
}

/**
 * A download as a slow reader makes it: the request is sent and the answer is not read (Node stops
 * reading the socket once a few kilobytes wait), until `finish`, or until `abort` closes the connection.
 */
export function holdDownload(url: string): HeldDownload {
  const chunks: Buffer[] = [];
  let status = 0;
  let response: IncomingMessage | null = null;
  let ended = false;
  let settle!: (o: HeldOutcome) => void;
  const outcome = new Promise<HeldOutcome>((r) => {
    settle = r;
  });
  let headers!: (status: number) => void;
  const statusOf = new Promise<number>((r) => {
    headers = r;
  });
  const done = (complete: boolean) => {
    ended = true;
    headers(status);
    settle({ status, complete, bytes: Buffer.concat(chunks) });
  };
  const req = get(url, { agent: false });
  req.once('response', (res) => {
    response = res;
    status = res.statusCode ?? 0;
    headers(status);
    // Paused before a 'data' listener is added, so adding one does not start the flow.
    res.pause();
    res.on('data', (c: Buffer) => chunks.push(c));
    res.once('end', () => done(res.complete));
    res.once('close', () => done(res.complete));
    res.once('error', () => done(false));
  });
  req.once('error', () => done(false));
  return {
    status: statusOf,
    finish() {
      response?.resume();
      return outcome;
    },
    abort() {
      req.destroy();
    },
    get ended() {
      return ended;
    },
    closed: outcome,
  };
}

/** How many of a workspace's download slots are free now (each taken and given straight back to count it). */
export async function freeDownloadSlots(t: TestServer, workspaceId: string): Promise<number> {
  const key = `downloads-running:${workspaceId}`;
  const taken: string[] = [];
  for (let i = 0; i < DOWNLOADS_AT_ONCE; i++) {
    const holder = `probe-${randomUUID()}`;
    if (await t.deps.hot.acquireSlot(key, holder, DOWNLOADS_AT_ONCE, 60)) taken.push(holder);
  }
  for (const holder of taken) await t.deps.hot.releaseSlot(key, holder);
  return taken.length;
}

/** Statements of a site's raw-record downloads (COPY) that PostgreSQL is still running. */
export async function runningCopies(t: TestServer, siteId: string): Promise<number> {
  const rows = await t.deps.orm.em
    .fork()
    .getConnection()
    .execute<{ n: string }[]>(
      `select count(*) as n from pg_stat_activity
        where state = 'active' and query like 'copy (%' and position(? in query) > 0 and pid <> pg_backend_pid()`,
      [siteId],
      'all',
    );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Holds an exclusive lock on one raw table's partition from a connection of its own, so a statement
 * reading it waits (deterministically "a statement still running"), until the returned function is called.
 */
export async function lockPartition(partition: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  await client.query('begin');
  await client.query(`lock table "${partition}" in access exclusive mode`);
  return async () => {
    await client.query('rollback');
    await client.end();
  };
}

/**
 * Pageviews that make a large raw-record file: random 2,000-character paths, which gzip cannot shrink much
 * (about 1.5 kB each once gzipped), so a few hundred fill every buffer between the server and a client that
 * does not read.
 */
export const bulkyPageviews = (siteId: string, at: Date, n: number): PageviewRow[] =>
  Array.from({ length: n }, (_, i) =>
    pageviewRow(siteId, new Date(at.getTime() + i), { path: `/${randomBytes(1500).toString('base64url')}` }),
  );
