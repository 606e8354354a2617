import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import type { Messages } from './types.ts';

export type { Messages, RefusalKind } from './types.ts';

/**
 * The check page's texts by language, English first (the fallback). These keys are the languages the page
 * speaks (`../language.ts`): a new language is its file beside this one and its line here.
 */
export const MESSAGES = { en, de, fr, es } satisfies Record<string, Messages>;
