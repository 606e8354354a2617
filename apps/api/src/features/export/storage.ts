// Copies of export files: a file is written as it is first sent (features/export/files.ts), and a copy
// is kept when the whole file was written, so later downloads within the day get the same bytes (a
// snapshot as of the first download) instead of the records as they are then. Two stores: this node's
// DATA_DIR/exports/<export>/<file> (here; a `.part` file renamed only at the end, so a failed one leaves
// nothing) or S3-compatible storage shared by every node (s3-copies.ts). Copies older than a day are
// swept hourly (features/export/export-sweep.ts).
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, statfs, unlink } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';

/** Where a node keeps its export copies. */
export const exportsDirOf = (dataDir: string) => path.resolve(dataDir, 'exports');

/** A kept copy: its bytes, or a signed address to send the client to. */
export type KeptCopy = { stream: Readable } | { redirect: string };

export interface CopyStore {
  /** The kept copy of a file, or null; a redirect is valid until `until` (the download link's expiry). */
  find(exportId: string, file: string, until: Date): Promise<KeptCopy | null>;
  /**
   * A tee for one file: given the file's stream, it answers the stream to send, and keeps a copy once
   * the source has ended. Both ends are attached in one step, so neither misses a chunk. A source that
   * fails or is closed before its end (the download was cut, or its client went away: faces/downloads.ts
   * then stops the file) leaves no copy, and ends the stream to send.
   */
  tee(exportId: string, file: string): Promise<(source: Readable) => Readable>;
  /** Deletes copies older than `before`; answers how many exports (folders) or objects went. */
  sweep(before: Date): Promise<number>;
}

/**
 * Space a copy leaves on the disk at least: 2 GiB and a tenth of it. DATA_DIR also holds the rows saved at a stop
 * (ingest-spill) and, without DATABASE_URL, the database itself: copies (a full copy per export, a day each) filled
 * it, and a full disk lost what those needed to write.
 */
const KEEP_FREE = { bytes: 2 * 1024 ** 3, share: 0.1 };

/** Free and total bytes of the file system holding `dir`. */
async function diskOf(dir: string): Promise<{ free: number; total: number }> {
  const s = await statfs(dir);
  return { free: s.bavail * s.bsize, total: s.blocks * s.bsize };
}

export class DataDirCopies implements CopyStore {
  constructor(
    readonly root: string,
    private readonly disk: (dir: string) => Promise<{ free: number; total: number }> = diskOf,
  ) {}

  async find(exportId: string, file: string): Promise<KeptCopy | null> {
    const stream = await this.read(exportId, file);
    return stream ? { stream } : null;
  }

  private pathOf(exportId: string, file: string): string {
    // Both come from a signed link; still, nothing may leave the export's own folder.
    const full = path.resolve(this.root, exportId, file);
    if (!full.startsWith(path.resolve(this.root, exportId) + path.sep)) throw new Error(`bad export file name: ${file}`);
    return full;
  }

  /** The kept copy of a file, or null. */
  async read(exportId: string, file: string): Promise<Readable | null> {
    const full = this.pathOf(exportId, file);
    try {
      if (!(await stat(full)).isFile()) return null;
    } catch {
      return null;
    }
    return createReadStream(full);
  }

  async tee(exportId: string, file: string): Promise<(source: Readable) => Readable> {
    const full = this.pathOf(exportId, file);
    const part = `${full}.${randomUUID()}.part`;
    await mkdir(path.dirname(full), { recursive: true });
    const { free, total } = await this.disk(this.root).catch(() => ({ free: 0, total: 0 }));
    // Short of space: the file is sent as it is made, and no copy is kept (the next download makes it again).
    if (free < Math.max(KEEP_FREE.bytes, total * KEEP_FREE.share)) return (source) => source;
    return (source) => {
      const toClient = new PassThrough();
      const toDisk = createWriteStream(part);
      let ended = false;
      // Removed once the file is closed: unlinked while it was still being opened, the part was made after its removal.
      const drop = () => {
        if (toDisk.closed) unlink(part).catch(() => undefined);
        else toDisk.once('close', () => unlink(part).catch(() => undefined));
        toDisk.destroy();
      };
      source.once('end', () => {
        ended = true;
      });
      source.once('error', (e) => {
        drop();
        toClient.destroy(e);
      });
      source.once('close', () => {
        if (ended) return;
        drop();
        toClient.destroy();
      });
      toDisk.once('error', drop);
      toDisk.once('finish', () => {
        if (ended) rename(part, full).catch(drop);
        else unlink(part).catch(() => undefined);
      });
      source.pipe(toDisk);
      source.pipe(toClient);
      return toClient;
    };
  }

  async sweep(before: Date): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch {
      return 0;
    }
    let swept = 0;
    for (const name of names) {
      const dir = path.join(this.root, name);
      const s = await stat(dir).catch(() => null);
      if (s && s.mtime < before) {
        await rm(dir, { recursive: true, force: true });
        swept++;
      }
    }
    return swept;
  }
}
