// A progress line on stderr: redrawn in place on a terminal, plain lines (every 10% or 15 s) otherwise.
import type { GenerateProgress } from './generate.ts';

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en');

export function progressReporter(label: string, stream: NodeJS.WriteStream = process.stderr) {
  const tty = Boolean(stream.isTTY);
  let lastDraw = 0;
  let lastLine = 0;
  let lastTenth = -1;
  let drawn = false;
  const line = (p: GenerateProgress) => {
    const frac = p.daysTotal ? p.daysDone / p.daysTotal : 1;
    const width = 24;
    const filled = Math.round(frac * width);
    const rate = p.elapsedMs > 0 ? (p.rows * 1000) / p.elapsedMs : 0;
    const eta = p.daysDone >= p.daysTotal ? 'done' : p.etaMs === null ? 'ETA …' : `ETA ${formatDuration(p.etaMs)}`;
    return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${p.daysDone}/${p.daysTotal} days  ${fmt(p.rows)} rows  ${fmt(rate)} rows/s  ${formatDuration(p.elapsedMs)}  ${eta}`;
  };
  return {
    update(p: GenerateProgress) {
      const now = Date.now();
      const finished = p.daysDone >= p.daysTotal;
      if (tty) {
        if (!finished && now - lastDraw < 100) return;
        lastDraw = now;
        stream.write(`\r\x1b[2K${line(p)}`);
        drawn = true;
        return;
      }
      const tenth = Math.floor((p.daysTotal ? p.daysDone / p.daysTotal : 1) * 10);
      if (tenth > lastTenth || now - lastLine >= 15_000 || finished) {
        if (finished && lastTenth === 10) return;
        lastTenth = tenth;
        lastLine = now;
        stream.write(`${line(p)}\n`);
      }
    },
    /** Ends the in-place line (terminal) so what follows starts on a new line. */
    end() {
      if (tty && drawn) stream.write('\n');
      drawn = false;
    },
  };
}
