import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LANGUAGES, languageOf } from '../../../src/features/protection/challenge/language.ts';
import { MESSAGES, type Messages } from '../../../src/features/protection/challenge/messages/index.ts';

const MESSAGES_DIR = new URL('../../../src/features/protection/challenge/messages/', import.meta.url);
const HOST = 'shop.example';

/** Every text of one language by its path (`refusals.used.title`); a text with a host is shown for HOST. */
function texts(value: unknown, path = ''): Map<string, string> {
  if (typeof value === 'string') return new Map([[path, value]]);
  if (typeof value === 'function') return new Map([[path, String(value(HOST))]]);
  const all = new Map<string, string>();
  for (const [key, inner] of Object.entries(value as object)) {
    for (const [p, text] of texts(inner, path ? `${path}.${key}` : key)) all.set(p, text);
  }
  return all;
}

describe('check page: languages', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['de', 'de'],
    ['de-CH', 'de'],
    ['FR-be', 'fr'],
    ['es-419,es;q=0.9', 'es'],
    ['pt-BR,es;q=0.5', 'es'],
    ['en;q=0.2,fr;q=0.9', 'fr'],
    ['de;q=0,en;q=0.1', 'en'],
    ['zh,ja', 'en'],
    [`${'x,'.repeat(400)}de`, 'en'],
  ])('Accept-Language %j → %s', (header, lang) => {
    expect(languageOf(header)).toBe(lang);
  });

  it('speaks every language that has a file in messages/, and only those', async () => {
    const files = readdirSync(MESSAGES_DIR).filter((f) => f !== 'index.ts' && f !== 'types.ts');
    expect(files.map((f) => f.replace(/\.ts$/, '')).sort()).toEqual([...LANGUAGES].sort());
    for (const lang of LANGUAGES) {
      const file = (await import(new URL(`${lang}.ts`, MESSAGES_DIR).href)) as Record<string, Messages>;
      expect(file[lang], `messages/${lang}.ts exports ${lang}`).toBe(MESSAGES[lang]);
    }
  });

  it.each(LANGUAGES)('%s has every text of the English one, none empty', (lang) => {
    const english = texts(MESSAGES.en);
    const own = texts(MESSAGES[lang]);
    expect([...own.keys()].sort()).toEqual([...english.keys()].sort());
    for (const [path, text] of own) expect(text.trim(), `${lang}: ${path}`).not.toBe('');
    for (const path of ['intro', 'privacy', 'backTo']) expect(own.get(path), `${lang}: ${path}`).toContain(HOST);
    expect(own.get('working')).toContain('%s');
  });
});
