import { fieldMessage, type Problem } from '../../../problem.ts';
import type { Action, BotSettings, Category, Kind, Mode, Rule, RuleMatch } from './types.ts';

/** The match fields of a rule, in the order the editor shows them. */
export const MATCH_FIELDS = ['category', 'bot', 'ai', 'kind', 'verified', 'asn', 'country', 'path'] as const;
export type MatchField = (typeof MATCH_FIELDS)[number];
/** Where a rule's error can show: one of its inputs, or its match as a whole (an empty match). */
export type RuleField = 'action' | 'label' | 'match' | MatchField;

/** One rule as edited: every list as the text typed (comma-separated), yes/no/any as ''. */
export interface RuleDraft {
  /** Stable identity while rules move (React keys, input ids, errors). */
  key: number;
  action: Action;
  label: string;
  bot: string;
  category: Category[];
  ai: '' | 'true' | 'false';
  kind: '' | Kind;
  verified: '' | 'true' | 'false';
  asn: string;
  country: string;
  path: string;
}

export interface Draft {
  mode: Mode;
  bots: Action;
  rules: RuleDraft[];
}

let nextKey = 1;
export const newKey = () => nextKey++;

const asList = <T>(v: T | readonly T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? [...v] : [v as T]);
const yesNo = (v: boolean | undefined): '' | 'true' | 'false' => (v === undefined ? '' : v ? 'true' : 'false');

export function ruleDraftOf(rule: Rule): RuleDraft {
  const m = rule.match;
  return {
    key: newKey(),
    action: rule.action,
    label: rule.label ?? '',
    bot: asList(m.bot).join(', '),
    category: asList(m.category),
    ai: yesNo(m.ai),
    kind: m.kind ?? '',
    verified: yesNo(m.verified),
    asn: asList(m.asn).join(', '),
    country: asList(m.country).join(', '),
    path: asList(m.path).join(', '),
  };
}

export const draftOf = (s: BotSettings): Draft => ({ mode: s.mode, bots: s.bots, rules: s.rules.map(ruleDraftOf) });

export const emptyRule = (): RuleDraft => ({
  key: newKey(),
  action: 'deny',
  label: '',
  bot: '',
  category: [],
  ai: '',
  kind: '',
  verified: '',
  asn: '',
  country: '',
  path: '',
});

/** Comma-separated text as its items, trimmed, empty ones left out. */
export const items = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** One item as itself, several as a list, none as absent (the API takes a value or a list of 1-50). */
function oneOrMany<T>(list: T[]): T | T[] | undefined {
  if (list.length === 0) return undefined;
  return list.length === 1 ? list[0] : list;
}

/** "AS16509" or "16509" as the number; anything else is sent as typed, for the server to name. */
const asnOf = (s: string): number | string => {
  const digits = /^(?:AS)?\s*(\d+)$/i.exec(s)?.[1];
  return digits === undefined ? s : Number(digits);
};

/**
 * The settings the draft stands for, as the API takes them. Values are sent as typed (a country
 * "Germany" too): the server judges them and names the field, shown under its input.
 */
export function settingsOf(d: Draft): BotSettings {
  return {
    mode: d.mode,
    bots: d.bots,
    rules: d.rules.map((r) => {
      const match: Record<string, unknown> = {
        bot: oneOrMany(items(r.bot)),
        category: oneOrMany(r.category),
        ai: r.ai === '' ? undefined : r.ai === 'true',
        kind: r.kind || undefined,
        verified: r.verified === '' ? undefined : r.verified === 'true',
        asn: oneOrMany(items(r.asn).map(asnOf)),
        country: oneOrMany(items(r.country)),
        path: oneOrMany(items(r.path)),
      };
      for (const k of Object.keys(match)) if (match[k] === undefined) delete match[k];
      const label = r.label.trim();
      return { action: r.action, ...(label ? { label } : {}), match: match as RuleMatch };
    }),
  };
}

/** Where a refusal of the settings shows: under a rule's input, under mode/bots/the rule list, or on top. */
export type SettingsError =
  | { at: 'rule'; key: number; field: RuleField; message: string }
  | { at: 'mode' | 'bots' | 'rules'; message: string }
  | { at: 'form'; message: string };

const RULE_PATH = /^rules\[(\d+)\](?:\.(action|label|match)(?:\.([a-z]+))?(?:\[(\d+)\])?)?$/;

/**
 * The problem's field (`rules[2].match.country`, `rules[0].match.path[1]`, `mode`) as the place to show
 * it, with `prefix` stripped (`settings.` when the settings travel inside another input). An item of a
 * list is named in the message, since one input holds the whole list.
 */
export function settingsErrorOf(p: Problem, draft: Draft, prefix = ''): SettingsError {
  const field = p.field?.startsWith(prefix) ? p.field.slice(prefix.length) : undefined;
  const message = fieldMessage(p);
  if (field === 'mode' || field === 'bots' || field === 'rules') return { at: field, message };
  const m = field ? RULE_PATH.exec(field) : null;
  const rule = m ? draft.rules[Number(m[1])] : undefined;
  if (!m || !rule) return { at: 'form', message: p.title };
  const [, , part, sub, item] = m;
  const target: RuleField =
    part === 'match' && sub && (MATCH_FIELDS as readonly string[]).includes(sub)
      ? (sub as MatchField)
      : ((part ?? 'match') as RuleField);
  let text = message;
  if (item !== undefined && target !== 'match') {
    const typed = target === 'category' ? rule.category : items(String(rule[target as keyof RuleDraft] ?? ''));
    const value = typed[Number(item)];
    if (value !== undefined) text = `“${value}”: ${message}`;
  }
  return { at: 'rule', key: rule.key, field: target, message: text };
}

/** Input id of a rule's field (errors are tied to it and focus goes to it). */
export const ruleInputId = (key: number, field: RuleField) => `rule-${key}-${field}`;

/** The same settings, compared as the API would see them. */
export const sameSettings = (a: BotSettings, b: BotSettings) => JSON.stringify(a) === JSON.stringify(b);
