// The queue of kept-day fills (kept-days.ts): background work beside the answers on the stats pool, so one
// runs at a time. Sites take turns, and each may have only a few fills waiting, so a site asking question
// after question (a stranger's dashboard, a script) cannot keep other sites' questions from being kept.

export interface FillLimits {
  /** Fills waiting or running in this process past which a new one is left for a later ask. */
  queued: number;
  /** The same, for one site. */
  queuedPerSite: number;
}

interface Fill {
  key: string;
  run: () => Promise<void>;
  done: () => void;
}

export class FillQueue {
  /** Each site's fills not started yet, in the order asked. */
  private readonly waiting = new Map<string, Fill[]>();
  /** Sites with fills waiting, in the order of their next turn (the site of the running fill is not among them). */
  private readonly turns: string[] = [];
  /** Every fill waiting or running, by key, settling when it has ended. */
  private readonly pending = new Map<string, Promise<void>>();
  private readonly perSite = new Map<string, number>();
  private runningSite: string | null = null;
  /** Fills queued since the process started (tests tell an ask that queued one from one that did not). */
  added = 0;

  constructor(private readonly limits: FillLimits) {}

  get size(): number {
    return this.pending.size;
  }

  /** Queues `run` under `key` unless that fill waits already, or the queue or the site's share of it is full. */
  add(site: string, key: string, run: () => Promise<void>): boolean {
    const ofSite = this.perSite.get(site) ?? 0;
    if (this.pending.has(key) || this.pending.size >= this.limits.queued || ofSite >= this.limits.queuedPerSite) return false;
    this.added++;
    let done = () => {};
    this.pending.set(key, new Promise<void>((resolve) => (done = resolve)));
    this.perSite.set(site, ofSite + 1);
    const list = this.waiting.get(site) ?? [];
    list.push({ key, run, done });
    this.waiting.set(site, list);
    if (list.length === 1 && site !== this.runningSite) this.turns.push(site);
    if (this.runningSite === null) void this.drain();
    return true;
  }

  /** Resolves once every fill waiting or running has ended. */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending.values()]);
  }

  private async drain() {
    for (let site = this.turns.shift(); site !== undefined; site = this.turns.shift()) {
      this.runningSite = site;
      const list = this.waiting.get(site) ?? [];
      const fill = list.shift() as Fill;
      if (!list.length) this.waiting.delete(site);
      // Detached from the ask that queued it: that answer is not held by the fill.
      await Promise.resolve();
      // A failed fill is left: the answers stay raw for those days, and the next ask tries again.
      await fill.run().catch(() => undefined);
      this.pending.delete(fill.key);
      const left = (this.perSite.get(site) ?? 1) - 1;
      if (left) this.perSite.set(site, left);
      else this.perSite.delete(site);
      // Behind every site that asked meanwhile.
      if (this.waiting.has(site)) this.turns.push(site);
      this.runningSite = null;
      fill.done();
    }
  }
}
