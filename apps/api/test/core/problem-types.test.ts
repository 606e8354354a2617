import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError, CODE_OF_STATUS, toProblem } from '../../src/core/errors.ts';
import { PROBLEM_CODES, PROBLEM_TYPES, type ProblemCode } from '../../src/core/problem-types.ts';

const DOC = path.resolve(import.meta.dirname, '../../../../docs/api/problems.md');

/** The rows of the docs' code table: code, statuses and type, as written. */
function documentedRows() {
  const rows = readFileSync(DOC, 'utf8')
    .split('\n')
    .filter((line) => /^\| `[a-z-]+` \|/.test(line));
  return rows.map((line) => {
    const [code, statuses, type] = line
      .split('|')
      .slice(1, 4)
      .map((cell) => cell.trim().replaceAll('`', ''));
    return { code, statuses: statuses?.split(',').map((s) => Number(s.trim())), type };
  });
}

describe('the problem type table', () => {
  it('docs/api/problems.md lists exactly its codes, each with its statuses and type', () => {
    const rows = documentedRows();
    expect(rows.map((r) => r.code)).toEqual(PROBLEM_CODES);
    for (const row of rows) {
      const known: { status: number; alsoAs?: readonly number[] } = PROBLEM_TYPES[row.code as ProblemCode];
      expect(row.statuses, row.code).toEqual([known.status, ...(known.alsoAs ?? [])]);
      expect(row.type, row.code).toBe(`/problems/${row.code}`);
    }
  });

  it('gives every status a default code of that status (its own, or one it is also sent as)', () => {
    for (const [status, code] of Object.entries(CODE_OF_STATUS)) {
      const type: { status: number; alsoAs?: readonly number[] } = PROBLEM_TYPES[code];
      expect([type.status, ...(type.alsoAs ?? [])], code).toContain(Number(status));
    }
  });

  it('makes a problem with type first, then code, as the status or the throw site says', () => {
    expect(toProblem(new AppError(400, 'Fix x: it is wrong', { field: 'x' }))).toEqual({
      type: '/problems/validation',
      code: 'validation',
      title: 'Fix x: it is wrong',
      status: 400,
      field: 'x',
    });
    const configured = toProblem(new AppError(503, 'Not set up here', { code: 'not-configured' }));
    expect(Object.keys(configured)).toEqual(['type', 'code', 'title', 'status']);
    expect(configured).toMatchObject({ type: '/problems/not-configured', code: 'not-configured' });
    const busy = toProblem(new AppError(503, 'Busy: try again', { retryAfter: 2 }));
    expect(busy).toEqual({
      type: '/problems/unavailable',
      code: 'unavailable',
      title: 'Busy: try again',
      status: 503,
      retryAfter: 2,
    });
  });
});
