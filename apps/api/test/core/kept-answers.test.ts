import { describe, expect, it } from 'vitest';
import { keptAnswers } from '../../src/core/cache/kept-answers.ts';

describe('keptAnswers', () => {
  it('answers a key seen lately without asking again, null answers included', () => {
    const asked: string[] = [];
    const hostOf = keptAnswers(
      (key: string) => {
        asked.push(key);
        return key === 'bad' ? null : key.toUpperCase();
      },
      { max: 10, longest: 16 },
    );
    expect([hostOf('a'), hostOf('a'), hostOf('bad'), hostOf('bad')]).toEqual(['A', 'A', null, null]);
    expect(asked).toEqual(['a', 'bad']);
  });

  it('never keeps more than max keys, nor any key longer than longest (a flood of distinct values)', () => {
    let asked = 0;
    const sizeOf = keptAnswers(
      (key: string) => {
        asked++;
        return key.length;
      },
      { max: 100, longest: 16 },
    );
    for (let i = 0; i < 1_000; i++) sizeOf(`key-${i}`);
    expect(asked).toBe(1_000);
    // The map started over at 100 keys: of the last 100 asked, those after the last start-over are kept.
    asked = 0;
    sizeOf('key-999');
    expect(asked).toBe(0);
    sizeOf('key-0');
    expect(asked).toBe(1);
    const long = 'x'.repeat(17);
    expect([sizeOf(long), sizeOf(long)]).toEqual([17, 17]);
    expect(asked).toBe(3);
  });
});
