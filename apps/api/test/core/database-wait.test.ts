// What a start-up says about DATABASE_URL: where it points, never its password.
import { describe, expect, it } from 'vitest';
import { describeDatabaseUrl } from '../../src/core/database-wait.ts';

describe('DATABASE_URL as a start-up shows it', () => {
  it('names the user, host, port and database, and leaves the password out', () => {
    const shown = describeDatabaseUrl('postgres://stats:s3cr%40t-pw@db.internal:6543/unseen?sslmode=require');
    expect(shown).toBe('stats@db.internal:6543/unseen');
    expect(shown).not.toContain('s3cr');
  });

  it("gives PostgreSQL's default port, and no database when the URL names none", () => {
    expect(describeDatabaseUrl('postgresql://db.internal')).toBe('db.internal:5432');
  });

  it('shows nothing of a value that is not a URL (it could be the password itself)', () => {
    expect(describeDatabaseUrl('postgres://user:pa ss@[bad')).toBe('DATABASE_URL');
  });
});
