import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { coerceQuery, fieldTypes } from '../../src/faces/rest/query.ts';
import { procedureCaller } from '../../src/procedures/call-procedure.ts';
import { baseProcedure, createCallerFactory, router } from '../../src/procedures/init.ts';
import { actorProcedure, publicProcedure } from '../../src/procedures/procedures.ts';
import { listOperations } from '../../src/procedures/registry.ts';

/**
 * The places that read a library's insides, each behind one small function: an upgrade that changes
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

describe('procedureCaller (runs a procedure through tRPC internals, as createCaller does)', () => {
  const seen: unknown[] = [];
  const withUser = baseProcedure.use(({ next }) => next({ ctx: { user: 'ana' } }));
  const tiny = router({
    ok: withUser
      .meta({ auth: 'none' })
      .use(({ ctx, meta, input, next }) => {
        seen.push({ user: (ctx as { user?: string }).user, meta, input });
        return next();
      })
      .input(z.object({ n: z.number() }))
      .output(z.object({ n: z.number(), user: z.string() }))
      .query(({ ctx, input }) => ({ n: input.n + 1, user: (ctx as unknown as { user: string }).user })),
    badOutput: baseProcedure
      .meta({ auth: 'none' })
      .output(z.object({ n: z.number() }))
      .query(() => ({ n: 'one' }) as unknown as { n: number }),
    throws: baseProcedure.meta({ auth: 'none' }).mutation(() => {
      throw new Error('broken');
    }),
    badInput: baseProcedure
      .meta({ auth: 'none' })
      .input(z.object({ n: z.number() }))
      .query(({ input }) => input),
  });
  const viaCaller = (path: string, input: unknown) =>
    (createCallerFactory(tiny)({} as never) as unknown as Record<string, (i: unknown) => Promise<unknown>>)[path]?.(input);
  const viaProcedure = (path: string, input: unknown) => procedureCaller(tiny)(path, {} as never, input);
  const outcome = (p: Promise<unknown> | undefined) =>
    (p as Promise<unknown>).then(
      (data) => ({ data }),
      (e: { name: string; code?: string; message: string; cause?: unknown }) => ({
        name: e.name,
        code: e.code,
        message: e.message,
      }),
    );

  it('gives the same answers and the same errors, with context, meta and input passed along the chain', async () => {
    for (const [path, input] of [
      ['ok', { n: 1 }],
      ['badOutput', undefined],
      ['throws', undefined],
      ['badInput', { n: 'x' }],
      ['nothing', undefined],
    ] as const) {
      seen.length = 0;
      const expected = await outcome(viaCaller(path, input));
      const seenByCaller = [...seen];
      seen.length = 0;
      expect(await outcome(viaProcedure(path, input)), path).toEqual(expected);
      expect(seen, path).toEqual(seenByCaller);
    }
    expect(await viaProcedure('ok', { n: 1 })).toEqual({ n: 2, user: 'ana' });
    expect(seen).toEqual([{ user: 'ana', meta: { auth: 'none' }, input: undefined }]);
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
