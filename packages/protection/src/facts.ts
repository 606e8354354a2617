import { NO_SCRIPT_CLIENT, type UaClass } from './catalogue.ts';
import type { ClientKind } from './settings.ts';

/**
 * Whether a declared bot is who it says: `verified` (the edge platform said so, or forward-confirmed
 * reverse DNS matched its operator's published host names), `failed` (the platform said no, or the DNS
 * did not confirm), `unknown` (no way to check it here).
 */
export type Verification = 'verified' | 'failed' | 'unknown';

/** Everything the gate knows about one request. Addresses and user-agent strings are not part of it. */
export interface RequestFacts {
  /** The request path (no query string). */
  path: string;
  /** The user agent through the bot catalogue (`classifyUserAgent`). */
  ua: UaClass;
  verification: Verification;
  asn: number | null;
  /** The network is a hosting or cloud provider's. */
  hosting: boolean;
  /** Two-letter country code, upper case. */
  country: string | null;
  /** The browser carries a valid `us_pass` for this site, browser and network. */
  pass: boolean;
  /** Automation signs the visitor showed in the last day (behaviour memory). */
  memory?: readonly string[];
  /** Signs of this request itself besides its user agent (e.g. `tls-mismatch`). */
  signs?: readonly string[];
}

/** The client kind a rule's `kind` matches. */
export function clientKind(facts: RequestFacts): ClientKind {
  if (facts.ua.kind !== 'bot') return 'browser';
  return facts.verification === 'verified' ? 'verified-bot' : 'bot';
}

/** Every distinct behaviour sign seen: the user agent's, the request's and the last day's. */
export function signalsOf(facts: RequestFacts): string[] {
  const all = new Set<string>(facts.ua.automation);
  for (const s of facts.signs ?? []) all.add(s);
  for (const s of facts.memory ?? []) all.add(s);
  return [...all];
}

/** The automation signs among the signals (client software that never runs scripts is judged apart). */
export function automationSigns(signals: readonly string[]): string[] {
  return signals.filter((s) => s !== NO_SCRIPT_CLIENT);
}

export const isNoScriptClient = (facts: RequestFacts) => facts.ua.automation.includes(NO_SCRIPT_CLIENT);

/**
 * Whether the browser's own signs alone would have it challenged: client software that never runs scripts,
 * or two automation signs among its user agent's and this request's. Behaviour memory is left out: it is
 * filed per address and user agent, so everyone behind one carrier NAT with the same browser shares it, and
 * one of them could earn it for all. `block` mode refuses only on these (spec §2, step 6).
 */
export function ownSignsChallenge(facts: RequestFacts): boolean {
  if (isNoScriptClient(facts)) return true;
  const own = new Set<string>(facts.ua.automation);
  for (const s of facts.signs ?? []) own.add(s);
  return automationSigns([...own]).length >= 2;
}

/**
 * How likely a browser is a program, 0-100, from its signs (it sizes the check page's proof of work);
 * -1 for a declared bot, which is judged by who it is, not by risk.
 */
export function riskOf(facts: RequestFacts, signals: readonly string[]): number {
  if (facts.ua.kind === 'bot') return -1;
  let risk = 0;
  if (facts.hosting) risk += 35;
  if (isNoScriptClient(facts)) risk += 50;
  risk += 25 * automationSigns(signals).length;
  return Math.min(100, risk);
}
