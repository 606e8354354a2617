/**
 * Control characters: C0 (NUL included), DEL and C1. PostgreSQL cannot store NUL in text, and no field
 * of this service means anything by the others, so text from outside is refused or cleaned of them.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL_CHARACTERS_ALL = /[\u0000-\u001f\u007f-\u009f]/g;
/** A UTF-16 surrogate without its pair (JSON can carry one; it is not a character). */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');
/** Anything `cleanText` might remove: one test clears the usual text, which has none of it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const MAYBE_UNCLEAN = /[\u0000-\u001f\u007f-\u009f\ud800-\udfff]/;

/** True when the text holds a control character. */
export function hasControlCharacters(text: string): boolean {
  return CONTROL_CHARACTERS.test(text);
}

/**
 * True when the text holds a UTF-16 surrogate without its pair: JSON can carry one (`"\ud800"`), but it
 * is no character, and PostgreSQL refuses it in jsonb.
 */
export function hasLoneSurrogates(text: string): boolean {
  return /[\ud800-\udfff]/.test(text) && LONE_SURROGATE.test(text);
}

/**
 * Text as it may be stored: control characters and lone surrogates removed, cut to `max` characters
 * (code points, so a pair is never split). Cheap when nothing needs removing.
 */
export function cleanText(text: string, max: number): string {
  if (text.length <= max && !MAYBE_UNCLEAN.test(text)) return text;
  let s = text;
  if (CONTROL_CHARACTERS.test(s)) s = s.replace(CONTROL_CHARACTERS_ALL, '');
  if (/[\ud800-\udfff]/.test(s)) s = s.replace(LONE_SURROGATES, '');
  if (s.length > max) s = Array.from(s).slice(0, max).join('');
  return s;
}
