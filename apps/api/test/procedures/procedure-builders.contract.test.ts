import { describe, expect, it } from 'vitest';
import { listOperations } from '../../src/procedures/registry.ts';
import { appRouter } from '../../src/router.ts';

/** What `meta.auth` each builder may carry (the faces read `meta.auth`; the builder narrows the types). */
const AUTH_OF_BUILDER = {
  public: ['none', 'optional'],
  actor: ['any'],
  person: ['person'],
} as const;

describe('procedure builders and meta agree', () => {
  const ops = listOperations(appRouter);

  it('every operation is made from one of the three builders', () => {
    const stray = ops.filter((op) => !op.meta.builder).map((op) => op.path);
    expect(stray).toEqual([]);
  });

  it.each(ops.map((op) => [op.path, op.meta.builder, op.meta.auth] as const))(
    '%s: built with %s, meta.auth %s',
    (_path, builder, auth) => {
      expect(builder).toBeDefined();
      expect(AUTH_OF_BUILDER[builder as keyof typeof AUTH_OF_BUILDER] as readonly string[]).toContain(auth);
    },
  );
});
