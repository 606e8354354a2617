import { z } from 'zod';
import { AppError } from '../../core/errors.ts';

type JsonType = 'number' | 'integer' | 'boolean' | 'array' | 'string' | 'object' | 'null' | 'unknown';
type PropertySchema = { type?: JsonType | JsonType[]; anyOf?: PropertySchema[] };

/** The JSON type a property takes (nullable and union wrappers looked through), from its JSON Schema. */
function typeOf(schema: PropertySchema | undefined): JsonType {
  if (!schema) return 'unknown';
  const types = [schema.type ?? [], ...(schema.anyOf ?? []).map(typeOf)].flat().filter((t) => t !== 'null');
  return (types[0] as JsonType | undefined) ?? 'unknown';
}

const propertyTypes = new WeakMap<z.ZodType, Record<string, JsonType>>();

/**
 * The JSON type of each top-level field of an input schema, read from zod's own JSON-Schema export (a
 * public API) and kept per schema.
 */
export function fieldTypes(schema: z.ZodType | undefined): Record<string, JsonType> {
  if (!schema) return {};
  let types = propertyTypes.get(schema);
  if (!types) {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
      properties?: Record<string, PropertySchema>;
    };
    types = Object.fromEntries(Object.entries(json.properties ?? {}).map(([key, prop]) => [key, typeOf(prop)]));
    propertyTypes.set(schema, types);
  }
  return types;
}

const BOOLEANS: Record<string, boolean> = { true: true, false: false, '1': true, '0': false };

/** The most parameters a query string may carry (a question of every filter takes a few dozen). */
export const MAX_QUERY_PARAMETERS = 200;

/**
 * Query-string values are text: numbers are turned into numbers and `true`/`false`/`1`/`0` into
 * booleans where the input schema wants one, and repeated keys into arrays where it wants an array.
 * Everything else stays text for zod to judge. Read in one pass (a lookup per key over the whole string
 * made thousands of keys cost millions of comparisons), and refused past MAX_QUERY_PARAMETERS.
 */
export function coerceQuery(schema: z.ZodType | undefined, params: URLSearchParams): Record<string, unknown> {
  const types = fieldTypes(schema);
  const grouped = new Map<string, string[]>();
  let n = 0;
  for (const [key, value] of params) {
    if (++n > MAX_QUERY_PARAMETERS) {
      throw new AppError(400, `Send at most ${MAX_QUERY_PARAMETERS} query parameters`, { field: '(query)' });
    }
    const values = grouped.get(key);
    if (values) values.push(value);
    else grouped.set(key, [value]);
  }
  // No prototype: `?__proto__=x` must be a field like any other, not a prototype to set.
  const out: Record<string, unknown> = Object.create(null);
  for (const [key, values] of grouped) {
    const last = values[values.length - 1] ?? '';
    // Own fields only: `constructor` or `__proto__` in a query string must not find Object's members.
    const type = Object.hasOwn(types, key) ? types[key] : 'unknown';
    const convert = (v: string) => {
      if ((type === 'number' || type === 'integer') && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
      if (type === 'boolean' && v in BOOLEANS) return BOOLEANS[v];
      return v;
    };
    out[key] = type === 'array' ? values.map(convert) : convert(last);
  }
  return out;
}
