import { describe, expect, it } from 'vitest';
import { RowRefused, uuidValue } from '../src/analytics/columns.ts';

describe('uuidValue', () => {
  const site = '0195f0a0-1111-7000-8000-00000000abcd';

  it('takes the same id again without checking it twice, and still refuses anything else after it', () => {
    expect(uuidValue('site_id', site)).toBe(site);
    expect(uuidValue('site_id', site)).toBe(site);
    for (const bad of ['', 'not-a-uuid', `${site} `, `${site}0`, null, undefined, 42, { toString: () => site }]) {
      expect(() => uuidValue('site_id', bad)).toThrow(RowRefused);
    }
    const other = '0195f0a0-2222-7000-8000-00000000abcd';
    expect(uuidValue('id', other)).toBe(other);
    expect(uuidValue('site_id', site)).toBe(site);
  });
});
