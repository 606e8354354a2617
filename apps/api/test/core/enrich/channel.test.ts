import { describe, expect, it } from 'vitest';
import { trafficOf } from '../../../src/core/enrich/traffic.ts';
import { pageOf, referrerHost } from '../../../src/core/enrich/url.ts';

/** What intake stores for a visit landing on `page` from `referrer` (full URLs, as the page script sends them). */
const traffic = (page: string, referrer = '') => {
  const { utm, click } = pageOf(page);
  return trafficOf(referrerHost(referrer), utm, click);
};
const channel = (page: string, referrer = '') => traffic(page, referrer).channel;

const SITE = 'https://shop.example/pricing';

describe('channel rules (docs/product/channels.md), first match wins', () => {
  it('Paid Search: a paid utm_medium with a search source, or a search ad click id', () => {
    expect(channel(`${SITE}?utm_source=google&utm_medium=cpc`)).toBe('Paid Search');
    expect(channel(`${SITE}?utm_source=bing&utm_medium=paid_search`)).toBe('Paid Search');
    expect(channel(`${SITE}?utm_medium=PPC`, 'https://www.google.com/')).toBe('Paid Search');
    // gclid without any referrer (the browser dropped it): still the ad.
    expect(channel(`${SITE}?gclid=Cj0KCQ`)).toBe('Paid Search');
    for (const id of ['gbraid', 'wbraid', 'msclkid', 'dclid']) expect(channel(`${SITE}?${id}=x1`)).toBe('Paid Search');
    // A paid medium naming no search engine is not paid search.
    expect(channel(`${SITE}?utm_source=spring&utm_medium=cpc`)).toBe('Other');
  });

  it('Paid Social: a paid utm_medium with a social source, or a paid social click id; fbclid alone is organic', () => {
    expect(channel(`${SITE}?utm_source=facebook&utm_medium=paid`)).toBe('Paid Social');
    expect(channel(`${SITE}?utm_source=linkedin&utm_medium=paid-social`)).toBe('Paid Social');
    expect(channel(`${SITE}?utm_medium=cpc`, 'https://l.facebook.com/')).toBe('Paid Social');
    for (const id of ['ttclid', 'li_fat_id', 'twclid', 'ScCid']) expect(channel(`${SITE}?${id}=x1`)).toBe('Paid Social');
    expect(channel(`${SITE}?fbclid=IwAR0abc`, 'https://m.facebook.com/')).toBe('Organic Social');
    expect(channel(`${SITE}?fbclid=IwAR0abc`)).toBe('Organic Social');
  });

  it('AI assistants: the referrer or utm_source is an AI assistant', () => {
    expect(traffic(SITE, 'https://chatgpt.com/')).toEqual({ source: 'ChatGPT', channel: 'AI assistants' });
    expect(traffic(`${SITE}?utm_source=chatgpt.com`)).toEqual({ source: 'chatgpt.com', channel: 'AI assistants' });
    expect(channel(SITE, 'https://www.perplexity.ai/search/x')).toBe('AI assistants');
    expect(traffic(SITE, 'https://gemini.google.com/app')).toEqual({ source: 'Gemini', channel: 'AI assistants' });
  });

  it('Organic Search: a search engine referrer, or utm_medium organic', () => {
    expect(traffic(SITE, 'https://www.google.co.uk/')).toEqual({ source: 'Google', channel: 'Organic Search' });
    expect(traffic(SITE, 'https://duckduckgo.com/')).toEqual({ source: 'DuckDuckGo', channel: 'Organic Search' });
    expect(channel(`${SITE}?utm_source=partner&utm_medium=organic`)).toBe('Organic Search');
    // A search engine named by utm_source with a medium that is not about search is not organic search.
    expect(channel(`${SITE}?utm_source=google&utm_medium=display`)).toBe('Other');
  });

  it('Organic Social: a social referrer, a social utm_medium, a social utm_source alone, or fbclid', () => {
    expect(traffic(SITE, 'https://lm.facebook.com/l.php?u=x')).toEqual({ source: 'Facebook', channel: 'Organic Social' });
    expect(traffic(SITE, 'https://t.co/abc')).toEqual({ source: 'Twitter', channel: 'Organic Social' });
    expect(traffic(SITE, 'https://news.ycombinator.com/item?id=1')).toEqual({ source: 'Hacker News', channel: 'Organic Social' });
    expect(channel(`${SITE}?utm_source=mastodon&utm_medium=social-media`)).toBe('Organic Social');
    expect(channel(`${SITE}?utm_source=launch&utm_medium=sm`)).toBe('Organic Social');
    expect(channel(`${SITE}?utm_source=twitter`)).toBe('Organic Social');
  });

  it('Email: a webmail referrer (Gmail is not search) or an e-mail utm_medium', () => {
    expect(traffic(SITE, 'https://mail.google.com/')).toEqual({ source: 'Gmail', channel: 'Email' });
    expect(traffic(SITE, 'https://outlook.live.com/mail/0/')).toEqual({ source: 'Outlook.com', channel: 'Email' });
    expect(channel(`${SITE}?utm_source=weekly&utm_medium=newsletter`)).toBe('Email');
    expect(channel(`${SITE}?utm_source=weekly&utm_medium=E-Mail`)).toBe('Email');
  });

  it('Direct: no referrer, no utm parameter, no click id', () => {
    expect(traffic(SITE)).toEqual({ source: null, channel: 'Direct' });
    expect(traffic(`${SITE}?ref=x`)).toEqual({ source: null, channel: 'Direct' });
  });

  it('Referral: any other referrer host, the site own hosts included (as before channels)', () => {
    expect(traffic(SITE, 'https://blog.example.org/post')).toEqual({ source: 'blog.example.org', channel: 'Referral' });
    expect(traffic(SITE, 'https://shop.example/')).toEqual({ source: 'shop.example', channel: 'Referral' });
    expect(traffic(SITE, 'https://docs.google.com/document/d/1')).toEqual({ source: 'Google', channel: 'Referral' });
  });

  it('Other: utm parameters that say nothing known', () => {
    expect(traffic(`${SITE}?utm_source=partner&utm_medium=affiliate`)).toEqual({ source: 'partner', channel: 'Other' });
    expect(channel(`${SITE}?utm_campaign=spring`)).toBe('Other');
  });

  it('utm_source is the source when given, whatever the referrer', () => {
    expect(traffic(`${SITE}?utm_source=Newsletter-42&utm_medium=email`, 'https://mail.google.com/')).toEqual({
      source: 'Newsletter-42',
      channel: 'Email',
    });
  });
});
