import { clientKind, type RequestFacts } from './facts.ts';
import { canonicalPath } from './paths.ts';
import type { Rule, RuleMatch } from './settings.ts';

export { canonicalPath, originForm, pathToDecide } from './paths.ts';

const list = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

/** Fields a rule may match that say nothing about who the client is. */
const PLACE_FIELDS = new Set(['asn', 'country', 'path']);

/** The fields a match names (a field left undefined is not named). */
export function namedFields(match: RuleMatch): string[] {
  return Object.keys(match).filter((k) => match[k as keyof RuleMatch] !== undefined);
}

/**
 * The path rules match: canonical, and without regard to case (Express, IIS and ASP.NET serve `/ADMIN` as `/admin`).
 * Every rule of a decision asks for the same path: the last one is kept, so a stranger's 2 KB of escapes is decoded
 * once per decision, not once per rule.
 */
let lastPath = { raw: '/', matched: '/' };
function matchedPath(raw: string): string {
  if (raw !== lastPath.raw) lastPath = { raw, matched: canonicalPath(raw).toLowerCase() };
  return lastPath.matched;
}

/** A rule's path prefixes in lower case, made once per saved rule (settings are kept while they do not change). */
const prefixesOf = new WeakMap<object, string[]>();
function lowerPrefixes(path: string | string[]): string[] {
  if (typeof path === 'string') return [path.toLowerCase()];
  const kept = prefixesOf.get(path);
  if (kept) return kept;
  const lower = path.map((p) => p.toLowerCase());
  prefixesOf.set(path, lower);
  return lower;
}

/** True when every field the match names holds for the request. */
export function matches(match: RuleMatch, facts: RequestFacts): boolean {
  const bot = facts.ua.bot;
  if (match.bot !== undefined) {
    const name = bot?.name.toLowerCase();
    if (!name || !list(match.bot).some((b) => b.toLowerCase() === name)) return false;
  }
  if (match.category !== undefined && !(bot && list(match.category).includes(bot.category))) return false;
  if (match.ai !== undefined && (bot?.ai ?? false) !== match.ai) return false;
  if (match.kind !== undefined && clientKind(facts) !== match.kind) return false;
  if (match.verified !== undefined && (facts.verification === 'verified') !== match.verified) return false;
  if (match.asn !== undefined && (facts.asn === null || !list(match.asn).includes(facts.asn))) return false;
  if (match.country !== undefined) {
    const country = facts.country?.toUpperCase();
    if (!country || !list(match.country).some((c) => c.toUpperCase() === country)) return false;
  }
  if (match.path !== undefined) {
    const path = matchedPath(facts.path);
    if (!lowerPrefixes(match.path).some((p) => path.startsWith(p))) return false;
  }
  return namedFields(match).length > 0;
}

/** A verified search engine is out of reach of rules that match only by network, country and path. */
function immune(rule: Rule, facts: RequestFacts): boolean {
  if (clientKind(facts) !== 'verified-bot' || facts.ua.bot?.category !== 'search-engine') return false;
  return namedFields(rule.match).every((f) => PLACE_FIELDS.has(f));
}

/** The first rule that decides this request, with its position, or undefined. */
export function firstMatch(rules: readonly Rule[], facts: RequestFacts): { rule: Rule; index: number } | undefined {
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index] as Rule;
    if (matches(rule.match, facts) && !immune(rule, facts)) return { rule, index };
  }
  return undefined;
}

/** How a rule is named in reasons: its label, else its position (`#1` is the first). */
export const ruleName = (rule: Rule, index: number) => rule.label?.trim() || `#${index + 1}`;
