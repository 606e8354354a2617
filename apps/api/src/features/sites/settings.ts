import type { EntityManager } from '@mikro-orm/postgresql';
import type { Site } from '@us/db';
import {
  type CreateExperimentInput,
  type CreateGoalInput,
  type Experiment,
  type Goal,
  SCRIPT_FEATURES,
  SETTINGS_LIMITS,
  type SiteOutput,
  type SiteSettings,
  type UpdateExperimentInput,
  type UpdateSiteSettingsInput,
} from '@us/shared';
import { loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { AppError } from '../../core/errors.ts';
import { experimentOf, goalOf, normaliseNetworks, normaliseWindow, readSettings } from './settings-values.ts';
import { siteRecordOf, withLockedSite } from './view.ts';

/** Stores changed settings on the (locked) site row; flushed when the transaction ends. */
function store(site: Site, settings: SiteSettings) {
  site.settings = { ...(site.settings ?? {}), ...settings };
}

/**
 * Replaces the lists the request names and keeps the others (spec §2 Site settings). Answers the whole
 * site record. Bad values are 400 with the field path, e.g. `internalNetworks[0]`, `goals[1].name`.
 */
export async function updateSettings(em: EntityManager, actor: Actor, input: UpdateSiteSettingsInput): Promise<SiteOutput> {
  // Checked before the transaction: a refusal takes no lock.
  const networks = input.internalNetworks === undefined ? undefined : normaliseNetworks(input.internalNetworks);
  return withLockedSite(em, actor, input.id, async (tx, site) => {
    const settings = readSettings(site.settings);
    if (networks !== undefined) settings.internalNetworks = networks;
    if (input.botWindows !== undefined) settings.botWindows = input.botWindows.map(normaliseWindow);
    if (input.goals !== undefined) settings.goals = input.goals.map(goalOf);
    if (input.experiments !== undefined) settings.experiments = input.experiments.map(experimentOf);
    // A changed list is the rollup job's cue: it rolls the site's days with raw rows (the last 90 or so) up
    // again with the new keys (analytics/rollup/kept-properties.ts); older days keep the keys they had.
    if (input.keptProperties !== undefined) settings.keptProperties = [...new Set(input.keptProperties)];
    // Kept in the one order builds are named by; the site's /script/<key>.js serves the new build within a
    // second on every node (the sites generation), and pages get it within the hour the script is cached.
    if (input.scriptFeatures !== undefined)
      settings.scriptFeatures = SCRIPT_FEATURES.filter((f) => input.scriptFeatures?.includes(f));
    store(site, settings);
    await tx.flush();
    return { site: await siteRecordOf(tx, site) };
  });
}

// ---------- goals ----------

export async function listGoals(em: EntityManager, actor: Actor, siteId: string): Promise<{ goals: Goal[] }> {
  const site = await loadSite(em, actor, siteId);
  return { goals: readSettings(site.settings).goals };
}

/** Adds a goal; its id comes from its name, and a goal with that id already existing is 409. */
export async function createGoal(em: EntityManager, actor: Actor, input: CreateGoalInput): Promise<{ goal: Goal }> {
  return withLockedSite(em, actor, input.id, async (_tx, site) => {
    const settings = readSettings(site.settings);
    const goal = goalOf(input);
    if (settings.goals.some((g) => g.id === goal.id)) {
      throw new AppError(
        409,
        `This site already has a goal with the id ${goal.id}: choose a name that differs in letters or digits, or delete that goal first`,
      );
    }
    if (settings.goals.length >= SETTINGS_LIMITS.goals) {
      throw new AppError(
        409,
        `This site has ${SETTINGS_LIMITS.goals} goals, the most allowed: remove one first (DELETE /v1/sites/{id}/goals/{goal}), then add this one`,
      );
    }
    settings.goals = [...settings.goals, goal];
    store(site, settings);
    return { goal };
  });
}

const NO_GOAL = () =>
  new AppError(404, 'No such goal on this site: check the goal id (derived from its name) with GET /v1/sites/{id}/goals');

export async function deleteGoal(em: EntityManager, actor: Actor, input: { id: string; goal: string }): Promise<void> {
  await withLockedSite(em, actor, input.id, async (_tx, site) => {
    const settings = readSettings(site.settings);
    const kept = settings.goals.filter((g) => g.id !== input.goal);
    if (kept.length === settings.goals.length) throw NO_GOAL();
    settings.goals = kept;
    store(site, settings);
  });
}

// ---------- experiments ----------

export async function listExperiments(em: EntityManager, actor: Actor, siteId: string): Promise<{ experiments: Experiment[] }> {
  const site = await loadSite(em, actor, siteId);
  return { experiments: readSettings(site.settings).experiments };
}

const NO_EXPERIMENT = () =>
  new AppError(404, 'No such experiment on this site: check the key with GET /v1/sites/{id}/experiments');

/** Adds an experiment (status draft unless given); a key already used on the site is 409. */
export async function createExperiment(
  em: EntityManager,
  actor: Actor,
  input: CreateExperimentInput,
): Promise<{ experiment: Experiment }> {
  return withLockedSite(em, actor, input.id, async (_tx, site) => {
    const settings = readSettings(site.settings);
    if (settings.experiments.some((e) => e.key === input.key)) {
      throw new AppError(
        409,
        `This site already has an experiment with the key ${input.key}: choose another key, or change that one with PATCH`,
      );
    }
    if (settings.experiments.length >= SETTINGS_LIMITS.experiments) {
      throw new AppError(
        409,
        `This site has ${SETTINGS_LIMITS.experiments} experiments, the most allowed: remove one first (DELETE /v1/sites/{id}/experiments/{key}), then add this one`,
      );
    }
    const experiment = experimentOf(input);
    settings.experiments = [...settings.experiments, experiment];
    store(site, settings);
    return { experiment };
  });
}

/** Changes the name (null removes it), variants or status of an experiment; any status may follow any. */
export async function updateExperiment(
  em: EntityManager,
  actor: Actor,
  input: UpdateExperimentInput,
): Promise<{ experiment: Experiment }> {
  return withLockedSite(em, actor, input.id, async (_tx, site) => {
    const settings = readSettings(site.settings);
    const current = settings.experiments.find((e) => e.key === input.key);
    if (!current) throw NO_EXPERIMENT();
    const name = input.name === undefined ? current.name : (input.name ?? undefined);
    const next: Experiment = {
      key: current.key,
      ...(name ? { name } : {}),
      variants: input.variants !== undefined ? [...input.variants] : current.variants,
      status: input.status ?? current.status,
    };
    settings.experiments = settings.experiments.map((e) => (e.key === current.key ? next : e));
    store(site, settings);
    return { experiment: next };
  });
}

export async function deleteExperiment(em: EntityManager, actor: Actor, input: { id: string; key: string }): Promise<void> {
  await withLockedSite(em, actor, input.id, async (_tx, site) => {
    const settings = readSettings(site.settings);
    const kept = settings.experiments.filter((e) => e.key !== input.key);
    if (kept.length === settings.experiments.length) throw NO_EXPERIMENT();
    settings.experiments = kept;
    store(site, settings);
  });
}
