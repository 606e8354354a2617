// Session groups of one journeys answer in columns: step labels as numbers into one list of names, goal flags as
// numbers into one list of flag strings. A month of page zoom has very many groups of up to five steps; as objects
// of strings, parsing, hashing and collecting them was slow (docs/performance/history.md,
// "Figures once kept in code comments"), while the fold and the paths read typed arrays by number. Groups are
// never summed: every figure of the answer adds up sessions, so two equal groups count exactly as one group of
// their sum. Exposures (one per experiment variant and day) are summed as they come.
import { JOURNEY_LIMITS } from '@us/shared';
import { PairIndex } from './pair-index.ts';
import type { JourneyRow } from './statement.ts';

/** Slots per group in `steps` and `win`: the first five steps, or −2..+2 around the anchor. */
export const WIDTH = JOURNEY_LIMITS.flowSteps;
/** The anchor's slot in `win`. */
export const ANCHOR_AT = 2;
/** An empty slot. */
export const NONE = -1;

export interface Exposure {
  experiment: string;
  variant: string;
  sessions: number;
  converted: number | null;
}

/** Numbers for strings, in order of first sight. */
class Numbering {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();

  id(text: string): number {
    let id = this.ids.get(text);
    if (id === undefined) {
      id = this.list.push(text) - 1;
      this.ids.set(text, id);
    }
    return id;
  }
}

export class GroupColumns {
  count = 0;
  /** Per group WIDTH label numbers from its first step, NONE after its last. */
  steps = new Int32Array(0);
  /** Anchored answers only: per group WIDTH label numbers, the anchor at ANCHOR_AT (all NONE: not reached). */
  win: Int32Array | null;
  flags = new Int32Array(0);
  sessions = new Int32Array(0);
  readonly exposures = new Map<string, Exposure>();
  private readonly labelIds = new Numbering();
  private readonly flagIds = new Numbering();

  /** Step labels by number. */
  get names(): readonly string[] {
    return this.labelIds.list;
  }

  /** Goal flags as stored, by number: one character per goal, '1' when the group reached it. */
  get flagNames(): readonly string[] {
    return this.flagIds.list;
  }

  constructor(anchored = false) {
    this.win = anchored ? new Int32Array(0) : null;
  }

  label(name: string): number {
    return this.labelIds.id(name);
  }

  private flag(flags: string): number {
    return this.flagIds.id(flags);
  }

  private reserve(more: number): void {
    const need = this.count + more;
    if (need <= this.sessions.length) return;
    const size = Math.max(need, this.sessions.length * 2, 1024);
    const grow = (a: Int32Array, per: number) => {
      const b = new Int32Array(size * per).fill(NONE);
      b.set(a.subarray(0, this.count * per));
      return b;
    };
    this.steps = grow(this.steps, WIDTH);
    if (this.win) this.win = grow(this.win, WIDTH);
    this.flags = grow(this.flags, 1);
    this.sessions = grow(this.sessions, 1);
  }

  /** One group of sessions: its steps from the first, goal flags, and (anchored) steps around the anchor. */
  add(steps: readonly string[] | null, flags: string, sessions: number, around?: { win: readonly string[]; pre: number }): void {
    this.reserve(1);
    const g = this.count++;
    const at = g * WIDTH;
    const n = Math.min(steps?.length ?? 0, WIDTH);
    for (let j = 0; j < n; j++) this.steps[at + j] = this.label((steps as readonly string[])[j] as string);
    if (this.win && around) {
      const start = ANCHOR_AT - around.pre;
      around.win.forEach((label, j) => {
        if (start + j >= 0 && start + j < WIDTH) (this.win as Int32Array)[at + start + j] = this.label(label);
      });
    }
    this.flags[g] = this.flag(flags);
    this.sessions[g] = sessions;
  }

  addExposure(x: Exposure): void {
    const key = `${x.experiment}\u0001${x.variant}`;
    const had = this.exposures.get(key);
    if (!had) this.exposures.set(key, { ...x });
    else {
      had.sessions += x.sessions;
      if (x.converted !== null) had.converted = (had.converted ?? 0) + x.converted;
    }
  }

  /** A row of the journeys statement. */
  addRow(r: JourneyRow): void {
    if (r.part === 'x') {
      this.addExposure({
        experiment: r.experiment as string,
        variant: r.variant as string,
        sessions: r.sessions,
        converted: r.converted,
      });
      return;
    }
    const flags = (r.goals ?? []).map((g) => (g ? '1' : '0')).join('');
    this.add(r.steps, flags, r.sessions, r.win ? { win: r.win, pre: r.pre ?? 0 } : undefined);
  }

  /**
   * Equal groups (same steps, same goal flags) as one, for the stored span: a month of page zoom has many equal
   * groups (docs/performance/history.md, "Figures once kept in code comments"). A group is numbered by pairs:
   * ((steps 1–2, steps 3–4), (step 5, flags)).
   */
  summed(): GroupColumns {
    if (this.win || WIDTH !== 5) throw new Error('only unanchored groups of five steps are summed');
    const pairs = new PairIndex();
    const heads = new PairIndex();
    const groups = new PairIndex();
    const out = new GroupColumns(false);
    for (const name of this.names) out.label(name);
    for (const f of this.flagNames) out.flag(f);
    for (const x of this.exposures.values()) out.addExposure(x);
    const st = this.steps;
    for (let g = 0; g < this.count; g++) {
      const at = g * WIDTH;
      const head = heads.id(
        pairs.id(st[at] as number, st[at + 1] as number),
        pairs.id(st[at + 2] as number, st[at + 3] as number),
      );
      const k = groups.id(head, pairs.id(st[at + 4] as number, this.flags[g] as number));
      if (k === out.count) {
        out.reserve(1);
        out.steps.set(st.subarray(at, at + WIDTH), k * WIDTH);
        out.flags[k] = this.flags[g] as number;
        out.sessions[k] = 0;
        out.count++;
      }
      out.sessions[k] = (out.sessions[k] as number) + (this.sessions[g] as number);
    }
    return out;
  }

  /** Goal indices each flag string reached, by flag number. */
  reachedGoals(): number[][] {
    return this.flagNames.map((f) => [...f].flatMap((c, i) => (c === '1' ? [i] : [])));
  }

  /** Unanchored columns made from whole arrays (a packed span read back, packing.ts). */
  static of(parts: {
    names: readonly string[];
    flagNames: readonly string[];
    steps: Int32Array<ArrayBuffer>;
    flags: Int32Array<ArrayBuffer>;
    sessions: Int32Array<ArrayBuffer>;
    exposures: readonly Exposure[];
  }): GroupColumns {
    const cols = new GroupColumns(false);
    for (const name of parts.names) cols.label(name);
    for (const f of parts.flagNames) cols.flag(f);
    for (const x of parts.exposures) cols.addExposure(x);
    cols.steps = parts.steps;
    cols.flags = parts.flags;
    cols.sessions = parts.sessions;
    cols.count = parts.sessions.length;
    return cols;
  }
}
