// GET /v1/downloads/{token}: the files of an export (features/export/). The link is the credential: a
// token this service did not sign, or whose export is gone, is 404; one past its hour is 410. Each data
// file is written as it is sent (raw records as a COPY stream, gzipped NDJSON) and kept (storage.ts).
// Every file made from the database takes one of the workspace's download slots, given back only once
// its statement has really ended; a client that stops reading, or a file that takes too long, is cut
// (download-guard.ts).
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
import { rollupsFile, settingsFile, siteStoreFile } from '../features/export/files.ts';
import { DOWNLOAD_LIMITS, type DownloadLimits } from '../features/export/limits.ts';
import { makeLink, readLink } from '../features/export/links.ts';
import { archiveListing, archiveName, type ExportRow, manifest } from '../features/export/manifest.ts';
import { archiveFile } from '../features/export/raw-files.ts';
import type { CopyStore } from '../features/export/storage.ts';
import { watchDownload } from './download-guard.ts';

const notMade = () =>
  new AppError(404, 'This download link was not made by an export (or its files are gone): make a new export');

/** Files of one workspace made from the database at once (each holds a stats-pool connection while it is made). */
export const DOWNLOADS_AT_ONCE = 2;

/**
 * Files made from the database at once on this node, over every workspace: each holds a stats-pool connection
 * for as long as its client reads (up to the file's 15 minutes), so a few workspaces' slow downloads held the
 * pool every tenant's dashboard asks on. A third of the pool, at least one.
 */
export const downloadsOnNode = (statsPoolSize: number) => Math.max(1, Math.floor(statsPoolSize / 3));

async function takeDownloadSlot(
  deps: Deps,
  workspaceId: string,
  limits: DownloadLimits,
  node: { running: number; most: number },
): Promise<() => void> {
  if (node.running >= node.most) {
    throw new AppError(503, 'Many export files are being written right now: try again in a moment', { retryAfter: 5 });
  }
  node.running += 1;
  const key = `downloads-running:${workspaceId}`;
  const holder = randomUUID();
  let taken = false;
  try {
    taken = await deps.hot.acquireSlot(key, holder, DOWNLOADS_AT_ONCE, Math.ceil(limits.fileMs / 1000) + 60);
  } finally {
    if (!taken) node.running -= 1;
  }
  // A slot never given back (a process gone mid-download) frees itself after the file's time limit and a minute.
  if (!taken) {
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
    node.running -= 1;
    deps.hot.releaseSlot(key, holder).catch(() => undefined);
  };
}

/** A file being made: its bytes, when the database work behind them has ended, and how to end it early. */
interface Made {
  stream: Readable;
  /** Resolves once no statement of the file runs any more and its connection is given back. */
  done: Promise<void>;
  /** Ends the file's work early; resolves as `done` does. */
  stop(): Promise<void>;
}

/** A file written by an async generator of text, whose statements run on the stats pool as it is read. */
function madeFrom(chunks: AsyncIterable<string>): Made {
  const stream = Readable.from(chunks);
  // 'close' comes once the generator has returned: a statement under way finishes first.
  const done = new Promise<void>((resolve) => stream.once('close', () => resolve()));
  return {
    stream,
    done,
    stop: async () => {
      stream.destroy();
      await done;
    },
  };
}

export function downloadsHandler(deps: Deps, limits: Partial<DownloadLimits> & { atOnceOnNode?: number } = {}) {
  const copies = copyStoreOf(deps.env);
  const serve = fileServer(deps, copies, { ...DOWNLOAD_LIMITS, ...limits });
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

function fileServer(deps: Deps, copies: CopyStore, limits: DownloadLimits & { atOnceOnNode?: number }) {
  const node = { running: 0, most: limits.atOnceOnNode ?? downloadsOnNode(deps.env.STATS_POOL_SIZE) };
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
    const headers = (type: string) => {
      ctx.set('Content-Disposition', `attachment; filename="${file.replaceAll('/', '-')}"`);
      ctx.set('Cache-Control', 'private, no-store');
      ctx.type = type;
    };
    // HEAD: the headers only. A body made and never read would hold its connection and slot.
    const headOnly = () => {
      if (ctx.method !== 'HEAD') return false;
      ctx.status = 200;
      return true;
    };

    /** A listing (archive.json, manifest.json): made from the export's row each time, inside a slot, never kept. */
    const sendListing = async (make: () => unknown | Promise<unknown>, indent: number) => {
      headers('application/json');
      if (headOnly()) return;
      const release = await takeDownloadSlot(deps, row.workspace_id, limits, node);
      try {
        ctx.body = JSON.stringify(await make(), null, indent);
      } finally {
        release();
      }
    };

    /** A data file: its kept copy as it was, or written as it is sent while a copy is kept (storage.ts). */
    const sendFile = async (type: string, make: () => Promise<Made>, opts: { gzip?: boolean } = {}) => {
      headers(opts.gzip ? 'application/gzip' : type);
      if (headOnly()) return;
      // A store that cannot be read is no copy: the file is written again.
      const kept = await copies.find(row.id, file, new Date(link.expires * 1000)).catch(() => null);
      if (kept) {
        if ('redirect' in kept) {
          ctx.status = 302;
          ctx.redirect(kept.redirect);
        } else ctx.body = kept.stream;
        return;
      }
      const tee = await copies.tee(row.id, file);
      const release = await takeDownloadSlot(deps, row.workspace_id, limits, node);
      let made: Made;
      try {
        made = await make();
      } catch (e) {
        release();
        throw e;
      }
      // The slot comes back once the file's statement has really ended, however the download ends.
      made.done.then(release, release);
      const out = opts.gzip ? made.stream.pipe(createGzip()) : made.stream;
      // A statement that fails ends the file: no copy is kept, and the client sees it cut.
      if (out !== made.stream) made.stream.once('error', (e) => out.destroy(e));
      const res = ctx.res;
      const unwatch = watchDownload(res, limits, (why) => {
        deps.logger.info(`export download cut: ${why}`);
        res.destroy();
      });
      const ended = () => {
        unwatch();
        if (res.writableFinished) return;
        // Cut, or the client went away: the file is not kept, and its statement is ended.
        out.destroy();
        made.stop().catch((e) => deps.logger.warn(`export download: its statement could not be stopped (${String(e)})`));
      };
      // The client may have gone while the file's statement was being started.
      if (ctx.req.socket.destroyed) ended();
      else res.once('close', ended);
      ctx.body = tee(out);
    };

    switch (file) {
      case 'settings.json':
        return sendFile('application/json', async () => madeFrom(settingsFile(em, row.site_id)));
      case 'site-store.ndjson':
        return sendFile('application/x-ndjson', async () =>
          madeFrom(siteStoreFile(em, row.site_id, { from: row.range_from, to: row.range_to })),
        );
      case 'rollups.ndjson':
        return sendFile('application/x-ndjson', async () => madeFrom(rollupsFile(em, row.site_id)));
      case 'archive.json':
        return sendListing(() => archiveListing(row, linkTo), 1);
      case 'manifest.json':
        return sendListing(() => manifest(em, row, linkTo), 2);
    }
    const hit = row.archive.find((f) => archiveName(f.kind, f.hour) === file);
    if (!hit) return sendProblem(ctx, notMade());
    const { kind, hour } = hit;
    return sendFile(
      '',
      async () =>
        archiveFile(await pgPoolOf(deps.statsOrm), row.site_id, kind, new Date(hour), limits.fileMs, new Date(row.created_at)),
      {
        gzip: true,
      },
    );
  };
}
