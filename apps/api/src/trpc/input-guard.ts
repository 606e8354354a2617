import { hasControlCharacters } from '@us/shared';
import { AppError } from '../errors.ts';
import { fieldPath } from '../error-map.ts';

/** The path of the first string (value or object key) holding a control character, or undefined. */
function controlPath(value: unknown, path: (string | number)[], depth = 0): (string | number)[] | undefined {
  if (depth > 32) return undefined;
  if (typeof value === 'string') return hasControlCharacters(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = controlPath(value[i], [...path, i], depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (hasControlCharacters(k)) return [...path, k];
      const found = controlPath(v, [...path, k], depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Refuses input carrying control characters with 400 naming the field, on every face, before any
 * procedure sees it: PostgreSQL cannot store NUL in text, and no field of this API needs them.
 */
export function refuseControlCharacters(input: unknown): void {
  const path = controlPath(input, []);
  if (!path) return;
  const field = fieldPath(path) || '(body)';
  throw new AppError(400, `Remove the control characters (such as NUL or line breaks) from ${field}`, { field });
}
