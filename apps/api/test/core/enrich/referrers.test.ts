import { describe, expect, it } from 'vitest';
import { AI_ASSISTANTS } from '../../../src/core/enrich/ai-assistants.ts';
import { REFERRER_LIST, referrerFamily, utmSourceFamily } from '../../../src/core/enrich/referrers.ts';
import { referrerHost } from '../../../src/core/enrich/url.ts';
import corpus from './fixtures/referer-tests.json' with { type: 'json' };

/** The list's "chatbot" medium is the service's "ai". */
const MEDIUM: Record<string, string> = { chatbot: 'ai' };

/**
 * Where the service answers differently from snowplow's own expectations, and why: the service keeps a
 * referrer's host only (the list's path entries, `google.fr/imgres`, are left out), and its hand-kept AI
 * list names the assistants as people call them.
 */
const DIFFERENT: Record<string, { source: string; medium: string } | null> = {
  'Google Images search': { source: 'Google', medium: 'search' },
  'Bing Images search': { source: 'Bing', medium: 'search' },
  'Orange Webmail': null,
  'pull/245: claude.ai': { source: 'Claude', medium: 'ai' },
  'pull/245: gemini.google.com': { source: 'Gemini', medium: 'ai' },
  'pull/245: meta.ai': { source: 'Meta AI', medium: 'ai' },
  'pull/245: copilot.microsoft.com': { source: 'Copilot', medium: 'ai' },
  'pull/245: chat.mistral.ai': { source: 'Le Chat', medium: 'ai' },
  'pull/245: perplexity.ai': { source: 'Perplexity', medium: 'ai' },
};

/** The host of a corpus URL as the page script's referrer would give it (app referrers: `android-app://…`). */
const hostOf = (uri: string) => referrerHost(uri) ?? /^[a-z-]+:\/\/([^/?#]+)/.exec(uri)?.[1] ?? null;

describe('referrer families: snowplow-referer-parser test corpus (real referrer URLs)', () => {
  it('the list names its source, commit and date', () => {
    expect(REFERRER_LIST).toMatchObject({
      repository: 'https://github.com/snowplow-referer-parser/referer-parser',
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
  });

  it.each(corpus.cases.map((c) => [c.spec, c] as const))('%s', (spec, c) => {
    const expected =
      spec in DIFFERENT ? DIFFERENT[spec] : c.known ? { source: c.source, medium: MEDIUM[c.medium] ?? c.medium } : null;
    expect(referrerFamily(hostOf(c.uri))).toEqual(expected);
  });

  it('the corpus covers every medium and most cases match the list exactly', () => {
    expect(new Set(corpus.cases.map((c) => c.medium))).toEqual(new Set(['search', 'social', 'email', 'paid', 'chatbot']));
    expect(corpus.cases.length - Object.keys(DIFFERENT).length).toBeGreaterThanOrEqual(100);
  });
});

describe('referrerFamily', () => {
  it('drops leading labels until a listed host: any case, a trailing dot', () => {
    expect(referrerFamily('m.facebook.com')).toEqual({ source: 'Facebook', medium: 'social' });
    expect(referrerFamily('LM.Facebook.com.')).toEqual({ source: 'Facebook', medium: 'social' });
    expect(referrerFamily('news.google.co.uk')).toEqual({ source: 'Google News', medium: 'search' });
    expect(referrerFamily('lens.google.co.uk')).toEqual({ source: 'Google', medium: 'search' });
    expect(referrerFamily('www.google.de')).toEqual({ source: 'Google', medium: 'search' });
  });

  it('Gmail and Google apps are not Google search', () => {
    expect(referrerFamily('mail.google.com')).toEqual({ source: 'Gmail', medium: 'email' });
    expect(referrerFamily('docs.google.com')).toEqual({ source: 'Google', medium: 'unknown' });
    expect(referrerFamily('support.google.com')).toEqual({ source: 'Google', medium: 'unknown' });
  });

  it('the hand-kept AI list wins, every host of it', () => {
    for (const [source, hosts] of Object.entries(AI_ASSISTANTS)) {
      for (const host of hosts) expect(referrerFamily(host)).toEqual({ source, medium: 'ai' });
    }
  });

  it('an unknown host, a single label or nothing has no family', () => {
    expect(referrerFamily('blog.example.org')).toBeNull();
    expect(referrerFamily('localhost')).toBeNull();
    expect(referrerFamily('co.uk')).toBeNull();
    expect(referrerFamily(null)).toBeNull();
    expect(referrerFamily('')).toBeNull();
  });
});

describe('utmSourceFamily', () => {
  it('a host, a family name in any case, or a nickname', () => {
    expect(utmSourceFamily('chatgpt.com')).toEqual({ source: 'ChatGPT', medium: 'ai' });
    expect(utmSourceFamily('google')).toEqual({ source: 'Google', medium: 'search' });
    expect(utmSourceFamily('Yahoo')).toEqual({ source: 'Yahoo!', medium: 'search' });
    expect(utmSourceFamily('fb')).toEqual({ source: 'Facebook', medium: 'social' });
    expect(utmSourceFamily('newsletter')).toBeNull();
    expect(utmSourceFamily(null)).toBeNull();
  });
});
