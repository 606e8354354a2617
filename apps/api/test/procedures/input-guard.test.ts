import { describe, expect, it } from 'vitest';
import { MAX_INPUT_DEPTH, nestedDeeperThan, refuseDeepInput, refuseUnsafeText } from '../../src/procedures/input-guard.ts';

const refusal = (fn: () => void) => {
  try {
    fn();
  } catch (e) {
    return { field: (e as { field?: string }).field, title: (e as Error).message };
  }
  return null;
};

// The guard walks every input on every face before anything else (REST with no credentials, MCP before its rate
// count). It made a path per value it met: a 256 KB login body of 131k numbers 30 levels deep held the event loop
// 0.2–1 s (docs/performance/history.md). The shapes of that attack, and the fields it names.
describe('the input guard', () => {
  const nested = (levels: number, inner: unknown) => {
    let v = inner;
    for (let i = 0; i < levels; i++) v = [v];
    return v;
  };

  it('lets the attack body through when it is within the depth, and names the field when it is not', () => {
    const numbers = Array.from({ length: 131_000 }, () => 0);
    expect(refusal(() => refuseUnsafeText({ email: nested(30, numbers) }))).toBeNull();
    expect(refusal(() => refuseUnsafeText({ email: nested(MAX_INPUT_DEPTH + 1, numbers) }))).toMatchObject({ field: 'email' });
    expect(refusal(() => refuseDeepInput(nested(MAX_INPUT_DEPTH + 5, 1), '(arguments)'))).toMatchObject({ field: '[0]' });
    expect(nestedDeeperThan({ a: { b: [[1]] } }, 3)).toBe(true);
    expect(nestedDeeperThan({ a: { b: [1] } }, 3)).toBe(false);
    expect(nestedDeeperThan('text', 0)).toBe(false);
  });

  it('names the first bad string by its path, keys included, among many good ones', () => {
    const rows = Array.from({ length: 50_000 }, (_, i) => ({ name: `row ${i}` }));
    rows[40_000] = { name: 'bad\u0000' };
    expect(refusal(() => refuseUnsafeText({ queries: { a: { rows } } }))).toMatchObject({ field: 'queries.a.rows[40000].name' });
    expect(refusal(() => refuseUnsafeText({ list: ['ok', { 'key\u0001': 1 }] }))).toMatchObject({ field: 'list[1].key\u0001' });
    expect(refusal(() => refuseUnsafeText({ list: ['ok', 'half \ud800'] }))).toMatchObject({ field: 'list[1]' });
    // Line breaks are text in the fields that take a pasted file, and only there.
    expect(refusal(() => refuseUnsafeText({ key: 'a\nb' }, ['key']))).toBeNull();
    expect(refusal(() => refuseUnsafeText({ name: 'a\nb' }, ['key']))).toMatchObject({ field: 'name' });
  });
});
