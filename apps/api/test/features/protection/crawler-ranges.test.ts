import { describe, expect, it } from 'vitest';
import { crawlerCheck, underDomains } from '../../../src/features/protection/crawler-checks.ts';
import published from '../../../src/features/protection/crawler-ranges.json' with { type: 'json' };
import { inPublishedRanges, type RangeList, rangeSource } from '../../../src/features/protection/crawler-ranges.ts';

const LISTS = Object.keys(published.lists) as RangeList[];

/** The lists an address lies in. */
const listsOf = (ip: string) => LISTS.filter((name) => inPublishedRanges(ip, [name]));

describe('published crawler ranges (the offline copy)', () => {
  it('says where each list came from and when', () => {
    for (const name of LISTS) {
      const about = rangeSource(name);
      expect(about.source, name).toMatch(/^https:\/\//);
      expect(about.mirror.repo, name).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(about.mirror.commit, name).toMatch(/^[0-9a-f]{40}$/);
      const date = 'copied' in about.mirror ? about.mirror.copied : about.mirror.sourceCreated;
      expect(date, name).toMatch(/^20\d\d-\d\d-\d\d$/);
    }
  });

  it('places addresses the operators name in their own lists, and only there', () => {
    // 66.249.66.1 is the address of Google's own verification example (crawl-66-249-66-1.googlebot.com).
    expect(listsOf('66.249.66.1')).toEqual(['google-common-crawlers']);
    expect(listsOf('2001:4860:4801:10::1')).toEqual(['google-common-crawlers']);
    expect(listsOf('66.249.90.77')).toEqual(['google-special-crawlers']);
    expect(listsOf('35.187.128.1')).toEqual(['google-user-triggered-fetchers']);
    expect(listsOf('192.178.9.5')).toEqual(['google-user-triggered-fetchers-google']);
    expect(listsOf('157.55.39.1')).toEqual(['bingbot']);
    expect(listsOf('17.241.208.161')).toEqual(['applebot']);
    expect(listsOf('20.171.206.1')).toEqual(['openai']);
    expect(listsOf('57.152.72.128')).toEqual(['duckduckgo']);
    expect(listsOf('18.97.9.170')).toEqual(['commoncrawl']);
    // IPv4-mapped IPv6 is the IPv4 address it carries.
    expect(listsOf('::ffff:66.249.66.1')).toEqual(['google-common-crawlers']);
    // Edges of a prefix: 66.249.64.0/23 holds .64.0-.65.255; the address before it is nobody's.
    expect(listsOf('66.249.65.255')).toEqual(['google-common-crawlers']);
    expect(listsOf('66.249.63.255')).toEqual([]);
    for (const ip of ['127.0.0.1', '203.0.113.7', '2001:db8::1', 'not an address']) expect(listsOf(ip), ip).toEqual([]);
  });

  it('Googlebot is checked by its own lists and domains: Google Cloud addresses and googleusercontent.com never verify it', () => {
    const googlebot = crawlerCheck('Googlebot');
    expect(googlebot?.ranges).toEqual(['google-common-crawlers', 'google-special-crawlers']);
    expect(inPublishedRanges('35.187.128.1', googlebot?.ranges ?? [])).toBe(false);
    expect(underDomains('crawl-66-249-66-1.googlebot.com', googlebot?.domains ?? [])).toBe(true);
    expect(underDomains('rate-limited-proxy-66-249-90-77.google.com.', googlebot?.domains ?? [])).toBe(true);
    expect(underDomains('7.113.0.203.bc.googleusercontent.com', googlebot?.domains ?? [])).toBe(false);
    expect(underDomains('crawl.notgooglebot.com', googlebot?.domains ?? [])).toBe(false);
    // Not even the user-triggered fetchers Google documents it for: any Cloud VM's name ends in it.
    expect(underDomains('1-2-3-4.gae.googleusercontent.com', crawlerCheck('Google-Read-Aloud')?.domains ?? [])).toBe(false);
  });

  it('a name of the prototype is no crawler', () => {
    expect(crawlerCheck('constructor')).toBeUndefined();
    expect(crawlerCheck('toString')).toBeUndefined();
  });
});
