import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { pageOf, readPageUrl, referrerHost, utmOf } from '../../../src/core/enrich/url.ts';
import { dailySalt, SALT_TTL_SECONDS, visitorCode } from '../../../src/core/enrich/visitor.ts';
import { MemoryStore } from '../../../src/core/hot/memory.ts';
import type { HotStore } from '../../../src/core/hot/store.ts';

const DAY1 = Date.parse('2026-03-01T10:00:00Z');
const DAY1_LATE = Date.parse('2026-03-01T23:59:59Z');
const DAY2 = Date.parse('2026-03-02T00:00:01Z');
const IP = '203.0.113.7';
const UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('dailySalt', () => {
  it('one salt per UTC day, shared through the HotStore with a 48 h TTL', async () => {
    const hot = new MemoryStore(() => DAY1);
    const a = await dailySalt(hot, DAY1);
    const b = await dailySalt(hot, DAY1_LATE);
    expect(a).toBe(b);
    expect(await hot.get('salt:2026-03-01')).toBe(a);
    const ttl = await hot.ttl('salt:2026-03-01');
    expect(ttl).toBeGreaterThan(SALT_TTL_SECONDS - 5);
    expect(ttl).toBeLessThanOrEqual(SALT_TTL_SECONDS);
    const c = await dailySalt(hot, DAY2);
    expect(c).not.toBe(a);
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
  it('turns to the next day at midnight UTC exactly, not a millisecond earlier or later', async () => {
    const hot = new MemoryStore(() => DAY1);
    const midnight = Date.parse('2026-03-02T00:00:00.000Z');
    const day1 = await dailySalt(hot, midnight - 1);
    const day2 = await dailySalt(hot, midnight);
    expect(day2).not.toBe(day1);
    expect(await hot.get('salt:2026-03-02')).toBe(day2);
    expect(await dailySalt(hot, new Date(midnight - 1))).toBe(day1);
  });
  it('concurrent first calls agree on one salt', async () => {
    const hot = new MemoryStore();
    const salts = await Promise.all([dailySalt(hot, DAY1), dailySalt(hot, DAY1), dailySalt(hot, DAY1)]);
    expect(new Set(salts).size).toBe(1);
  });
  it('two nodes sharing one store read the same salt', async () => {
    const shared = new MemoryStore();
    // Two "nodes" are two objects over one backing store (as with Redis): each has its own local cache.
    const node = (): HotStore => Object.create(shared);
    expect(await dailySalt(node(), DAY1)).toBe(await dailySalt(node(), DAY1));
  });
  it('separate stores (separate deployments) get different salts', async () => {
    expect(await dailySalt(new MemoryStore(), DAY1)).not.toBe(await dailySalt(new MemoryStore(), DAY1));
  });
  // The fault: the store did not answer the day's first ask; the node's own salt was then kept until midnight, so
  // its visitors counted apart from every other node's all day, long after the store was back.
  describe('a store that did not answer', () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    it('is asked again within seconds, and the node then counts with the shared salt', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const shared = new MemoryStore();
      let down = true;
      const flaky: HotStore = Object.create(shared);
      flaky.setIfAbsent = (key, value, ttl) =>
        down ? Promise.reject(new Error('Redis gone')) : shared.setIfAbsent(key, value, ttl);
      const own = await dailySalt(flaky, DAY1);
      const others = await dailySalt(Object.create(shared), DAY1);
      expect(own).not.toBe(others);
      down = false;
      // Within the retry pause the node keeps its own (one store round trip a pause, not one a request).
      expect(await dailySalt(flaky, DAY1)).toBe(own);
      vi.setSystemTime(Date.now() + 11_000);
      expect(await dailySalt(flaky, DAY1)).toBe(others);
      expect(await dailySalt(flaky, DAY1)).toBe(others);
    });

    // The fault: the store lost the day's salt mid-day (a restart without persistence, a failover to a replica
    // without it). Running nodes kept theirs until midnight, and a node started since made a new one: each visitor
    // behind a load balancer then had two codes, counted twice all day.
    it('that lost the day’s salt gets the running nodes’ salt back within a minute, so a node started since agrees', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const shared = new MemoryStore();
      const running = Object.create(shared) as HotStore;
      const salt = await dailySalt(running, DAY1);
      await shared.del('salt:2026-03-01');
      vi.setSystemTime(Date.now() + 61_000);
      expect(await dailySalt(running, DAY1)).toBe(salt);
      expect(await shared.get('salt:2026-03-01')).toBe(salt);
      expect(await dailySalt(Object.create(shared) as HotStore, DAY1)).toBe(salt);
    });

    it('holding another salt than the running node’s: the node takes the store’s within a minute', async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      const shared = new MemoryStore();
      const running = Object.create(shared) as HotStore;
      await dailySalt(running, DAY1);
      // Lost, then made anew by a node started before the running one offered its salt again.
      await shared.del('salt:2026-03-01');
      const started = await dailySalt(Object.create(shared) as HotStore, DAY1);
      vi.setSystemTime(Date.now() + 61_000);
      expect(await dailySalt(running, DAY1)).toBe(started);
    });
  });
  it("yesterday's salt expires from the store", async () => {
    let now = DAY1;
    const hot = new MemoryStore(() => now);
    await dailySalt(hot, DAY1);
    now = DAY1 + SALT_TTL_SECONDS * 1000 + 1;
    expect(await hot.get('salt:2026-03-01')).toBeNull();
  });
});

describe('visitorCode', () => {
  it('stable within a day, different across days and sites, never contains the address', async () => {
    const hot = new MemoryStore();
    const s1 = await dailySalt(hot, DAY1);
    const s2 = await dailySalt(hot, DAY2);
    const a = visitorCode(s1, 'site_a', IP, UA);
    expect(visitorCode(s1, 'site_a', IP, UA)).toBe(a);
    expect(visitorCode(s2, 'site_a', IP, UA)).not.toBe(a);
    expect(visitorCode(s1, 'site_b', IP, UA)).not.toBe(a);
    expect(visitorCode(s1, 'site_a', '203.0.113.8', UA)).not.toBe(a);
    expect(visitorCode(s1, 'site_a', IP, `${UA} x`)).not.toBe(a);
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(16);
    expect(a).not.toContain(IP);
    expect(a).not.toContain('203');
  });

  it('keeps its format: the first 16 bytes of sha256(salt|site|ip|ua), so codes made before a deploy still match after it', () => {
    // Computed once by hand (sha256 of the joined string); a change of format would split each visitor of the day in two.
    expect(visitorCode('salt', 'site_a', IP, 'UA')).toBe(
      createHash('sha256').update(`salt|site_a|${IP}|UA`).digest().subarray(0, 16).toString('base64url'),
    );
    expect(visitorCode('salt', 'site_a', IP, 'UA')).toBe('528b5eqhSQQhKBS_q1hGtw');
  });
});

describe('referrerHost, utmOf and pageOf', () => {
  it('keeps only the referrer hostname', () => {
    expect(referrerHost('https://News.Example.com/a/b?q=secret#x')).toBe('news.example.com');
    expect(referrerHost('')).toBeNull();
    expect(referrerHost('not a url')).toBeNull();
    expect(referrerHost('android-app://com.google.android.gm/')).toBeNull();
  });
  it('reads utm parameters, trimmed and capped at 128 characters', () => {
    expect(utmOf('https://x.test/p?utm_source=newsletter&utm_medium=email&utm_campaign=spring%20sale')).toEqual({
      source: 'newsletter',
      medium: 'email',
      campaign: 'spring sale',
    });
    expect(utmOf('https://x.test/p')).toEqual({ source: null, medium: null, campaign: null });
    expect(utmOf(`https://x.test/?utm_source=${'a'.repeat(300)}&utm_medium=%20`).source).toHaveLength(128);
    expect(utmOf('https://x.test/?utm_medium=%20').medium).toBeNull();
    expect(utmOf('garbage')).toEqual({ source: null, medium: null, campaign: null });
  });
  it('reads a page URL once for its path, utm parameters and ad click id, as pathname and utmOf would', () => {
    expect(pageOf('https://x.test/pricing/a%20b?utm_source=ads&x=1#top')).toEqual({
      path: '/pricing/a%20b',
      utm: { source: 'ads', medium: null, campaign: null },
      click: null,
    });
    expect(pageOf('https://x.test')).toEqual({ path: '/', utm: { source: null, medium: null, campaign: null }, click: null });
    // The strongest click id: a search ad's over fbclid; an empty one is none.
    expect(pageOf('https://x.test/?fbclid=a&gclid=b').click).toBe('search');
    expect(pageOf('https://x.test/?fbclid=a').click).toBe('facebook');
    expect(pageOf('https://x.test/?gclid=').click).toBeNull();
    // Another scheme: its path, never its parameters; no URL at all: the root.
    expect(pageOf('ftp://x.test/files?utm_source=ads&gclid=x')).toEqual({
      path: '/files',
      utm: { source: null, medium: null, campaign: null },
      click: null,
    });
    expect(pageOf('not a url')).toEqual({ path: '/', utm: { source: null, medium: null, campaign: null }, click: null });
  });
  it('reads a page URL once for the hostname check and the row: host in lower case, or null when unreadable', () => {
    expect(readPageUrl('https://Shop.X.test/Cart?utm_medium=mail')).toEqual({
      host: 'shop.x.test',
      path: '/Cart',
      utm: { source: null, medium: 'mail', campaign: null },
      click: null,
    });
    expect(readPageUrl('not a url')).toBeNull();
    expect(readPageUrl('mailto:someone@x.test')?.host).toBe('');
  });
});
