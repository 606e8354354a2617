/** A map whose entries carry the instant (ms) they expire at. */
type Expiring = Map<string, { expiresAt: number }>;

/** Entries looked at between two checks of the step's time. */
const ENTRIES_PER_CHECK = 256;

/**
 * Forgets the expired entries of some maps a slice at a time. A pass starts at most every `everyMs`
 * (by the store's clock); each `step` goes on from where the last one stopped and stops once `stepMs`
 * have passed (a Map's iterator stays valid while entries are deleted or added). One pass over a busy node's
 * keys in one go held the event loop, a pause for every request of that moment
 * (docs/performance/history.md, "Four small cuts the profile still showed"). Reads never depend
 * on the sweep (the store checks expiry on every read): it only gives the memory back.
 */
export class ExpirySweep {
  private pass: Generator<void, void> | null = null;
  private lastPassAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly maps: readonly Expiring[],
    private readonly now: () => number,
    private readonly timing: { everyMs: number; stepMs: number } = { everyMs: 60_000, stepMs: 1 },
  ) {}

  /** Sweeps for up to `stepMs` (at least one slice), starting a pass when one is due. Answers whether a pass is under way. */
  step(): boolean {
    if (!this.pass) {
      const t = this.now();
      if (t - this.lastPassAt < this.timing.everyMs) return false;
      this.lastPassAt = t;
      this.pass = this.sweep(t);
    }
    const until = performance.now() + this.timing.stepMs;
    do {
      if (this.pass.next().done) {
        this.pass = null;
        return false;
      }
    } while (performance.now() < until);
    return true;
  }

  /** One pass, expiring what had expired when it started, pausing after every ENTRIES_PER_CHECK entries. */
  private *sweep(t: number): Generator<void, void> {
    let seen = 0;
    for (const map of this.maps) {
      for (const [key, entry] of map) {
        if (entry.expiresAt <= t) map.delete(key);
        if (++seen % ENTRIES_PER_CHECK === 0) yield;
      }
    }
  }
}
