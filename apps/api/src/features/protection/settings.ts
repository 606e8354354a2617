import type { EntityManager } from '@mikro-orm/postgresql';
import type { BotRule, BotRuleMatch, BotSettings, UpdateSiteBotInput } from '@us/shared';
import { loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { readSettings, withLockedSite } from '../sites/index.ts';

/** The site's bot-protection settings (spec §2): mode, the default for declared bots, the ordered rules. */
export async function getBotSettings(em: EntityManager, actor: Actor, siteId: string): Promise<BotSettings> {
  const site = await loadSite(em, actor, siteId);
  return readSettings(site.settings).bot;
}

const upper = (c: string | string[]) => (Array.isArray(c) ? c.map((x) => x.toUpperCase()) : c.toUpperCase());

/** A match in stored form: country codes upper-case, fields not given left out (so `{}`-like keys never linger). */
function matchOf(m: BotRuleMatch): BotRuleMatch {
  const out: BotRuleMatch = {};
  for (const [k, v] of Object.entries(m)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  if (out.country !== undefined) out.country = upper(out.country);
  return out;
}

function ruleOf(r: BotRule): BotRule {
  return { action: r.action, ...(r.label ? { label: r.label } : {}), match: matchOf(r.match) };
}

/**
 * Replaces mode, bots and rules together (PUT: the same body twice leaves the same settings). The body was
 * checked by the schema, every refusal a 400 naming its field (`rules[0].match`, `rules[2].match.asn[1]`).
 * Collectors and edges see the change within a minute: the procedure bumps the sites generation, and edges
 * fetch the protection config again at most 60 s later.
 */
export async function updateBotSettings(em: EntityManager, actor: Actor, input: UpdateSiteBotInput): Promise<BotSettings> {
  const bot: BotSettings = { mode: input.mode, bots: input.bots, rules: input.rules.map(ruleOf) };
  return withLockedSite(em, actor, input.id, async (tx, site) => {
    site.settings = { ...(site.settings ?? {}), bot };
    await tx.flush();
    return bot;
  });
}
