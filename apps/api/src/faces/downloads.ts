// GET /v1/downloads/{token}: the files of an export (features/export/). The link is the credential: a
// token this service did not sign, or whose export is gone, is 404; one past its hour is 410. Each data
// file is written as it is sent (raw records as a COPY stream, gzipped NDJSON) and kept (storage.ts).
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { pgPoolOf } from '@us/db';
import { EXPORT_LIMITS } from '@us/shared';
import type { Context } from 'koa';
import type { Deps } from '../core/deps.ts';
import { logFailure, toAppError } from '../core/error-map.ts';
import { AppError } from '../core/errors.ts';
import { sendProblem } from '../core/http/problem-response.ts';
import { copyStoreOf } from '../features/export/copies.ts';
import { downloadUrl } from '../features/export/export.ts';
import { archiveFile, RAW_KINDS, type RawKind, rollupsFile, settingsFile, siteStoreFile } from '../features/export/files.ts';
import { makeLink, readLink } from '../features/export/links.ts';
import type { CopyStore } from '../features/export/storage.ts';

interface ExportRow {
  id: string;
  site_id: string;
  workspace_id: string;
  created_at: Date;
  range_from: string | null;
  range_to: string;
  archive: { kind: RawKind; hour: string; records: number }[];
}

const notMade = () =>
  new AppError(404, 'This download link was not made by an export (or its files are gone): make a new export');

/** Data files of one workspace produced at once (each holds a stats-pool connection while it is sent). */
export const DOWNLOADS_AT_ONCE = 2;

async function takeDownloadSlot(deps: Deps, workspaceId: string): Promise<() => void> {
  const key = `downloads-running:${workspaceId}`;
  const holder = randomUUID();
  // A slot never given back (a process gone mid-download) frees itself after 15 minutes.
  if (!(await deps.hot.acquireSlot(key, holder, DOWNLOADS_AT_ONCE, 900))) {
    throw new AppError(
      429,
      `This workspace already has ${DOWNLOADS_AT_ONCE} export files being written: download them one or two at a time (files already sent are kept and come at once)`,
      { retryAfter: 5 },
    );
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    deps.hot.releaseSlot(key, holder).catch(() => undefined);
  };
}

export const archiveName = (kind: string, hour: string) => `archive/${kind}/${hour.slice(0, 13)}.ndjson.gz`;

export function downloadsHandler(deps: Deps) {
  const copies = copyStoreOf(deps.env);
  const serve = fileServer(deps, copies);
  return async (ctx: Context) => {
    try {
      await serve(ctx);
    } catch (err) {
      // The path is the credential: it stays out of the log.
      const app = toAppError(err);
      logFailure(deps.logger, `${ctx.method} /v1/downloads/…`, app);
      sendProblem(ctx, app);
    }
  };
}

function fileServer(deps: Deps, copies: CopyStore) {
  return async (ctx: Context) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      return sendProblem(ctx, new AppError(404, 'Downloads are fetched with GET'));
    }
    // Tokens are URL-safe: no decoding is needed (and a malformed %-escape must not throw).
    const link = readLink(deps.ciphers.downloads, ctx.path.slice('/v1/downloads/'.length));
    if (!link) return sendProblem(ctx, notMade());
    if (link.expires * 1000 <= Date.now()) {
      return sendProblem(ctx, new AppError(410, 'This download link has expired (links work for one hour): make a new export'));
    }
    const em = deps.statsOrm.em.fork();
    const [row] = await em.getConnection().execute<ExportRow[]>(
      `select id, site_id, workspace_id, created_at, to_char(range_from, 'YYYY-MM-DD') as range_from, to_char(range_to, 'YYYY-MM-DD') as range_to, archive
           from exports where id = ?::uuid and created_at > now() - make_interval(secs => ?)`,
      [/^[0-9a-f-]{36}$/.test(link.exportId) ? link.exportId : '00000000-0000-0000-0000-000000000000', EXPORT_LIMITS.keptSeconds],
      'all',
    );
    if (!row) return sendProblem(ctx, notMade());
    // Links made from this one expire with it.
    const linkTo = (file: string) =>
      downloadUrl(deps, makeLink(deps.ciphers.downloads, row.id, file, (link.expires - EXPORT_LIMITS.linkSeconds) * 1000).token);
    const file = link.file;
    // A store that cannot be read is no copy: the file is written again.
    const kept = await copies.find(row.id, file, new Date(link.expires * 1000)).catch(() => null);
    const headers = (type: string) => {
      ctx.set('Content-Disposition', `attachment; filename="${file.replaceAll('/', '-')}"`);
      ctx.set('Cache-Control', 'private, no-store');
      ctx.type = type;
    };
    /**
     * Sends a data file as it is written, keeping a copy (storage.ts), or its kept copy as it was. The
     * listings (archive.json, manifest.json) are made from the export's row each time, never kept.
     */
    const send = async (
      type: string,
      body: () => AsyncIterable<string> | Promise<string | Readable>,
      opts: { gzip?: boolean; keep?: boolean } = {},
    ) => {
      const keep = opts.keep ?? true;
      headers(opts.gzip ? 'application/gzip' : type);
      // HEAD: the headers only. A body made and never read would hold its connection and slot.
      if (ctx.method === 'HEAD') {
        ctx.status = 200;
        return;
      }
      if (keep && kept) {
        if ('redirect' in kept) {
          ctx.status = 302;
          ctx.redirect(kept.redirect);
        } else ctx.body = kept.stream;
        return;
      }
      // A data file is read from the database while it is sent, on the stats pool: a workspace gets
      // DOWNLOADS_AT_ONCE of those at a time, so one client downloading in parallel cannot hold the pool.
      const release = keep ? await takeDownloadSlot(deps, row.workspace_id) : () => undefined;
      try {
        const made = body();
        const value = made instanceof Promise ? await made : made;
        const stream = value instanceof Readable ? value : Readable.from(typeof value === 'string' ? [value] : value);
        const out = opts.gzip ? stream.pipe(createGzip()) : stream;
        const sent = keep ? (await copies.tee(row.id, file))(out) : out;
        sent.once('close', release);
        ctx.body = sent;
      } catch (e) {
        release();
        throw e;
      }
    };
    switch (file) {
      case 'settings.json':
        return send('application/json', () => settingsFile(em, row.site_id));
      case 'site-store.ndjson':
        return send('application/x-ndjson', () => siteStoreFile(em, row.site_id));
      case 'rollups.ndjson':
        return send('application/x-ndjson', () => rollupsFile(em, row.site_id));
      case 'archive.json':
        return send(
          'application/json',
          async () =>
            JSON.stringify(
              {
                from: row.range_from,
                to: row.range_to,
                files: row.archive.map((f) => ({
                  ...f,
                  name: archiveName(f.kind, f.hour),
                  url: linkTo(archiveName(f.kind, f.hour)),
                })),
              },
              null,
              1,
            ),
          { keep: false },
        );
      case 'manifest.json':
        return send('application/json', async () => JSON.stringify(await manifest(em, row, linkTo), null, 2), {
          keep: false,
        });
    }
    const hit = row.archive.find((f) => archiveName(f.kind, f.hour) === file);
    if (!hit) return sendProblem(ctx, notMade());
    const { kind, hour } = hit;
    return send('', async () => archiveFile(await pgPoolOf(deps.statsOrm), row.site_id, kind, new Date(hour)), { gzip: true });
  };
}

async function manifest(em: ReturnType<Deps['statsOrm']['em']['fork']>, row: ExportRow, linkTo: (file: string) => string) {
  const count = async (sql: string) =>
    Number((await em.getConnection().execute<{ n: string }[]>(sql, [row.site_id], 'all'))[0]?.n ?? 0);
  const rollups = await count('select count(*) as n from daily_rollups where site_id = ?');
  const totals = await count(`select count(*) as n from daily_rollups where site_id = ? and dimension = ''`);
  const stored = await count(`select count(*) as n from result_days where site_id = ? and kind not like '%-span'`);
  const searchWeeks = await count('select count(*) as n from search_weeks where site_id = ?');
  const perKind = Object.fromEntries(
    RAW_KINDS.map((k) => [k, row.archive.filter((f) => f.kind === k).reduce((n, f) => n + f.records, 0)]),
  );
  return {
    export: row.id,
    site: row.site_id,
    createdAt: new Date(row.created_at).toISOString(),
    range: { from: row.range_from, to: row.range_to },
    files: [
      { name: 'settings.json', url: linkTo('settings.json'), holds: 'the site: name, time zone, retention, hostnames, settings' },
      {
        name: 'site-store.ndjson',
        url: linkTo('site-store.ndjson'),
        holds: 'one JSON object per line: settings, daily totals, search weeks, stored results per day',
        counts: { settings: 1, 'daily-totals': totals, 'search-week': searchWeeks, 'stored-day': stored },
      },
      { name: 'rollups.ndjson', url: linkTo('rollups.ndjson'), holds: 'every daily rollup row', counts: { rows: rollups } },
      {
        name: 'archive.json',
        url: linkTo('archive.json'),
        holds: 'raw records: one gzipped NDJSON file per kind and UTC hour, each with its own link',
        counts: { files: row.archive.length, ...perKind },
      },
    ],
  };
}
