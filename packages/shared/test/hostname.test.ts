import { describe, expect, it } from 'vitest';
import { normaliseHostname } from '../src/hostname.ts';

describe('normaliseHostname', () => {
  it('lower-cases and trims a bare hostname, dropping a trailing dot', () => {
    expect(normaliseHostname('  WWW.Example.COM. ')).toEqual({ ok: true, hostname: 'www.example.com' });
    expect(normaliseHostname('xn--bcher-kva.example')).toEqual({ ok: true, hostname: 'xn--bcher-kva.example' });
  });

  it.each([
    ['https://www.example.com', /scheme/],
    ['www.example.com/blog', /path/],
    ['www.example.com:8080', /port/],
    ['www.example.com?x=1', /query/],
    ['localhost', /valid hostname/],
    ['-bad.example.com', /valid hostname/],
    ['10.0.0.1', /valid hostname/],
    ['', /Give a hostname/],
  ])('refuses %s with a title that says what to do', (input, message) => {
    const r = normaliseHostname(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toMatch(message);
  });
});
