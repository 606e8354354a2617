import { readFileSync } from 'node:fs';
import { classifyUserAgent } from '@us/protection';
import { describe, expect, it } from 'vitest';
import { crawlerCheck } from '../../../src/features/protection/crawler-checks.ts';

// The catalogue's `verifiable` flag and the service's checks must agree: a claim that fails a check is
// refused only when the bot is verifiable (decision order, step 4), and the edge asks the service only for
// verifiable bots. Measured on the real declared-bot strings of the protection package's corpora.
const corpus = new URL('../../../../../packages/protection/test/corpora/declared-bots.txt', import.meta.url);
const strings = readFileSync(corpus, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.startsWith('#'));

describe('crawler checks and the catalogue', () => {
  it('every bot the service can check is verifiable in the catalogue', () => {
    const checked = new Map<string, boolean>();
    for (const ua of strings) {
      const bot = classifyUserAgent(ua).bot;
      if (bot && crawlerCheck(bot.name)) checked.set(bot.name, bot.verifiable);
    }
    expect(checked.size).toBeGreaterThan(10);
    expect([...checked].filter(([, verifiable]) => !verifiable).map(([name]) => name)).toEqual([]);
  });

  it("Google's user-triggered fetchers are their own bots, never Search crawlers", () => {
    for (const ua of strings.filter((s) => /Feedfetcher-Google|Google-Read-Aloud|Google-Site-Verification/i.test(s))) {
      const bot = classifyUserAgent(ua).bot;
      expect(bot?.category, ua).not.toBe('search-engine');
      expect(crawlerCheck(bot?.name ?? '')?.domains ?? [], ua).not.toContain('googlebot.com');
    }
  });
});
