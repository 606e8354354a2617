import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/core/hot/memory.ts';
import type { BoundedFamily, HotStore } from '../../src/core/hot/store.ts';
import { hotKinds, makeHotStore } from '../support/server.ts';

/**
 * The contract both hot-state stores keep; the services rely on exactly these semantics. Expiry is part of
 * it: the in-process store runs on a clock the test moves, while Redis keeps its own time, so there time
 * really passes (margins of at least 100 ms past an expiry, and of 800 ms or more before one, for a loaded machine).
 */
describe.each(hotKinds({ cluster: true }))('hot-state store contract (%s)', (kind) => {
  let hot: HotStore;
  // Redis is shared by every suite of the run: keep this run's keys apart.
  const ns = `contract-test:${randomUUID()}:`;
  const key = (name: string) => `${ns}${name}`;
  /** A key whose hash tag is `tag`: keys used together in one call share one (a cluster keeps them in one slot). */
  const tagged = (tag: string, rest = '') => key(`{${tag}}${rest}`);
  let moved = 0;
  /** The time the store goes by. */
  const now = () => Date.now() + moved;
  /** Lets `ms` pass for the store: moves the in-process store's clock, waits in real time for Redis. */
  const pass = async (ms: number) => {
    if (kind === 'memory') moved += ms;
    else await new Promise((r) => setTimeout(r, ms)); // Redis expires keys on its own clock: real time must pass
  };

  beforeAll(() => {
    hot = kind === 'memory' ? new MemoryStore(now) : makeHotStore(kind);
  });
  afterAll(() => hot.close());

  it('is the kind asked for and answers ping', async () => {
    expect(hot.kind).toBe(kind);
    await expect(hot.ping()).resolves.toBeUndefined();
  });

  it('get answers null for an absent key, set stores a string', async () => {
    expect(await hot.get(key('absent'))).toBeNull();
    await hot.set(key('a'), 'value one', 60);
    expect(await hot.get(key('a'))).toBe('value one');
    await hot.set(key('a'), 'value two', 60);
    expect(await hot.get(key('a'))).toBe('value two');
  });

  it('ttl reports the seconds left, and -2 for an absent key', async () => {
    await hot.set(key('ttl'), 'x', 120);
    const left = await hot.ttl(key('ttl'));
    expect(left).toBeGreaterThanOrEqual(119);
    expect(left).toBeLessThanOrEqual(120);
    expect(await hot.ttl(key('no-such'))).toBe(-2);
  });

  it('set replaces the expiry along with the value', async () => {
    await hot.set(key('reset'), 'x', 600);
    await hot.set(key('reset'), 'y', 30);
    const left = await hot.ttl(key('reset'));
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(30);
  });

  it('setIfAbsent sets only when absent and says whether it did', async () => {
    expect(await hot.setIfAbsent(key('once'), 'first', 60)).toBe(true);
    expect(await hot.setIfAbsent(key('once'), 'second', 60)).toBe(false);
    expect(await hot.get(key('once'))).toBe('first');
    await hot.del(key('once'));
    expect(await hot.setIfAbsent(key('once'), 'third', 60)).toBe(true);
    expect(await hot.get(key('once'))).toBe('third');
    const left = await hot.ttl(key('once'));
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(60);
  });

  it('time runs out: a key is gone, a claim can be made again, a counter starts a new window', async () => {
    await hot.set(key('short'), 'x', 1);
    expect(await hot.setIfAbsent(key('lapse'), 'a', 1)).toBe(true);
    expect(await hot.incr(key('fixed'), 1)).toBe(1);
    expect(await hot.incr(key('fixed'), 60)).toBe(2);
    expect(await hot.get(key('short'))).toBe('x');

    await pass(1150);

    expect(await hot.get(key('short'))).toBeNull();
    expect(await hot.ttl(key('short'))).toBe(-2);
    expect(await hot.setIfAbsent(key('lapse'), 'b', 60)).toBe(true);
    expect(await hot.get(key('lapse'))).toBe('b');
    expect(await hot.incr(key('fixed'), 60)).toBe(1);
    const left = await hot.ttl(key('fixed'));
    expect(left).toBeGreaterThan(1);
    expect(left).toBeLessThanOrEqual(60);
  });

  it('setIfAbsent lets exactly one of many concurrent callers win', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => hot.setIfAbsent(key('race'), String(i), 60)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('replaceIfEquals and delIfEquals act only while the key holds the value expected', async () => {
    await hot.set(key('held'), 'mine', 30);
    expect(await hot.replaceIfEquals(key('held'), 'theirs', 'x', 600)).toBe(false);
    expect(await hot.delIfEquals(key('held'), 'theirs')).toBe(false);
    expect(await hot.get(key('held'))).toBe('mine');
    expect(await hot.ttl(key('held'))).toBeLessThanOrEqual(30);
    // Renewed: the same value, a new expiry.
    expect(await hot.replaceIfEquals(key('held'), 'mine', 'mine', 600)).toBe(true);
    expect(await hot.ttl(key('held'))).toBeGreaterThan(30);
    expect(await hot.replaceIfEquals(key('held'), 'mine', 'settled', 60)).toBe(true);
    expect(await hot.get(key('held'))).toBe('settled');
    expect(await hot.delIfEquals(key('held'), 'mine')).toBe(false);
    expect(await hot.delIfEquals(key('held'), 'settled')).toBe(true);
    expect(await hot.get(key('held'))).toBeNull();
    // An absent key is never created.
    expect(await hot.replaceIfEquals(key('never'), 'mine', 'x', 60)).toBe(false);
    expect(await hot.get(key('never'))).toBeNull();
    expect(await hot.delIfEquals(key('never'), 'mine')).toBe(false);
  });

  it('a value that ran out is no longer the one expected', async () => {
    await hot.set(key('ran-out'), 'mine', 1);
    await pass(1100);
    expect(await hot.replaceIfEquals(key('ran-out'), 'mine', 'mine', 60)).toBe(false);
    expect(await hot.get(key('ran-out'))).toBeNull();
  });

  it('del removes every key named, and tolerates absent keys and no keys', async () => {
    await hot.set(key('d1'), '1', 60);
    await hot.set(key('d2'), '2', 60);
    await hot.set(key('d3'), '3', 60);
    await hot.del(key('d1'), key('d2'), key('never-set'));
    expect(await hot.get(key('d1'))).toBeNull();
    expect(await hot.get(key('d2'))).toBeNull();
    expect(await hot.get(key('d3'))).toBe('3');
    await expect(hot.del()).resolves.toBeUndefined();
  });

  it('incr counts from 1 and returns the new value; get reads it as a string', async () => {
    expect(await hot.incr(key('n'), 60)).toBe(1);
    expect(await hot.incr(key('n'), 60)).toBe(2);
    expect(await hot.incr(key('n'), 60)).toBe(3);
    expect(await hot.get(key('n'))).toBe('3');
  });

  it('incr is atomic under concurrency', async () => {
    const values = await Promise.all(Array.from({ length: 50 }, () => hot.incr(key('atomic'), 60)));
    expect([...values].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it('a counter keeps its first expiry: later increments do not extend the window', async () => {
    await hot.incr(key('window'), 10);
    await hot.incr(key('window'), 3600);
    await hot.incr(key('window'), 3600);
    const left = await hot.ttl(key('window'));
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(10);
  });

  it('incr after del starts from 1', async () => {
    await hot.incr(key('cleared'), 60);
    await hot.incr(key('cleared'), 60);
    await hot.del(key('cleared'));
    expect(await hot.incr(key('cleared'), 60)).toBe(1);
  });

  it('keys do not collide with each other', async () => {
    await hot.set(key('p'), 'p', 60);
    await hot.incr(key('q'), 60);
    expect(await hot.get(key('p'))).toBe('p');
    expect(await hot.get(key('q'))).toBe('1');
  });

  it('acquireSlot hands out exactly `limit` slots under concurrency, and releaseSlot frees one', async () => {
    const taken = await Promise.all(Array.from({ length: 20 }, (_, i) => hot.acquireSlot(key('slots'), `h${i}`, 5, 60)));
    expect(taken.filter(Boolean)).toHaveLength(5);
    const holder = `h${taken.indexOf(true)}`;
    expect(await hot.acquireSlot(key('slots'), 'late', 5, 60)).toBe(false);
    await hot.releaseSlot(key('slots'), holder);
    expect(await hot.acquireSlot(key('slots'), 'late', 5, 60)).toBe(true);
    await hot.releaseSlot(key('slots'), 'never-held');
  });

  it('a slot never given back frees itself after its ttl', async () => {
    expect(await hot.acquireSlot(key('lease'), 'a', 1, 1)).toBe(true);
    expect(await hot.acquireSlot(key('lease'), 'b', 1, 1)).toBe(false);
    await pass(1100);
    expect(await hot.acquireSlot(key('lease'), 'b', 1, 1)).toBe(true);
  });

  it('decrBy takes off a counter, never below 0, keeps its expiry, and leaves an absent counter absent', async () => {
    await hot.incr(key('down'), 30);
    await hot.incr(key('down'), 30);
    await hot.incr(key('down'), 30);
    expect(await hot.decrBy(key('down'), 1)).toBe(2);
    expect(await hot.get(key('down'))).toBe('2');
    expect(await hot.decrBy(key('down'), 5)).toBe(0);
    expect(await hot.get(key('down'))).toBe('0');
    const left = await hot.ttl(key('down'));
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(30);
    expect(await hot.incr(key('down'), 3600)).toBe(1);

    expect(await hot.decrBy(key('never-counted'), 1)).toBe(0);
    expect(await hot.get(key('never-counted'))).toBeNull();
  });

  it('a counter decrBy brought to 0 keeps its window when counted again', async () => {
    expect(await hot.incr(key('to-zero'), 30)).toBe(1);
    expect(await hot.decrBy(key('to-zero'), 1)).toBe(0);
    expect(await hot.incr(key('to-zero'), 600)).toBe(1);
    const left = await hot.ttl(key('to-zero'));
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(30);
  });

  it('decrBy is atomic under concurrency with incr', async () => {
    await Promise.all(Array.from({ length: 30 }, () => hot.incr(key('mixed'), 60)));
    await Promise.all([
      ...Array.from({ length: 10 }, () => hot.decrBy(key('mixed'), 1)),
      ...Array.from({ length: 10 }, () => hot.incr(key('mixed'), 60)),
    ]);
    expect(await hot.get(key('mixed'))).toBe('30');
  });

  it('hincrBy counts per field atomically, hgetall reads every field, the hash keeps its first expiry', async () => {
    expect(await hot.hgetall(key('h-absent'))).toEqual({});
    expect(await hot.hincrBy(key('h'), 'a', 1, 20)).toBe(1);
    await Promise.all(Array.from({ length: 25 }, () => hot.hincrBy(key('h'), 'b', 1, 3600)));
    expect(await hot.hincrBy(key('h'), 'a', 2, 3600)).toBe(3);
    expect(await hot.hgetall(key('h'))).toEqual({ a: '3', b: '25' });
    const left = await hot.ttl(key('h'));
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(20);
    await hot.del(key('h'));
    expect(await hot.hgetall(key('h'))).toEqual({});
  });

  it('a hash runs out with its window', async () => {
    await hot.hincrBy(key('h-short'), 'x', 1, 1);
    await pass(1150);
    expect(await hot.hgetall(key('h-short'))).toEqual({});
    expect(await hot.hincrBy(key('h-short'), 'x', 1, 60)).toBe(1);
  });

  it('hupdate adds and sets fields in one step, answers every field, and slides the expiry', async () => {
    expect(await hot.hupdate(key('hu'), { add: { pages: 2 }, set: { seen: 7 } }, 20)).toEqual({ pages: 2, seen: 7 });
    expect(await hot.hupdate(key('hu'), { add: { pages: 1, script: 1 } }, 20)).toEqual({ pages: 3, seen: 7, script: 1 });
    expect(await hot.hupdate(key('hu'), { set: { seen: 9 } }, 3600)).toEqual({ pages: 3, seen: 9, script: 1 });
    // Sliding: the last change set the expiry again.
    expect(await hot.ttl(key('hu'))).toBeGreaterThan(3000);
    expect(await hot.hgetall(key('hu'))).toEqual({ pages: '3', seen: '9', script: '1' });
    expect(await hot.hupdate(key('hu-empty'), {}, 30)).toEqual({});
  });

  it('hupdate is atomic under concurrency', async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, () => hot.hupdate(key('hu-race'), { add: { n: 1 } }, 60)));
    expect(answers.map((a) => a.n).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('a hash kept by hupdate runs out ttl seconds after its last change', async () => {
    await hot.hupdate(key('hu-short'), { add: { n: 1 } }, 2);
    await pass(1200);
    await hot.hupdate(key('hu-short'), { add: { n: 1 } }, 2);
    await pass(1200);
    // Past the first change's two seconds, within the second's.
    expect(await hot.hgetall(key('hu-short'))).toEqual({ n: '2' });
    await pass(1000);
    expect(await hot.hgetall(key('hu-short'))).toEqual({});
  });

  it('recentList answers the members of a recent list, most recently seen first, with their values', async () => {
    expect(await hot.recentList(tagged('r-absent'), 10, 60)).toEqual([]);
    await hot.recentPut(tagged('r'), 'a', 'burst', 10, 60);
    await pass(5);
    await hot.recentPut(tagged('r'), 'b', 'no-script', 10, 60);
    await pass(5);
    await hot.recentPut(tagged('r'), 'a', 'burst,failed-check', 10, 60);
    const list = await hot.recentList(tagged('r'), 10, 60);
    expect(list.map((e) => [e.member, e.value])).toEqual([
      ['a', 'burst,failed-check'],
      ['b', 'no-script'],
    ]);
    expect(list[0]?.at).toBeGreaterThanOrEqual(list[1]?.at ?? 0);
    expect(Math.abs((list[0]?.at ?? 0) - now())).toBeLessThan(5_000);
    expect(await hot.recentList(tagged('r'), 1, 60)).toHaveLength(1);
  });

  it('a recent list keeps at most cap members: the longest unseen leave first', async () => {
    for (let i = 0; i < 8; i++) {
      await hot.recentPut(tagged('r-cap'), `m${i}`, String(i), 5, 60);
      await pass(2);
    }
    expect((await hot.recentList(tagged('r-cap'), 100, 60)).map((e) => e.member)).toEqual(['m7', 'm6', 'm5', 'm4', 'm3']);
  });

  it('members unseen for maxAgeSeconds leave a recent list, and the whole list goes maxAgeSeconds after its last change', async () => {
    await hot.recentPut(tagged('r-age'), 'old', 'x', 100, 1);
    await pass(1100);
    expect(await hot.recentList(tagged('r-age'), 100, 1)).toEqual([]);
    await hot.recentPut(tagged('r-age2'), 'early', 'x', 100, 2);
    await pass(1100);
    await hot.recentPut(tagged('r-age2'), 'late', 'y', 100, 2);
    expect((await hot.recentList(tagged('r-age2'), 100, 1)).map((e) => e.member)).toEqual(['late']);
    expect((await hot.recentList(tagged('r-age2'), 100, 2)).map((e) => e.member)).toEqual(['late', 'early']);
    await pass(2100);
    expect(await hot.recentList(tagged('r-age2'), 100, 3600)).toEqual([]);
  });

  it('refuses a call naming keys together that share no hash tag: a cluster could not run it in one step', async () => {
    await expect(hot.recentPut(key('untagged'), 'a', 'x', 10, 60)).rejects.toThrow(/hash tag/);
    const apart: BoundedFamily = { index: tagged('one', ':index'), prefix: tagged('two', ':m:'), weight: 'n', cap: 5 };
    await expect(hot.boundedUpdate(apart, 'a', { add: { n: 1 } }, 60)).rejects.toThrow(/hash tag/);
    const listApart: BoundedFamily = { ...apart, prefix: tagged('one', ':m:'), list: key('one:list') };
    await expect(hot.boundedUpdate(listApart, 'a', { add: { n: 1 }, listed: 'x' }, 60)).rejects.toThrow(/hash tag/);
    expect(await hot.hgetall(tagged('one', ':m:a'))).toEqual({});
  });

  describe('bounded families', () => {
    const family = (name: string, cap: number, more: Partial<BoundedFamily> = {}): BoundedFamily => ({
      index: tagged(name, ':index'),
      prefix: tagged(name, ':m:'),
      weight: 'n',
      cap,
      ...more,
    });
    const kept = async (f: BoundedFamily, members: string[]) => {
      const out: string[] = [];
      for (const m of members) if (Object.keys(await hot.hgetall(f.prefix + m)).length) out.push(m);
      return out;
    };

    it('boundedUpdate changes a member’s hash as hupdate does, answers every field, and slides its expiry', async () => {
      const f = family('b-plain', 10);
      expect(await hot.boundedUpdate(f, 'a', { add: { n: 2, pages: 1 }, set: { tls: 1 } }, 20)).toEqual({
        n: 2,
        pages: 1,
        tls: 1,
      });
      expect(await hot.boundedUpdate(f, 'a', { add: { n: 1 } }, 3600)).toEqual({ n: 3, pages: 1, tls: 1 });
      expect(await hot.hgetall(`${f.prefix}a`)).toEqual({ n: '3', pages: '1', tls: '1' });
      expect(await hot.ttl(`${f.prefix}a`)).toBeGreaterThan(3000);
    });

    it('past the cap the lightest leave with their hashes; a newcomer lighter than all leaves at once', async () => {
      const f = family('b-cap', 3);
      await hot.boundedUpdate(f, 'busy', { add: { n: 40 } }, 60);
      await hot.boundedUpdate(f, 'mid', { add: { n: 5 } }, 60);
      await hot.boundedUpdate(f, 'light', { add: { n: 2 } }, 60);
      // A fourth, busier than `light`: `light` goes.
      expect(await hot.boundedUpdate(f, 'new', { add: { n: 3 } }, 60)).toEqual({ n: 3 });
      expect(await kept(f, ['busy', 'mid', 'light', 'new'])).toEqual(['busy', 'mid', 'new']);
      // Lighter than every member of the full family: not kept, nothing of it stays.
      expect(await hot.boundedUpdate(f, 'feather', { add: { n: 1 }, set: { tls: 1 } }, 60)).toBeNull();
      expect(await hot.hgetall(`${f.prefix}feather`)).toEqual({});
      // A member's weight is its field after the change: `new` grows past `mid`, then a heavier newcomer takes `mid`'s place.
      await hot.boundedUpdate(f, 'new', { add: { n: 10 } }, 60);
      expect(await hot.boundedUpdate(f, 'late', { add: { n: 6 } }, 60)).toEqual({ n: 6 });
      expect(await kept(f, ['busy', 'mid', 'new', 'late'])).toEqual(['busy', 'new', 'late']);
    });

    it('keeps the busiest under a flood of light newcomers, and a member that leaves its list too', async () => {
      const list = tagged('b-flood', ':list');
      const f = family('b-flood', 5, { list });
      expect(await hot.boundedUpdate(f, 'busy', { add: { n: 31 }, listed: 'burst' }, 60)).toEqual({ n: 31 });
      // Many at once, as a batch is filed: every one asks to be listed.
      await Promise.all(
        Array.from({ length: 60 }, (_, i) => hot.boundedUpdate(f, `fake${i}`, { add: { n: 1 }, listed: 'tls-mismatch' }, 60)),
      );
      const members = ['busy', ...Array.from({ length: 60 }, (_, i) => `fake${i}`)];
      const left = await kept(f, members);
      expect(left).toHaveLength(5);
      expect(left).toContain('busy');
      // The list holds exactly the members still kept, with their values.
      const listed = await hot.recentList(list, 100, 60);
      expect(listed.map((e) => e.member).sort()).toEqual([...left].sort());
      expect(listed.find((e) => e.member === 'busy')?.value).toBe('burst');
      // A member not kept is not listed: a light newcomer of the full family.
      expect(await hot.boundedUpdate(f, 'late', { add: { n: 0 }, listed: 'x' }, 60)).toBeNull();
      expect((await hot.recentList(list, 100, 60)).map((e) => e.member)).not.toContain('late');
    });

    it('is atomic under concurrency: a full family stays at its cap, and counts add up', async () => {
      const f = family('b-race', 10);
      await Promise.all(Array.from({ length: 10 }, (_, i) => hot.boundedUpdate(f, `heavy${i}`, { add: { n: 100 } }, 60)));
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => hot.boundedUpdate(f, `light${i}`, { add: { n: 1 } }, 60)),
      );
      expect(answers.every((a) => a === null)).toBe(true);
      const all = [...Array.from({ length: 10 }, (_, i) => `heavy${i}`), ...Array.from({ length: 50 }, (_, i) => `light${i}`)];
      expect(await kept(f, all)).toEqual(all.slice(0, 10));
      const counts = await Promise.all(Array.from({ length: 30 }, () => hot.boundedUpdate(f, 'heavy0', { add: { n: 1 } }, 60)));
      expect(counts.map((c) => c?.n).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(Array.from({ length: 30 }, (_, i) => 101 + i));
    });

    it('counts in a window: added within it, started again by a later one, an earlier one adds nothing', async () => {
      const f = family('b-window', 10);
      const seen = (at: number, requests: number, pages: number) =>
        hot.boundedUpdate(f, 'v', { add: { n: requests }, window: { field: 'm', at, add: { rn: requests, rp: pages } } }, 60);
      expect(await seen(100, 3, 1)).toEqual({ n: 3, m: 100, rn: 3, rp: 1 });
      expect(await seen(100, 2, 2)).toEqual({ n: 5, m: 100, rn: 5, rp: 3 });
      expect(await seen(101, 1, 0)).toEqual({ n: 6, m: 101, rn: 1, rp: 0 });
      expect(await seen(99, 7, 7)).toEqual({ n: 13, m: 101, rn: 1, rp: 0 });
    });

    it('a family’s members run out ttl seconds after their last change, the family with them', async () => {
      const f = family('b-ttl', 2);
      await hot.boundedUpdate(f, 'old', { add: { n: 50 } }, 1);
      await pass(1150);
      expect(await hot.hgetall(`${f.prefix}old`)).toEqual({});
      // The family went too: a light newcomer finds room.
      await hot.boundedUpdate(f, 'a', { add: { n: 1 } }, 60);
      expect(await hot.boundedUpdate(f, 'b', { add: { n: 1 } }, 60)).toEqual({ n: 1 });
      expect(await kept(f, ['a', 'b'])).toEqual(['a', 'b']);
    });
  });
});

/** The in-process store holds every site's families in one process: `nodeCap` bounds them all together. */
describe('in-process store: bounded families share the node fairly', () => {
  const hot = new MemoryStore();
  afterAll(() => hot.close());
  const family = (site: string): BoundedFamily => ({
    index: `node-cap:{${site}}:index`,
    prefix: `node-cap:{${site}}:`,
    weight: 'n',
    cap: 100,
    nodeCap: 60,
  });
  const kept = async (site: string, members: string[]) => {
    let n = 0;
    for (const m of members) if (Object.keys(await hot.hgetall(`node-cap:{${site}}:${m}`)).length) n += 1;
    return n;
  };

  it('a flooding site makes room in itself once the node is full; the others keep their members', async () => {
    const quiet = Array.from({ length: 20 }, (_, i) => `q${i}`);
    for (const m of quiet) await hot.boundedUpdate(family('quiet'), m, { add: { n: 1 } }, 60);
    const flood = Array.from({ length: 500 }, (_, i) => `f${i}`);
    await hot.boundedUpdate(family('flood'), 'busy', { add: { n: 40 } }, 60);
    for (const m of flood) await hot.boundedUpdate(family('flood'), m, { add: { n: 1 } }, 60);
    expect(await kept('quiet', quiet)).toBe(20);
    expect(await kept('flood', ['busy'])).toBe(1);
    expect(await kept('flood', ['busy', ...flood])).toBe(40);
    // A site below its fair share still finds room: taken from the largest.
    const late = Array.from({ length: 10 }, (_, i) => `l${i}`);
    for (const m of late) await hot.boundedUpdate(family('late'), m, { add: { n: 1 } }, 60);
    expect(await kept('late', late)).toBe(10);
    expect(await kept('quiet', quiet)).toBe(20);
    expect(await kept('flood', ['busy', ...flood])).toBe(30);
    expect(await kept('flood', ['busy'])).toBe(1);
  });
});
