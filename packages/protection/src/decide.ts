import { automationSigns, isNoScriptClient, ownSignsChallenge, type RequestFacts, riskOf, signalsOf } from './facts.ts';
import { firstMatch, ruleName } from './rules.ts';
import type { BotAction, ProtectionSettings } from './settings.ts';

/** The gate's answer for one request (spec §2 "Decision"). */
export interface Decision {
  action: BotAction;
  reason: string;
  /** 0-100 for a browser, -1 for a declared bot. */
  risk: number;
  /** Behaviour signs seen (the user agent's, the request's, the last day's). */
  signals: string[];
}

/** Paths every client may always fetch (decision order, step 1). */
export const ALWAYS_SERVED = new Set(['/robots.txt', '/.well-known/security.txt']);

/** What the gate would do in `challenge` mode, and which step said so. */
interface Verdict {
  action: BotAction;
  reason: string;
  /** Step 6's own challenge (browser heuristics), which `block` mode may turn into a refusal or a pass. */
  heuristic?: { hostingOnly: boolean; ownSigns: boolean };
}

const PASSED = 'check passed within the last day';
/** Why `block` mode challenges rather than refuses a browser flagged with the help of behaviour memory. */
const SHARED_SIGNS = "block refuses only on a browser's own signs: remembered ones may be another's on the same address";

/** Decision order steps 2-6 (spec §2), for a request not on an always-served path. */
function verdict(settings: ProtectionSettings, facts: RequestFacts, signals: readonly string[]): Verdict {
  // 2. Rules, top to bottom; the first match decides. A passed check satisfies a challenge, never a deny.
  const hit = firstMatch(settings.rules, facts);
  if (hit) {
    const name = ruleName(hit.rule, hit.index);
    if (hit.rule.action === 'challenge' && facts.pass) return { action: 'allow', reason: `${PASSED} (rule: ${name})` };
    return { action: hit.rule.action, reason: `rule: ${name}` };
  }
  const bot = facts.ua.kind === 'bot' ? facts.ua.bot : undefined;
  if (bot) {
    // 3. Verified search engines are served unless a rule named them.
    if (facts.verification === 'verified' && bot.category === 'search-engine') {
      return { action: 'allow', reason: `verified search engine: ${bot.name}` };
    }
    // 4. A claim to be a crawler its operator lets us verify, that did not verify, is refused.
    if (bot.verifiable && facts.verification === 'failed') {
      return { action: 'deny', reason: `unverified claim to be ${bot.name}` };
    }
    // 5. Other verified bots are served; the rest follow `bots`.
    if (facts.verification === 'verified') return { action: 'allow', reason: `verified bot: ${bot.name}` };
    if (settings.bots === 'challenge' && facts.pass) return { action: 'allow', reason: `${PASSED} (declared bot: ${bot.name})` };
    return { action: settings.bots, reason: `declared bot: ${bot.name} (bots: ${settings.bots})` };
  }
  // 6. Browsers.
  if (facts.pass) return { action: 'allow', reason: PASSED };
  const why: string[] = [];
  if (isNoScriptClient(facts)) why.push(`client software never runs page scripts: ${facts.ua.bot?.name ?? 'unknown'}`);
  const signs = automationSigns(signals);
  if (signs.length >= 2) why.push(`automation signs: ${signs.join(', ')}`);
  if (facts.hosting) why.push(`hosting network: AS${facts.asn ?? '?'}`);
  if (!why.length) return { action: 'allow', reason: 'browser: no sign of automation' };
  return {
    action: 'challenge',
    reason: why.join('; '),
    heuristic: { hostingOnly: why.length === 1 && facts.hosting, ownSigns: ownSignsChallenge(facts) },
  };
}

/**
 * The one decision function (spec §2 "Bot-protection decision order"): pure, synchronous, shared by the
 * edge worker SDK, the service's decide endpoint, the dry run and "try a request".
 *
 * Modes: `off` serves everything and says so; `log` serves everything with the reason it would have
 * acted on (`log: would challenge: …`); `challenge` acts; `block` acts like `challenge` except for step
 * 6's own challenges: a browser flagged on signs of its own (its user agent's, this request's) is refused
 * instead; one flagged only with the help of behaviour memory, which everyone on its address with the same
 * browser shares, is still only challenged (a check it can pass; the pass is bound to its browser); one
 * whose network is the only reason is served (the network alone never refuses anyone).
 */
export function decide(settings: ProtectionSettings, facts: RequestFacts): Decision {
  const signals = signalsOf(facts);
  const risk = riskOf(facts, signals);
  if (ALWAYS_SERVED.has(facts.path)) return { action: 'allow', reason: `always served: ${facts.path}`, risk, signals };
  if (settings.mode === 'off') return { action: 'allow', reason: 'off: protection is off', risk, signals };
  const v = verdict(settings, facts, signals);
  if (settings.mode === 'log') return { action: 'allow', reason: `log: would ${v.action}: ${v.reason}`, risk, signals };
  if (settings.mode === 'block' && v.heuristic) {
    if (v.heuristic.hostingOnly) {
      return { action: 'allow', reason: `${v.reason} (the network alone never refuses anyone)`, risk, signals };
    }
    if (v.heuristic.ownSigns) return { action: 'deny', reason: v.reason, risk, signals };
    return { action: 'challenge', reason: `${v.reason} (${SHARED_SIGNS})`, risk, signals };
  }
  return { action: v.action, reason: v.reason, risk, signals };
}
