// Which last rollup a new one may start from, after a database moved to another PostgreSQL (moved-database.ts).
import { describe, expect, it } from 'vitest';
import { recordedElsewhere, usableLast } from '../../../src/analytics/rollup/moved-database.ts';

const here = (snapshot: string) => ({ snapshot, server: '7713757249182034074' });

describe('a rollup of a day counted before', () => {
  it('starts from a snapshot this server took before now', () => {
    expect(usableLast(here('5000:5003:5001'), here('5100:5100:'))).toBe(true);
    expect(usableLast(here('5100:5100:'), here('5100:5100:'))).toBe(true);
  });

  it('not from one ahead of this server, another server or none recorded', () => {
    // Restored from a server that had run longer: its snapshot is ahead of every transaction here.
    expect(usableLast(here('900000:900004:900001'), here('5100:5100:'))).toBe(false);
    expect(usableLast({ snapshot: '5000:5003:', server: '6999999999999999999' }, here('5100:5100:'))).toBe(false);
    expect(usableLast({ snapshot: '5000:5003:', server: null }, here('5100:5100:'))).toBe(false);
  });

  it('knows the database moved when the last rollup names another server', () => {
    expect(recordedElsewhere({ server: '6999999999999999999' }, here('1:1:'))).toBe(true);
    expect(recordedElsewhere({ server: '7713757249182034074' }, here('1:1:'))).toBe(false);
    // Recorded before servers were: nothing to tell.
    expect(recordedElsewhere({ server: null }, here('1:1:'))).toBe(false);
    expect(recordedElsewhere(null, here('1:1:'))).toBe(false);
  });
});
