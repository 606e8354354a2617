// Watches one export file as it is sent (faces/downloads.ts): a client whose socket has not drained for
// `idleMs` while bytes wait for it (a reader that stopped reading), or a file still being sent after
// `fileMs` (whatever the reason), is cut, so no download holds its slot and stats connection for longer.
import type { ServerResponse } from 'node:http';
import type { DownloadLimits } from '../features/export/limits.ts';

/** Calls `cut` (once) with the reason when the answer stalls or runs too long; the returned function stops watching. */
export function watchDownload(res: ServerResponse, limits: DownloadLimits, cut: (why: string) => void): () => void {
  let stalledSince: number | null = null;
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearInterval(idle);
    clearTimeout(whole);
    res.off('drain', drained);
  };
  const fire = (why: string) => {
    if (stopped) return;
    stop();
    cut(why);
  };
  const drained = () => {
    stalledSince = null;
  };
  // Sampled: a stall starts at the first look that finds bytes waiting, and any drain since ends it.
  const idle = setInterval(
    () => {
      if (!res.writableNeedDrain) return drained();
      stalledSince ??= Date.now();
      if (Date.now() - stalledSince >= limits.idleMs) fire(`the client took no bytes for ${limits.idleMs} ms`);
    },
    Math.max(10, Math.min(1000, Math.floor(limits.idleMs / 4))),
  );
  const whole = setTimeout(() => fire(`the file was still being sent after ${limits.fileMs} ms`), limits.fileMs);
  idle.unref();
  whole.unref();
  res.on('drain', drained);
  return stop;
}
