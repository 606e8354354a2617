import { isIP } from 'node:net';
import {
  type BotSettings,
  type BotWindow,
  type BotWindowInput,
  DEFAULT_BOT_SETTINGS,
  type Experiment,
  type ExperimentInput,
  type Goal,
  type GoalInput,
  goalIdOf,
  type SiteSettings,
} from '@us/shared';
import { badRequest } from '../../core/errors.ts';
import { scriptFeaturesOf } from '../../core/script-builds.ts';

const list = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);

/**
 * The settings object of a site as stored, completed with the defaults of a new site (every list
 * empty; bot protection off, declared bots allowed, no rules), so rows written with `{}` read whole.
 */
export function readSettings(stored: Record<string, unknown> | null | undefined): SiteSettings {
  const s = stored ?? {};
  const bot = (s.bot && typeof s.bot === 'object' ? s.bot : {}) as Partial<BotSettings>;
  return {
    internalNetworks: list<string>(s.internalNetworks),
    botWindows: list<BotWindow>(s.botWindows),
    goals: list<Goal>(s.goals),
    experiments: list<Experiment>(s.experiments),
    keptProperties: list<unknown>(s.keptProperties).filter((k): k is string => typeof k === 'string'),
    scriptFeatures: scriptFeaturesOf(s),
    bot: {
      mode: bot.mode ?? DEFAULT_BOT_SETTINGS.mode,
      bots: bot.bots ?? DEFAULT_BOT_SETTINGS.bots,
      rules: Array.isArray(bot.rules) ? bot.rules : [],
    },
  };
}

/**
 * The settings of a new site. Its page script starts as the core (pageviews and leave reports); the parts
 * beside it are turned on in its settings. A site from before the choice reads as having every part.
 */
export function newSiteSettings(): SiteSettings {
  return { ...readSettings({}), scriptFeatures: [] };
}

const CIDR_EXAMPLE = 'such as 203.0.113.0/24 or 2001:db8::/48';

/** A CIDR network in stored form (address lower-cased, prefix without leading zeros), or what is wrong with it. */
export function checkCidr(text: string): { ok: true; cidr: string } | { ok: false; problem: string } {
  const value = text.trim();
  const m = /^([^/\s]+)\/(\d{1,3})$/.exec(value);
  if (!m) {
    if (isIP(value)) {
      const one = isIP(value) === 4 ? '/32' : '/128';
      return { ok: false, problem: `Add the prefix length: write ${value}${one} for this one address` };
    }
    return { ok: false, problem: `Give a network in CIDR form (address/prefix length), ${CIDR_EXAMPLE}` };
  }
  const written = m[1] as string;
  const version = written.includes('%') ? 0 : isIP(written);
  if (version === 0) return { ok: false, problem: `${written} is not an IPv4 or IPv6 address: give a network ${CIDR_EXAMPLE}` };
  const max = version === 4 ? 32 : 128;
  const prefix = Number(m[2]);
  if (prefix > max) return { ok: false, problem: `Use a prefix length of 0 to ${max} for an IPv${version} network` };
  // IPv4 written inside IPv6 (as dual-stack logs show it): addresses are matched as IPv4, so it is stored so.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(written);
  if (mapped && prefix >= 96) return checkCidr(`${mapped[1]}/${prefix - 96}`);
  const shortest = version === 4 ? 8 : 32;
  if (prefix < shortest) {
    return {
      ok: false,
      problem: `Use a prefix of /${shortest} or longer for an IPv${version} network: a wider one would file a large part of the internet's visitors as your team's`,
    };
  }
  return { ok: true, cidr: `${written.toLowerCase()}/${prefix}` };
}

/** `internalNetworks` in stored form; a bad entry is 400 `internalNetworks[i]`. Repeats collapse. */
export function normaliseNetworks(given: readonly string[]): string[] {
  const out: string[] = [];
  given.forEach((text, i) => {
    const check = checkCidr(text);
    if (!check.ok) throw badRequest(`internalNetworks[${i}]`, `Fix internalNetworks[${i}]: ${check.problem}`);
    if (!out.includes(check.cidr)) out.push(check.cidr);
  });
  return out;
}

/** A bot window in stored form: timestamps as UTC ISO strings, country upper-case, empty texts left out. */
export function normaliseWindow(w: BotWindowInput): BotWindow {
  const out: BotWindow = { from: new Date(w.from).toISOString(), to: new Date(w.to).toISOString() };
  if (w.country) out.country = w.country.toUpperCase();
  if (w.network) out.network = w.network;
  if (w.note) out.note = w.note;
  return out;
}

/** A goal in stored form, with its id derived from its name. */
export function goalOf(g: GoalInput): Goal {
  return { id: goalIdOf(g.name), name: g.name, type: g.type, match: g.match };
}

/** An experiment in stored form: status draft unless given, no name unless given. */
export function experimentOf(e: ExperimentInput): Experiment {
  const out: Experiment = { key: e.key, variants: [...e.variants], status: e.status ?? 'draft' };
  if (e.name) out.name = e.name;
  return out;
}
