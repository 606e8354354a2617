import type { z } from 'zod';

/** The object schema behind optional/default wrappers, if any. */
function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  let s: z.ZodType | undefined = schema;
  for (let i = 0; i < 5 && s; i++) {
    const def: Def = defOf(s);
    if (def.type === 'object') return def.shape;
    s = def.innerType;
  }
  return undefined;
}

type Def = { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType> };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

function baseType(schema: z.ZodType): string {
  let s: z.ZodType | undefined = schema;
  for (let i = 0; i < 5 && s; i++) {
    const def: Def = defOf(s);
    if (def.type !== 'optional' && def.type !== 'default' && def.type !== 'nullable') return def.type;
    s = def.innerType;
  }
  return 'unknown';
}

const BOOLEANS: Record<string, boolean> = { true: true, false: false, '1': true, '0': false };

/**
 * Query-string values are text: numbers are turned into numbers and `true`/`false`/`1`/`0` into
 * booleans where the input schema wants one, and repeated keys into arrays where it wants an array.
 * Everything else stays text for zod to judge.
 */
export function coerceQuery(schema: z.ZodType | undefined, params: URLSearchParams): Record<string, unknown> {
  const shape = objectShape(schema) ?? {};
  // No prototype: `?__proto__=x` must be a field like any other, not a prototype to set.
  const out: Record<string, unknown> = Object.create(null);
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    const last = values[values.length - 1] ?? '';
    // Own fields only: `constructor` or `__proto__` in a query string must not find Object's members.
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    const type = field ? baseType(field) : 'unknown';
    const convert = (v: string) => {
      if (type === 'number' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
      if (type === 'boolean' && v in BOOLEANS) return BOOLEANS[v];
      return v;
    };
    out[key] = type === 'array' ? values.map(convert) : convert(last);
  }
  return out;
}
