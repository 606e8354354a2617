import { describe, expect, it } from 'vitest';
import { cleanText } from '../src/text.ts';

describe('cleanText', () => {
  it('gives text with nothing to remove back as it is, up to its limit exactly', () => {
    expect(cleanText('/pricing?plan=pro', 100)).toBe('/pricing?plan=pro');
    expect(cleanText('abc', 3)).toBe('abc');
    expect(cleanText('ünï-😀', 5)).toBe('ünï-😀');
  });

  it('removes control characters (C0 with NUL, DEL, C1) wherever they are, also in text within its limit', () => {
    expect(cleanText('a\u0000b\u0007c\u001f', 100)).toBe('abc');
    expect(cleanText('\u007fx\u0080y\u009f', 100)).toBe('xy');
    expect(cleanText('ab\n', 3)).toBe('ab');
  });

  it('removes a lone surrogate and keeps a pair', () => {
    expect(cleanText('a\ud800b', 10)).toBe('ab');
    expect(cleanText('a\udc00', 10)).toBe('a');
    expect(cleanText('a😀\ud83d', 10)).toBe('a😀');
  });

  it('cuts to the limit in characters, never splitting a pair', () => {
    expect(cleanText('abcdef', 4)).toBe('abcd');
    expect(cleanText('😀😀😀', 2)).toBe('😀😀');
    expect(cleanText(`${'x'.repeat(3)}\u0000${'y'.repeat(3)}`, 5)).toBe('xxxyy');
  });
});
