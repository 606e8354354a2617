import { readFileSync } from 'node:fs';
import { findPackageJSON } from 'node:module';
import { describe, expect, it } from 'vitest';
import { BOT_LISTS_DATED } from '../src/index.ts';

/** The dates the service's start-up warns by follow the lists they date. */
describe('BOT_LISTS_DATED', () => {
  it('names the crawler-user-agents release installed (upgrading it means dating it anew)', () => {
    // Its package.json is not among its exports: found beside its entry point instead.
    const file = findPackageJSON('crawler-user-agents', import.meta.url) as string;
    const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version: string };
    expect(BOT_LISTS_DATED.crawlerUserAgents.what).toContain(`crawler-user-agents ${version},`);
  });

  it('dates the AI agent names as the ai.robots.txt snapshot the corpus test holds them to', () => {
    const corpus = JSON.parse(readFileSync(new URL('./corpora/ai-agents.json', import.meta.url), 'utf8')) as {
      sources: { agents: string };
    };
    expect(corpus.sources.agents).toContain(`(${BOT_LISTS_DATED.aiAgents.date};`);
  });

  it('gives every list a day and a way to update it', () => {
    for (const list of Object.values(BOT_LISTS_DATED)) {
      expect(list.date, list.what).toMatch(/^20\d\d-\d\d-\d\d$/);
      expect(list.update, list.what).not.toBe('');
    }
  });
});
