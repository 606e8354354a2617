import { tagOf } from './address-tag.ts';
import { ExpirySweep } from './expiry-sweep.ts';
import { LightestFirst } from './lightest-first.ts';
import { assertOneSlot, familyKeys } from './slots.ts';
import type { BoundedChange, BoundedFamily, CountWindow, HotStore, RecentEntry } from './store.ts';

interface Entry {
  /**
   * A counter's value stays a number (`incr`, `decrBy`): made a string at every count, each new string was
   * kept by V8's number-to-string cache and reached the old generation, garbage every page report paid for
   * (docs/performance/history.md, "What the old generation was paying for").
   */
  value: string | number;
  expiresAt: number;
  /** Fields of a hash entry (`hincrBy`); `value` is unused then. */
  fields?: Map<string, number>;
}

/** A bounded family's index (`boundedUpdate`): its members by weight, and where their hashes and list are. */
interface Family {
  expiresAt: number;
  prefix: string;
  list?: string;
  members: LightestFirst;
}

/** Adds `change` to the fields of a hash, as `hupdate` and `boundedUpdate` do. */
function applyChange(fields: Map<string, number>, change: { add?: Record<string, number>; set?: Record<string, number> }) {
  for (const [f, by] of Object.entries(change.add ?? {})) fields.set(f, (fields.get(f) ?? 0) + Math.trunc(by));
  for (const [f, v] of Object.entries(change.set ?? {})) fields.set(f, Math.trunc(v));
}

/** Counts in a window: added in the same window, started again in a later one, an earlier one ignored. */
function applyWindow(fields: Map<string, number>, w: CountWindow) {
  const current = fields.get(w.field);
  const at = Math.trunc(w.at);
  if (current !== undefined && at < current) return;
  if (current === undefined || at > current) {
    fields.set(w.field, at);
    for (const [f, n] of Object.entries(w.add)) fields.set(f, Math.trunc(n));
    return;
  }
  for (const [f, n] of Object.entries(w.add)) fields.set(f, (fields.get(f) ?? 0) + Math.trunc(n));
}

/** In-process hot state: the default without REDIS_URL. Correct for a single node only. */
export class MemoryStore implements HotStore {
  readonly kind = 'memory' as const;
  private readonly map = new Map<string, Entry>();
  private readonly slots = new Map<string, Map<string, number>>();
  /** Recent lists: member → value and when seen, in the order last seen (a Map keeps insertion order). */
  private readonly recent = new Map<string, { expiresAt: number; members: Map<string, { value: string; at: number }> }>();
  /** Bounded families by index key, and their members over all of them (`boundedUpdate`). */
  private readonly families = new Map<string, Family>();
  private familyMembers = 0;
  private familiesSweptAt = 0;
  private readonly sweeper: NodeJS.Timeout;

  /** `tagKey`: the deployment's key of address tags (`address-tag.ts`; tests may leave it empty). */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly tagKey = '',
  ) {
    // Expired keys are forgotten in passes of at most one a minute, ~1 ms of the loop every 100 ms.
    const sweep = new ExpirySweep([this.map, this.recent], () => this.now());
    this.sweeper = setInterval(() => {
      sweep.step();
      this.sweepFamilies();
    }, 100);
    this.sweeper.unref();
  }

  private live(key: string): Entry | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.map.delete(key);
      return undefined;
    }
    return e;
  }

  tag(text: string) {
    return tagOf(this.tagKey, text);
  }

  async get(key: string) {
    const value = this.live(key)?.value;
    return value === undefined ? null : String(value);
  }
  async set(key: string, value: string, ttlSeconds: number) {
    this.map.set(key, { value, expiresAt: this.now() + ttlSeconds * 1000 });
  }
  async setIfAbsent(key: string, value: string, ttlSeconds: number) {
    if (this.live(key)) return false;
    await this.set(key, value, ttlSeconds);
    return true;
  }
  async del(...keys: string[]) {
    for (const k of keys) this.map.delete(k);
  }
  async replaceIfEquals(key: string, expected: string, value: string, ttlSeconds: number) {
    const e = this.live(key);
    if (!e || String(e.value) !== expected) return false;
    await this.set(key, value, ttlSeconds);
    return true;
  }
  async delIfEquals(key: string, expected: string) {
    const e = this.live(key);
    if (!e || String(e.value) !== expected) return false;
    this.map.delete(key);
    return true;
  }
  async incr(key: string, ttlSeconds: number) {
    return this.incrNow(key, ttlSeconds);
  }
  /** `incr` answered at once: for counts on the busiest routes, where a promise each is most of the cost. */
  incrNow(key: string, ttlSeconds: number): number {
    const e = this.live(key);
    if (!e) {
      this.map.set(key, { value: 1, expiresAt: this.now() + ttlSeconds * 1000 });
      return 1;
    }
    const n = Number(e.value) + 1;
    e.value = n;
    return n;
  }
  async ttl(key: string) {
    const e = this.live(key);
    return e ? Math.max(1, Math.ceil((e.expiresAt - this.now()) / 1000)) : -2;
  }
  async ping() {}
  async close() {
    clearInterval(this.sweeper);
    this.map.clear();
    this.slots.clear();
    this.recent.clear();
    this.families.clear();
    this.familyMembers = 0;
  }
  async acquireSlot(key: string, holder: string, limit: number, ttlSeconds: number) {
    const t = this.now();
    const held = this.slots.get(key) ?? new Map<string, number>();
    for (const [h, until] of held) if (until <= t) held.delete(h);
    if (held.size >= limit) return false;
    held.set(holder, t + ttlSeconds * 1000);
    this.slots.set(key, held);
    return true;
  }
  async releaseSlot(key: string, holder: string) {
    const held = this.slots.get(key);
    held?.delete(holder);
    if (held && !held.size) this.slots.delete(key);
  }
  async decrBy(key: string, by: number) {
    const e = this.live(key);
    if (!e) return 0;
    const n = Math.max(0, Number(e.value) - by);
    e.value = n;
    return n;
  }
  async hincrBy(key: string, field: string, by: number, ttlSeconds: number) {
    let e = this.live(key);
    if (!e?.fields) {
      e = { value: '', expiresAt: this.now() + ttlSeconds * 1000, fields: new Map() };
      this.map.set(key, e);
    }
    const n = (e.fields?.get(field) ?? 0) + by;
    e.fields?.set(field, n);
    return n;
  }
  async hgetall(key: string) {
    const fields = this.live(key)?.fields;
    return fields ? Object.fromEntries([...fields].map(([f, n]) => [f, String(n)])) : {};
  }
  /** The live hash at `key`, or a new empty one put there (expiring at once until its caller sets a time). */
  private hashAt(key: string) {
    let e = this.live(key);
    if (!e?.fields) {
      e = { value: '', expiresAt: 0, fields: new Map() };
      this.map.set(key, e);
    }
    return { e, fields: e.fields as Map<string, number> };
  }
  async hupdate(key: string, change: { add?: Record<string, number>; set?: Record<string, number> }, ttlSeconds: number) {
    const { e, fields } = this.hashAt(key);
    applyChange(fields, change);
    e.expiresAt = this.now() + ttlSeconds * 1000;
    return Object.fromEntries(fields);
  }
  async recentPut(key: string, member: string, value: string, cap: number, maxAgeSeconds: number) {
    assertOneSlot('recentPut', [key]);
    const t = this.now();
    let r = this.recent.get(key);
    if (!r || r.expiresAt <= t) {
      r = { expiresAt: 0, members: new Map() };
      this.recent.set(key, r);
    }
    r.members.delete(member);
    r.members.set(member, { value, at: t });
    const cutoff = t - maxAgeSeconds * 1000;
    // Oldest first: drop the stale ones, then the longest unseen past the cap.
    for (const [m, v] of r.members) {
      if (v.at > cutoff && r.members.size <= cap) break;
      r.members.delete(m);
    }
    r.expiresAt = t + maxAgeSeconds * 1000;
  }
  async recentList(key: string, limit: number, maxAgeSeconds: number): Promise<RecentEntry[]> {
    const t = this.now();
    const r = this.recent.get(key);
    if (!r || r.expiresAt <= t) return [];
    const cutoff = t - maxAgeSeconds * 1000;
    const out: RecentEntry[] = [];
    for (const [member, v] of [...r.members].reverse()) {
      if (out.length >= limit || v.at <= cutoff) break;
      out.push({ member, value: v.value, at: v.at });
    }
    return out;
  }

  async boundedUpdate(
    family: BoundedFamily,
    member: string,
    change: BoundedChange,
    ttlSeconds: number,
  ): Promise<Record<string, number> | null> {
    assertOneSlot('boundedUpdate', familyKeys(family));
    const t = this.now();
    const expiresAt = t + ttlSeconds * 1000;
    const key = family.prefix + member;
    const { e, fields } = this.hashAt(key);
    applyChange(fields, change);
    if (change.window) applyWindow(fields, change.window);
    e.expiresAt = expiresAt;
    const f = this.familyOf(family, t);
    f.expiresAt = expiresAt;
    if (!f.members.has(member)) this.familyMembers += 1;
    f.members.set(member, fields.get(family.weight) ?? 0);
    while (f.members.size > family.cap) this.evictLightest(f);
    if (family.nodeCap !== undefined) {
      while (this.familyMembers > family.nodeCap) {
        // A family at or above its fair share of the node makes room in itself; any other takes it from the largest.
        const fair = this.familyMembers / this.families.size;
        if (!this.evictLightest(f.members.size >= fair ? f : this.largestFamily(t))) break;
      }
    }
    if (!f.members.has(member)) return null;
    if (change.listed !== undefined && family.list) {
      let r = this.recent.get(family.list);
      if (!r || r.expiresAt <= t) {
        r = { expiresAt: 0, members: new Map() };
        this.recent.set(family.list, r);
      }
      r.members.delete(member);
      r.members.set(member, { value: change.listed, at: t });
      r.expiresAt = expiresAt;
    }
    return Object.fromEntries(fields);
  }

  /** The live family of an index, made when absent or expired (its members gone with it). */
  private familyOf(family: BoundedFamily, t: number): Family {
    let f = this.families.get(family.index);
    if (f && f.expiresAt <= t) {
      this.familyMembers -= f.members.size;
      f = undefined;
    }
    if (!f) {
      f = { expiresAt: 0, prefix: family.prefix, members: new LightestFirst() };
      this.families.set(family.index, f);
    }
    f.prefix = family.prefix;
    f.list = family.list;
    return f;
  }

  private largestFamily(t: number): Family | undefined {
    let largest: Family | undefined;
    for (const [index, f] of this.families) {
      if (f.expiresAt <= t) {
        this.families.delete(index);
        this.familyMembers -= f.members.size;
        continue;
      }
      if (!largest || f.members.size > largest.members.size) largest = f;
    }
    return largest;
  }

  /** Lets a family's lightest member go: its hash, and its entry in the family's list. */
  private evictLightest(f: Family | undefined): boolean {
    const member = f?.members.popLightest();
    if (!f || member === undefined) return false;
    this.familyMembers -= 1;
    this.map.delete(f.prefix + member);
    if (f.list) this.recent.get(f.list)?.members.delete(member);
    return true;
  }

  /** Forgets expired families at most once a minute (their members' hashes expire on their own). */
  private sweepFamilies() {
    const t = this.now();
    if (t - this.familiesSweptAt < 60_000) return;
    this.familiesSweptAt = t;
    for (const [index, f] of this.families) {
      if (f.expiresAt > t) continue;
      this.families.delete(index);
      this.familyMembers -= f.members.size;
    }
  }
}
