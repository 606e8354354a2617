import { badRequest } from './errors.ts';
import { isUuid } from './ids.ts';

/**
 * A list's cursor `<instant>_<id>` (the instant as `toISOString` writes it) read back, or 400 naming `cursor`. Only
 * the text a page wrote passes: `Date.parse` takes "1" or 2024-02-30 (rolled over to March) and a year 0, which
 * PostgreSQL refuses, and the list answered 500.
 */
export function readInstantCursor(cursor: string, nextField: string): { at: string; id: string } {
  const [at = '', id = ''] = cursor.split('_');
  const date = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(at) ? new Date(at) : null;
  const written = date && !Number.isNaN(date.getTime()) && date.toISOString() === at && date.getUTCFullYear() >= 1970;
  if (!written || !isUuid(id)) throw badRequest('cursor', `Pass the \`${nextField}\` of the previous page as cursor, unchanged`);
  return { at, id };
}
