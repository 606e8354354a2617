import type { AnyRouter } from '@trpc/server';
import type { z } from 'zod';
import type { Meta } from './meta.ts';

/** One operation of the API as the faces see it: where it lives in the router and what its meta says. */
export interface Operation {
  /** Dotted router path, e.g. `auth.login`. */
  path: string;
  type: 'query' | 'mutation';
  meta: Meta;
  input: z.ZodType | undefined;
  output: z.ZodType | undefined;
}

interface ProcedureDef {
  type: 'query' | 'mutation' | 'subscription';
  meta?: Meta;
  inputs: z.ZodType[];
  output?: z.ZodType;
}

/**
 * Every procedure of the router, flattened, in declaration order. tRPC offers no public listing, so this
 * reads `router._def` (as `call-procedure.ts` does; both tested in `registry.test.ts`, so an upgrade that
 * changes it fails there first).
 */
export function listOperations(router: AnyRouter): Operation[] {
  const procedures = router._def.procedures as Record<string, { _def: ProcedureDef }>;
  return Object.entries(procedures).flatMap(([path, proc]) => {
    const def = proc._def;
    if (def.type === 'subscription' || !def.meta) return [];
    return [{ path, type: def.type, meta: def.meta, input: def.inputs[0], output: def.output }];
  });
}
