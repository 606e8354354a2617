import {
  BotDecisionsQuery,
  BotDecisionsReport,
  RotatePassKeyInput,
  RotatePassKeyOutput,
  SiteBotInput,
  SiteBotOutput,
  UpdateSiteBotInput,
} from '@us/shared';
import { router } from '../../procedures/init.ts';
import { actorProcedure } from '../../procedures/procedures.ts';
import { decisionsReport } from './decisions.ts';
import { rotatePassKey } from './pass-key.ts';
import { getBotSettings, updateBotSettings } from './settings.ts';

const tags = ['Bot protection'];

const MODES =
  "mode: off (nothing decided), log (everything served, records say what would have happened), challenge (act: challenge or refuse as decided), block (like challenge, but a browser flagged on signs of its own, its user agent's or its request's, is refused; signs remembered for its address, which others may share, only challenge; a hosting network alone never refuses anyone)";
const RULES =
  'rules: ordered, first match decides; each {action: allow|challenge|deny, label?, match} where match names at least one of bot (name or list), category, ai, kind (browser|bot|verified-bot), verified, asn (number or list), country (two-letter code or list), path (prefix or list), and every named field must hold';

export const botRouter = router({
  get: actorProcedure
    .meta({
      auth: 'any',
      scope: 'bot:read',
      mcp: {
        tool: 'get_site_bot',
        description:
          "The site's bot-protection settings: `mode` (off, log, challenge, block), `bots` (what a declared bot no rule names gets when it cannot be verified: allow, challenge or deny) and the ordered `rules`. Read it before update_site_bot, which replaces all three.",
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/bot',
        summary: 'The site’s bot-protection settings: mode, bots, rules',
        tags,
      },
    })
    .input(SiteBotInput)
    .output(SiteBotOutput)
    .query(({ ctx, input }) => getBotSettings(ctx.em, ctx.actor, input.id)),

  update: actorProcedure
    .meta({
      auth: 'any',
      scope: 'bot:write',
      idempotent: true,
      mcp: {
        tool: 'update_site_bot',
        description: `Replace the site's bot-protection settings: give all three of \`mode\`, \`bots\` and \`rules\` (read get_site_bot first and send the whole set back with your change). ${MODES}. bots: allow, challenge or deny for a declared bot that no rule names and that cannot be verified. ${RULES}. Verified search engines are immune to rules matching only asn, country or path; a passed check satisfies challenge rules, never deny rules. Try mode log first to see what a change would do in get_site_bot_decisions. Edges pick the change up within a minute.`,
      },
      openapi: {
        method: 'PUT',
        path: '/v1/sites/{id}/bot',
        summary: 'Replace mode, bots and rules together',
        description: `Answers the settings as stored (country codes upper-case). ${MODES}. ${RULES}. A refused value is 400 with its field, such as rules[0].match (an empty match) or rules[2].match.asn[1].`,
        tags,
      },
    })
    .input(UpdateSiteBotInput)
    .output(SiteBotOutput)
    .mutation(({ ctx, input }) => updateBotSettings(ctx.em, ctx.actor, input)),

  decisions: actorProcedure
    .meta({
      auth: 'any',
      scope: 'bot:read',
      mcp: {
        tool: 'get_site_bot_decisions',
        description:
          "What the bot-protection gate did with the site's requests over the last `days` (1 = today so far, default 7, at most 90; site time zone), every request except the team's own: totals per action (allow, challenge, deny), a series per day, counts per crawler category (null: browsers), and the 100 largest groups by action, reason, client kind, category and bot name. In log mode the reasons read `log: would challenge: …`. Also setupProblems: the site's hostnames a check cannot return to (unverified, or proxy hostnames not live), where a challenged visitor gets a page saying the check cannot bring them back; verify them to challenge visitors there. otherHostnames counts hostnames not on the site that met such challenges in the last 7 days. Needs analytics:read besides bot:read.",
      },
      openapi: {
        method: 'GET',
        path: '/v1/sites/{id}/bot/decisions',
        summary: 'What the gate did over the last days: totals, per day, per category, by reason',
        description:
          'Every request except the internal lane. Needs bot:read and analytics:read (403 naming analytics:read otherwise). Records that carried no decision count as allow with the reason `not decided: the sender sent no decision`. `setupProblems` names the site’s hostnames a check cannot return to (a challenge there answers a 403 page instead of the check); `otherHostnames` counts hostnames not on the site that met such challenges in the last 7 days.',
        tags,
      },
    })
    .input(BotDecisionsQuery)
    .output(BotDecisionsReport)
    .query(({ ctx, input }) => decisionsReport(ctx.deps, ctx.em, ctx.actor, input)),

  rotatePassKey: actorProcedure
    .meta({
      auth: 'any',
      scope: 'bot:write',
      idempotent: true,
      destructive: true,
      mcp: {
        tool: 'rotate_site_pass_key',
        description:
          "Replace the site's pass key, which signs the us_pass cookies of visitors who passed the bot check and the check's return tickets. Cookies signed with the old key stop working at once where the service decides (decide endpoint, check page, proxy mode) and within a minute at edges with the SDK (their next config fetch): those visitors take the check again. Use it when the key may have leaked (whoever holds it can mint passes). Takes only the site id.",
      },
      openapi: {
        method: 'POST',
        path: '/v1/sites/{id}/bot/pass-key',
        summary: 'Replace the pass key: every us_pass signed with the old one stops working',
        description:
          'Answers when the new key took over (`rotatedAt`). The service refuses old cookies and tickets from its next request on; edges with the SDK pick up the new key with their next config fetch (at most 60 s). Visitors who had passed take the check again.',
        tags,
      },
    })
    .input(RotatePassKeyInput)
    .output(RotatePassKeyOutput)
    .mutation(({ ctx, input }) => rotatePassKey(ctx.deps, ctx.em, ctx.actor, input)),
});
