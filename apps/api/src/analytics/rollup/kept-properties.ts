// The custom property keys a site keeps past the raw window (settings `keptProperties`, issue 40 item 2):
// the daily rollups hold a `prop:<key>` dimension for each, and `rollup_days.properties` records which
// keys a site-day's rollup holds. Only these keys: the rollups never grow with the keys strangers send.
import { PROPERTY_PREFIX } from '@us/shared/properties';
import { propertyDimension } from '../catalogue.ts';

/**
 * The kept keys of the `sites` row aliased `alias`, as stored (a text[], `{}` when none or not a list).
 * The rollup records this list as it is; `keptDimensions` skips a stored key that cannot be one, so a day
 * is never rolled up again and again for it.
 */
export const keptPropertiesSql = (alias: string) =>
  `array(select jsonb_array_elements_text(case when jsonb_typeof(${alias}.settings -> 'keptProperties') = 'array'
     then ${alias}.settings -> 'keptProperties' else '[]'::jsonb end))`;

/** Two key lists (text[] expressions) holding the same keys, in any order. */
export const sameKeysSql = (a: string, b: string) => `(${a} @> ${b} and ${a} <@ ${b})`;

/** Whether two key lists hold the same keys. */
export function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  const x = new Set(a);
  const y = new Set(b);
  return x.size === y.size && [...x].every((k) => y.has(k));
}

/** The rollup dimensions of the kept keys (`prop:<key>`) with the SQL of their values, each key once. */
export function keptDimensions(keys: readonly string[] | undefined): { dimension: string; sql: string }[] {
  const out: { dimension: string; sql: string }[] = [];
  for (const key of new Set(keys ?? [])) {
    const dimension = `${PROPERTY_PREFIX}${key}`;
    const def = propertyDimension(dimension);
    if (def?.sql) out.push({ dimension, sql: def.sql });
  }
  return out;
}
