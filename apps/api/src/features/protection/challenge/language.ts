import { MESSAGES } from './messages/index.ts';

/**
 * The languages the check page and `/_us/pass` speak (those with texts in `messages/`), and which one a
 * browser gets: the best-weighted entry of Accept-Language we have (by its primary subtag: `de-AT` gets
 * German), English otherwise. Only the first 20 entries of the first 512 characters are read: a
 * stranger's header costs nothing.
 */
export type Language = keyof typeof MESSAGES;
export const LANGUAGES = Object.keys(MESSAGES) as readonly Language[];

export function languageOf(acceptLanguage: string | undefined): Language {
  let best: Language = 'en';
  let bestQ = 0;
  for (const entry of (acceptLanguage ?? '').slice(0, 512).split(',').slice(0, 20)) {
    const [tag = '', ...params] = entry.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0] ?? '';
    if (!(LANGUAGES as readonly string[]).includes(primary)) continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p);
      if (m) q = Number(m[1]);
    }
    // The first entry wins a tie, as the header lists the browser's order of preference.
    if (q > bestQ) {
      best = primary as Language;
      bestQ = q;
    }
  }
  return best;
}
