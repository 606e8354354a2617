// Copies of export files under DATA_DIR/exports/<export>/<file>: a file is written as it is first sent
// (services/export/files.ts), and a copy is kept when the whole file went out, so later downloads within
// the day read the same bytes (a snapshot as of the first download) instead of the records as they are
// then. A download cut short leaves no copy: it is written to a `.part` file renamed only at the end.
// Copies older than a day are swept hourly on each node (jobs/scheduler.ts).
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, type Readable } from 'node:stream';

/** Where a node keeps its export copies. */
export const exportsDirOf = (dataDir: string) => path.resolve(dataDir, 'exports');

export class ExportCopies {
  constructor(readonly root: string) {}

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

  /**
   * A tee for one file: given the file's stream, it answers the stream to send, and keeps a copy once
   * the source has ended. Both ends are attached in one step, so neither misses a chunk; a client that
   * goes away does not stop the copy (the next download reads it).
   */
  async tee(exportId: string, file: string): Promise<(source: Readable) => Readable> {
    const full = this.pathOf(exportId, file);
    const part = `${full}.${randomUUID()}.part`;
    await mkdir(path.dirname(full), { recursive: true });
    return (source) => {
      const toClient = new PassThrough();
      const toDisk = createWriteStream(part);
      let ended = false;
      const drop = () => {
        toDisk.destroy();
        unlink(part).catch(() => undefined);
      };
      source.once('end', () => {
        ended = true;
      });
      source.once('error', (e) => {
        drop();
        toClient.destroy(e);
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

  /** Deletes the copies of exports whose folder is older than `before`; answers how many exports. */
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
