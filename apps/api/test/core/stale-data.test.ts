import { describe, expect, it } from 'vitest';
import { dateOfBuildVersion, staleDataWarnings } from '../../src/core/stale-data.ts';

const GEO = { what: 'Country data (geo 1.0)', date: '2026-06-17', update: 'npm update geo' };

describe('stale offline data', () => {
  it('warns once the data is more than 90 days old, with its date, age and how to update it', () => {
    expect(staleDataWarnings([GEO], new Date('2026-09-15T23:59:59Z'))).toEqual([]); // 90 days
    expect(staleDataWarnings([GEO], new Date('2026-09-16T00:00:00Z'))).toEqual([
      'Country data (geo 1.0) is from 2026-06-17, 91 days old: npm update geo',
    ]);
  });

  it('takes the age limit as a parameter, and warns about a date it cannot read', () => {
    expect(staleDataWarnings([GEO], new Date('2026-06-20T00:00:00Z'), 2)).toHaveLength(1);
    expect(staleDataWarnings([{ ...GEO, date: 'June' }], new Date('2026-06-20T00:00:00Z'))).toEqual([
      'Country data (geo 1.0) has no readable date (June): npm update geo',
    ]);
  });

  it("reads the day from ip-location-db's version (year, month, day, hour)", () => {
    expect(dateOfBuildVersion('2.3.2026061719')).toBe('2026-06-17');
    expect(dateOfBuildVersion('1.0.0')).toBe('1.0.0');
  });
});
