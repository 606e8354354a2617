// Request and answer schemas of site settings, goals and experiments (spec §2 "Site settings", "Goal",
// "Experiment", "Bot-protection settings"; §4 Sites and "Goals, experiments, behaviour").
import { z } from 'zod';
import { PROPERTY_KEY, PROPERTY_LIMITS } from '../properties.ts';
import { SCRIPT_FEATURES } from '../script-features.ts';
import { BotSettings } from './bot.ts';
import { zId, zName } from './common.ts';

/** Sizes the spec leaves open: how long each list and text may be. */
export const SETTINGS_LIMITS = {
  internalNetworks: 100,
  botWindows: 100,
  goals: 100,
  experiments: 100,
  variants: 20,
  goalMatch: 500,
  variantLength: 64,
  windowNetwork: 120,
  windowNote: 500,
} as const;

// ---------- internal networks ----------

/**
 * A CIDR as typed. The service checks the address and prefix length (IPv4 /0-32, IPv6 /0-128) and
 * stores it lower-cased; a bare address without `/prefix` is refused.
 */
export const zCidr = z
  .string()
  .trim()
  .min(1, 'Give a network in CIDR form, such as 203.0.113.0/24 or 2001:db8::/48')
  .max(64, 'Give a network in CIDR form, such as 203.0.113.0/24 or 2001:db8::/48');

// ---------- bot windows ----------

/** The years a bot window's times may lie in (the database holds no year 0, which JavaScript's dates do). */
export const BOT_WINDOW_YEARS = { from: 1970, to: 9999 } as const;
/** The largest AS number a window may name: the stored network numbers are 32-bit signed integers. */
export const BOT_WINDOW_MAX_ASN = 2_147_483_647;

const zWindowTime = z.iso.datetime({ offset: true, error: 'Give a timestamp such as 2030-01-31T12:00:00Z' }).refine(
  (v) => {
    const year = new Date(v).getUTCFullYear();
    return year >= BOT_WINDOW_YEARS.from && year <= BOT_WINDOW_YEARS.to;
  },
  { error: 'Give a time between the years 1970 and 9999' },
);

export const BotWindowInput = z
  .object({
    from: zWindowTime.describe('Start of the window (ISO 8601)'),
    to: zWindowTime.describe('End of the window (ISO 8601), after from'),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'Give a two-letter country code such as DE')
      .optional()
      .describe('Only traffic from this country (two-letter code)'),
    network: z
      .string()
      .trim()
      .min(1, 'Give the network (such as AS15169 or an operator name), or leave network out')
      .max(SETTINGS_LIMITS.windowNetwork, `Use at most ${SETTINGS_LIMITS.windowNetwork} characters`)
      .optional()
      .describe('Only traffic from this network (ASN such as AS15169, or operator name)'),
    note: z.string().trim().max(SETTINGS_LIMITS.windowNote, `Use at most ${SETTINGS_LIMITS.windowNote} characters`).optional(),
  })
  .strict()
  .superRefine((w, ctx) => {
    if (Date.parse(w.from) >= Date.parse(w.to)) {
      ctx.addIssue({ code: 'custom', path: ['from'], message: 'Choose a from earlier than to' });
    }
    const asn = w.network ? /^AS(\d+)$/i.exec(w.network) : null;
    if (asn && !(Number(asn[1]) <= BOT_WINDOW_MAX_ASN)) {
      ctx.addIssue({ code: 'custom', path: ['network'], message: `Give an AS number up to ${BOT_WINDOW_MAX_ASN}` });
    }
  });
export type BotWindowInput = z.infer<typeof BotWindowInput>;

export const BotWindow = z.object({
  from: z.string(),
  to: z.string(),
  country: z.string().optional(),
  network: z.string().optional(),
  note: z.string().optional(),
});
export type BotWindow = z.infer<typeof BotWindow>;

// ---------- goals ----------

export const GOAL_TYPES = ['event', 'path'] as const;

/**
 * Ids a goal never gets because they name a route beside `/goals/{goal}` (`GET /v1/sites/{id}/goals/results`):
 * a goal whose name folds to one of them gets `-1` appended (`Results` → `results-1`).
 */
export const RESERVED_GOAL_IDS: ReadonlySet<string> = new Set(['results']);

/**
 * The id of a goal, derived from its name: lower-case ASCII letters and digits, every other run of
 * characters one hyphen, no hyphen at either end (`Signed up!` → `signed-up`); a reserved id gets `-1`
 * appended. A name with no Latin letter or digit keeps its own letters, marks and digits in lower case
 * (`Покупка` → `покупка`, `購入 完了` → `購入-完了`): folding it to ASCII would leave nothing. Empty when the
 * name has no letter or digit in any script.
 */
export function goalIdOf(name: string): string {
  const folded = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
  const id = hyphenated(folded, /[^a-z0-9]+/g);
  if (id) return RESERVED_GOAL_IDS.has(id) ? `${id}-1` : id;
  // Ids of names that fold to ASCII stay as they were; only names that folded to nothing take this form.
  return hyphenated(name.normalize('NFKC').toLowerCase(), /[^\p{L}\p{M}\p{N}]+/gu).normalize('NFC');
}

/** `text` with each run of `between` one hyphen, none at either end. */
const hyphenated = (text: string, between: RegExp) => text.replace(between, '-').replace(/^-+|-+$/g, '');

/**
 * A path pattern of a goal or funnel step (`what`, e.g. "path goal"): starts with /, and may end with * (only
 * there) to match every path starting with the rest. Issues go to `match`.
 */
export function checkPathPattern(match: string, ctx: z.RefinementCtx, what: string, example: string): void {
  if (!match.startsWith('/')) {
    ctx.addIssue({ code: 'custom', path: ['match'], message: `Start a ${what} with /, such as ${example} or /blog/*` });
  } else if (match.slice(0, -1).includes('*')) {
    ctx.addIssue({
      code: 'custom',
      path: ['match'],
      message: `Put * only at the end of a ${what} (/blog/* matches every path starting with /blog/)`,
    });
  } else if (/[?#]/.test(match)) {
    // Paths are stored without the URL's query and fragment: such a pattern would never match.
    const part = match.includes('?') ? 'query (?…)' : 'fragment (#…)';
    ctx.addIssue({
      code: 'custom',
      path: ['match'],
      message: `Leave the ${part} out of a ${what}: pages are matched by their path alone, such as ${example}`,
    });
  }
}

export const GoalInput = z
  .object({
    name: zName.describe('Shown in results; the goal id is derived from it (lower-case, hyphens)'),
    type: z
      .enum(GOAL_TYPES, { error: 'Use type event (matches an event name) or path (matches a page path)' })
      .describe('event: matches an event name; path: matches a page path'),
    match: z
      .string()
      .trim()
      .min(1, 'Give what the goal matches: an event name, or a path such as /thanks or /blog/*')
      .max(SETTINGS_LIMITS.goalMatch, `Use at most ${SETTINGS_LIMITS.goalMatch} characters`)
      .describe('Event name, or page path starting with /; a trailing * matches every path starting with the rest'),
  })
  .strict()
  .superRefine((g, ctx) => {
    if (goalIdOf(g.name) === '') {
      ctx.addIssue({ code: 'custom', path: ['name'], message: 'Use a name with at least one letter or digit' });
    }
    if (g.type === 'path') checkPathPattern(g.match, ctx, 'path goal', '/thanks');
  });
export type GoalInput = z.infer<typeof GoalInput>;

export const Goal = z.object({
  id: z.string().describe('Derived from the name; used in routes and results'),
  name: z.string(),
  type: z.enum(GOAL_TYPES),
  match: z.string(),
});
export type Goal = z.infer<typeof Goal>;

// ---------- experiments ----------

export const EXPERIMENT_STATUSES = ['draft', 'running', 'stopped'] as const;
export const EXPERIMENT_KEY_PATTERN = /^[a-z0-9_-]{1,64}$/;

const zExperimentKey = z
  .string()
  .regex(EXPERIMENT_KEY_PATTERN, 'Use a key of 1 to 64 lower-case letters, digits, _ or -, the same as data-exp in the page');
const zExperimentStatus = z.enum(EXPERIMENT_STATUSES, { error: 'Use status draft, running or stopped' });
const zExperimentName = z.string().trim().min(1, 'Give a name, or leave name out').max(80, 'Use at most 80 characters');
const zVariants = z
  .array(
    z
      .string()
      .trim()
      .min(1, 'Give each variant a name')
      .max(SETTINGS_LIMITS.variantLength, `Use variant names of at most ${SETTINGS_LIMITS.variantLength} characters`),
  )
  .min(2, 'Give at least two variants, such as ["control", "new"]')
  .max(SETTINGS_LIMITS.variants, `Give at most ${SETTINGS_LIMITS.variants} variants`)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    for (const v of list) {
      if (seen.has(v)) {
        ctx.addIssue({ code: 'custom', message: `The variant ${v} is listed twice: list each variant once` });
        return;
      }
      seen.add(v);
    }
  });

export const ExperimentInput = z
  .object({
    key: zExperimentKey.describe('Equals the data-exp name in the page'),
    name: zExperimentName.optional(),
    variants: zVariants.describe('At least two distinct variant names'),
    status: zExperimentStatus.optional().describe('draft (default), running or stopped'),
  })
  .strict();
export type ExperimentInput = z.infer<typeof ExperimentInput>;

export const Experiment = z.object({
  key: z.string(),
  name: z.string().optional(),
  variants: z.array(z.string()),
  status: z.enum(EXPERIMENT_STATUSES),
});
export type Experiment = z.infer<typeof Experiment>;

// ---------- the settings object and its routes ----------

export const SiteSettings = z.object({
  internalNetworks: z.array(z.string()).describe('CIDR networks whose traffic counts as internal'),
  botWindows: z.array(BotWindow).describe('Windows whose traffic is filed as a bot fleet after the fact'),
  goals: z.array(Goal),
  experiments: z.array(Experiment),
  bot: BotSettings,
  keptProperties: z
    .array(z.string())
    .describe('Custom property keys whose values are meant to stay past the 90 days of raw rows (docs/product/stats.md)'),
  scriptFeatures: z
    .array(z.enum(SCRIPT_FEATURES))
    .describe(
      'The parts of the page script this site gets beside its core (pageviews and leave reports): events, clicks, navigation (docs/api/page-script.md)',
    ),
});
export type SiteSettings = z.infer<typeof SiteSettings>;

/** Goal ids must be unique: the second goal whose name gives an id already taken is refused at its name. */
function uniqueGoalIds(goals: readonly GoalInput[], ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  goals.forEach((g, i) => {
    const id = goalIdOf(g.name);
    if (seen.has(id)) {
      ctx.addIssue({
        code: 'custom',
        path: [i, 'name'],
        message: `Another goal already has the id ${id}: give this goal a name that differs in letters or digits`,
      });
    }
    seen.add(id);
  });
}

function uniqueExperimentKeys(list: readonly ExperimentInput[], ctx: z.RefinementCtx) {
  const seen = new Set<string>();
  list.forEach((e, i) => {
    if (seen.has(e.key)) {
      ctx.addIssue({
        code: 'custom',
        path: [i, 'key'],
        message: `The key ${e.key} is used twice: give each experiment its own key`,
      });
    }
    seen.add(e.key);
  });
}

export const UpdateSiteSettingsInput = z
  .object({
    id: zId,
    internalNetworks: z
      .array(zCidr)
      .max(SETTINGS_LIMITS.internalNetworks, `List at most ${SETTINGS_LIMITS.internalNetworks} networks`)
      .optional()
      .describe('Replaces the list: CIDR networks (IPv4 or IPv6) whose traffic counts as internal'),
    botWindows: z
      .array(BotWindowInput)
      .max(SETTINGS_LIMITS.botWindows, `List at most ${SETTINGS_LIMITS.botWindows} windows`)
      .optional()
      .describe('Replaces the list: time windows whose traffic is filed as a bot fleet'),
    goals: z
      .array(GoalInput)
      .max(SETTINGS_LIMITS.goals, `List at most ${SETTINGS_LIMITS.goals} goals`)
      .superRefine(uniqueGoalIds)
      .optional()
      .describe('Replaces every goal at once'),
    experiments: z
      .array(ExperimentInput)
      .max(SETTINGS_LIMITS.experiments, `List at most ${SETTINGS_LIMITS.experiments} experiments`)
      .superRefine(uniqueExperimentKeys)
      .optional()
      .describe('Replaces every experiment at once'),
    keptProperties: z
      .array(z.string().trim().regex(PROPERTY_KEY, 'Give a property key of 1-64 letters, digits, _, -, . or spaces'))
      .max(PROPERTY_LIMITS.kept, `List at most ${PROPERTY_LIMITS.kept} property keys`)
      .optional()
      .describe(
        `Replaces the list: up to ${PROPERTY_LIMITS.kept} custom property keys (as sent, case kept) whose values are meant to stay past the 90 days of raw rows`,
      ),
    scriptFeatures: z
      .array(z.enum(SCRIPT_FEATURES, { error: `Name parts of the page script: ${SCRIPT_FEATURES.join(', ')}` }))
      .max(SCRIPT_FEATURES.length, `List at most the ${SCRIPT_FEATURES.length} parts: ${SCRIPT_FEATURES.join(', ')}`)
      .optional()
      .describe(
        'Replaces the list: the parts of the page script this site gets beside its core (pageviews, leave reports, data-exp and data-prop-<key>): `events` (window.unseen), `clicks` (element clicks for journeys), `navigation` (single-page apps). Each adds its own bytes; pages get the new script within an hour (its cache time).',
      ),
  })
  .strict();
export type UpdateSiteSettingsInput = z.infer<typeof UpdateSiteSettingsInput>;

export const GoalList = z.object({ goals: z.array(Goal) });
export const GoalOutput = z.object({ goal: Goal });
export const CreateGoalInput = GoalInput.safeExtend({ id: zId });
export type CreateGoalInput = z.infer<typeof CreateGoalInput>;
export const GoalParams = z.object({ id: zId, goal: z.string().min(1).max(200) }).strict();

export const ExperimentList = z.object({ experiments: z.array(Experiment) });
export const ExperimentOutput = z.object({ experiment: Experiment });
export const CreateExperimentInput = ExperimentInput.safeExtend({ id: zId });
export type CreateExperimentInput = z.infer<typeof CreateExperimentInput>;
export const UpdateExperimentInput = z
  .object({
    id: zId,
    key: z.string().min(1).max(200),
    name: zExperimentName.nullable().optional().describe('New name; null removes it'),
    variants: zVariants.optional(),
    status: zExperimentStatus.optional(),
  })
  .strict();
export type UpdateExperimentInput = z.infer<typeof UpdateExperimentInput>;
export const ExperimentParams = z.object({ id: zId, key: z.string().min(1).max(200) }).strict();
