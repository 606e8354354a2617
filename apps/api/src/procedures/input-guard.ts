import { hasControlCharacters, hasLoneSurrogates } from '@us/shared';
import { fieldPath } from '../core/error-map.ts';
import { AppError } from '../core/errors.ts';

type Check = (text: string, path: readonly (string | number)[]) => boolean;

/** Nesting no input of this API needs (the deepest, a stats batch with filters, is four levels). */
export const MAX_INPUT_DEPTH = 32;

/**
 * The path of the first array or object nested deeper than `max`, or undefined. Iterative, so input
 * nested a hundred thousand levels deep is measured without exhausting the stack.
 */
function tooDeepPath(value: unknown, max: number): (string | number)[] | undefined {
  const stack: { v: unknown; path: (string | number)[] }[] = [{ v: value, path: [] }];
  while (stack.length) {
    const { v, path } = stack.pop() as { v: unknown; path: (string | number)[] };
    if (v === null || typeof v !== 'object') continue;
    if (path.length >= max) return path;
    const entries: [string | number, unknown][] = Array.isArray(v) ? v.map((child, i) => [i, child]) : Object.entries(v);
    for (const [k, child] of entries) stack.push({ v: child, path: [...path, k] });
  }
  return undefined;
}

/** True when an array or object in `value` is nested deeper than `max` levels. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  return tooDeepPath(value, max) !== undefined;
}

/**
 * Refuses input nested deeper than MAX_INPUT_DEPTH with 400, before anything walks it recursively
 * (the idempotency fingerprint of a request does, before the procedure runs). `whole` names the input
 * itself (`(body)`, `(arguments)`).
 */
export function refuseDeepInput(input: unknown, whole = '(body)'): void {
  const path = tooDeepPath(input, MAX_INPUT_DEPTH);
  if (!path) return;
  const field = fieldPath(path.slice(0, 1)) || whole;
  throw new AppError(400, `Send ${field} nested at most ${MAX_INPUT_DEPTH} levels deep: no field of this API needs more`, {
    field,
  });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL_BUT_LINE_BREAKS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** The path of the first string (value or object key) failing `bad`, or undefined. */
function badPath(value: unknown, bad: Check, path: (string | number)[], depth = 0): (string | number)[] | undefined {
  if (depth > 32) return undefined;
  if (typeof value === 'string') return bad(value, path) ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = badPath(value[i], bad, [...path, i], depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (bad(k, path)) return [...path, k];
      const found = badPath(v, bad, [...path, k], depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Refuses input nested too deep, or carrying control characters or lone surrogates, with 400 naming the
 * field, on every face, before any procedure sees it: PostgreSQL cannot store NUL in text nor a lone surrogate in jsonb,
 * and no field of this API needs either. Under the fields of `textBlocks` (a pasted key file) line
 * breaks and tabs are text.
 */
export function refuseUnsafeText(input: unknown, textBlocks: readonly string[] = []): void {
  refuseDeepInput(input);
  const control = badPath(
    input,
    (text, path) =>
      typeof path[0] === 'string' && textBlocks.includes(path[0])
        ? CONTROL_BUT_LINE_BREAKS.test(text)
        : hasControlCharacters(text),
    [],
  );
  if (control) {
    const field = fieldPath(control) || '(body)';
    throw new AppError(400, `Remove the control characters (such as NUL or line breaks) from ${field}`, { field });
  }
  const surrogate = badPath(input, (text) => hasLoneSurrogates(text), []);
  if (surrogate) {
    const field = fieldPath(surrogate) || '(body)';
    throw new AppError(400, `Send ${field} as valid Unicode text: it holds half of a surrogate pair (an unpaired \\u escape)`, {
      field,
    });
  }
}
