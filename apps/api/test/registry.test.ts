import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { coerceQuery, fieldTypes } from '../src/rest/query.ts';
import { router } from '../src/trpc/init.ts';
import { actorProcedure, publicProcedure } from '../src/trpc/procedures.ts';
import { listOperations } from '../src/trpc/registry.ts';

/**
 * The two places that read a library's insides, each behind one small function: an upgrade that changes
 * them fails here first, not in every face.
 */
describe('listOperations (reads tRPC router internals)', () => {
  const input = z.object({ id: z.string() });
  const output = z.object({ ok: z.boolean() });
  const tiny = router({
    a: router({
      read: actorProcedure
        .meta({ auth: 'any', openapi: { method: 'GET', path: '/v1/a/{id}' } })
        .input(input)
        .output(output)
        .query(() => ({ ok: true })),
    }),
    write: publicProcedure
      .meta({ auth: 'none' })
      .output(output)
      .mutation(() => ({ ok: true })),
  });

  it('lists every procedure with its dotted path, type, meta, input and output', () => {
    const ops = listOperations(tiny);
    expect(ops.map((o) => [o.path, o.type, o.meta.auth, o.meta.builder])).toEqual([
      ['a.read', 'query', 'any', 'actor'],
      ['write', 'mutation', 'none', 'public'],
    ]);
    expect(ops[0]?.input).toBe(input);
    expect(ops[0]?.output).toBe(output);
    expect(ops[1]?.input).toBeUndefined();
  });
});

describe('fieldTypes and coerceQuery (zod JSON-Schema export)', () => {
  const schema = z
    .object({
      id: z.string(),
      days: z.number().int().min(1).optional(),
      limit: z.number().default(10),
      compare: z.boolean().nullable().optional(),
      tags: z.array(z.string()).optional(),
    })
    .strict();

  it('reads each field’s JSON type through optional, default and nullable wrappers', () => {
    expect(fieldTypes(schema)).toEqual({ id: 'string', days: 'integer', limit: 'number', compare: 'boolean', tags: 'array' });
    expect(fieldTypes(undefined)).toEqual({});
  });

  it('turns query text into the types the schema wants, and leaves the rest to zod', () => {
    const q = new URLSearchParams('id=7&days=30&limit=x&compare=true&tags=a&tags=b&other=1');
    expect({ ...coerceQuery(schema, q) }).toEqual({ id: '7', days: 30, limit: 'x', compare: true, tags: ['a', 'b'], other: '1' });
  });
});
