import { describe, expect, it } from 'vitest';
import { parsePostgresSettings } from '../src/postgres-settings.ts';

describe('PostgreSQL settings files', () => {
  it('reads postgresql.conf lines: with or without =, quoted values, comments and blank lines', () => {
    const text = [
      '# a comment',
      '',
      'shared_buffers = 128MB   # trailing comment',
      'search_path = \'"$user", public\'',
      "application_name = 'it''s # not a comment'",
      'JIT off',
    ].join('\n');
    expect(parsePostgresSettings(text)).toEqual({
      shared_buffers: '128MB',
      search_path: '"$user", public',
      application_name: "it's # not a comment",
      jit: 'off',
    });
  });

  it('names the line it cannot read', () => {
    expect(() => parsePostgresSettings('work_mem = 8MB\nshared buffers = 1GB', '1gb.conf')).toThrow(
      '1gb.conf, line 2: not a PostgreSQL setting (name = value): shared buffers = 1GB',
    );
  });
});
