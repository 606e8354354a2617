// Lines that strangers' requests repeat during an outage (the write buffer full, an origin down, PostgreSQL gone):
// one per kind and window, then how many more there were, instead of one per request (thousands a second, exactly
// when the node is short of everything).

/** How long one kind of line is held back after it was written. */
export const REPEAT_WINDOW_MS = 10_000;
/** Kinds followed at once at most; past it the oldest window is forgotten (keys come from bounded templates). */
const MAX_KINDS = 1_000;

interface Window {
  until: number;
  held: number;
}

/**
 * Whether a line of this kind is written now, and how many of its kind were held back since the last one written
 * (to say so on it). Kinds are route templates, statuses and titles: never a stranger's text.
 */
export function repeatGate(windowMs = REPEAT_WINDOW_MS) {
  const windows = new Map<string, Window>();
  return (kind: string, now = Date.now()): { write: boolean; held: number } => {
    const w = windows.get(kind);
    if (w && now < w.until) {
      w.held++;
      return { write: false, held: 0 };
    }
    const held = w?.held ?? 0;
    windows.delete(kind);
    if (windows.size >= MAX_KINDS) windows.delete(windows.keys().next().value as string);
    windows.set(kind, { until: now + windowMs, held: 0 });
    return { write: true, held };
  };
}

/** " (and 12 more like it in the last 10 s)", or nothing. */
export const heldNote = (held: number, windowMs = REPEAT_WINDOW_MS) =>
  held > 0 ? ` (and ${held} more like it in the last ${Math.round(windowMs / 1000)} s)` : '';
