/** Axis arithmetic of the series chart. */

/** A round step near `raw`: 1, 2, 2.5 or 5 times a power of ten, at least 1 (counts are whole). */
export function niceStep(raw: number): number {
  if (raw <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(raw));
  const f = raw / power;
  const nice = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
  return Math.max(1, nice * power);
}

/** Ticks from 0 to a round top at or above `max`, about `count` of them. */
export function yTicks(max: number, count = 4): number[] {
  const step = niceStep(Math.max(max, 1) / count);
  const top = Math.max(step, Math.ceil(max / step) * step);
  const ticks: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push(v);
  return ticks;
}

/** Which of `n` days get an axis label: evenly spread, at most `most`, always the first. */
export function labelIndexes(n: number, most: number): number[] {
  if (n <= 0) return [];
  const every = Math.max(1, Math.ceil(n / Math.max(1, most)));
  const out: number[] = [];
  for (let i = 0; i < n; i += every) out.push(i);
  return out;
}

/**
 * An SVG path through points. A point without a value (null: not collected) leaves a gap, so the line
 * never pretends it was zero; the next point starts a new piece.
 */
export function linePath(points: readonly (readonly [number, number | null])[]): string {
  let pen = 'M';
  const parts: string[] = [];
  for (const [x, y] of points) {
    if (y === null) {
      pen = 'M';
      continue;
    }
    parts.push(`${pen}${x.toFixed(1)},${y.toFixed(1)}`);
    pen = 'L';
  }
  return parts.join(' ');
}
