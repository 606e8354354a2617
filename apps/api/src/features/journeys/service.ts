// GET /v1/sites/{id}/journeys: on the stats pool, inside one of the workspace's stats slots, like every
// stats question. The anchor is checked for the zoom; journeys read raw days only (the last 90).

import type { EntityManager } from '@mikro-orm/postgresql';
import type { Journeys, JourneysQuery, JourneyZoom } from '@us/shared';
import type { Actor } from '../../actor/actor.ts';
import type { GatherOptions } from '../../analytics/day-store/gather.ts';
import { addDays, resolveRange } from '../../analytics/range.ts';
import type { SiteCtx } from '../../analytics/site-ctx.ts';
import { type StatsDeps, withSite } from '../../analytics/site-slot.ts';
import { badRequest } from '../../core/errors.ts';
import { asStoredPath } from '../results/index.ts';
import { readSettings } from '../sites/index.ts';
import { journeyAnswer } from './answer.ts';
import { journeyGroups } from './days.ts';
import { firstEventGoal, goalDefs } from './goals.ts';
import { abOf } from './statement.ts';

/** Element labels are event names, stored with at most 128 characters. */
const ELEMENT_LABEL_MAX = 128;

export function checkAnchor(zoom: JourneyZoom, anchor: string | undefined): string | null {
  if (anchor === undefined) return null;
  if (zoom === 'element') {
    if (anchor.length > ELEMENT_LABEL_MAX) {
      throw badRequest('anchor', `Use at most ${ELEMENT_LABEL_MAX} characters for an element label`);
    }
    return anchor;
  }
  if (!anchor.startsWith('/')) {
    throw badRequest(
      'anchor',
      zoom === 'page' ? 'Give a page path starting with /, such as /pricing' : 'Give a section such as /blog',
    );
  }
  if (zoom === 'section' && anchor.indexOf('/', 1) !== -1) {
    throw badRequest('anchor', 'Give a section as one path segment, such as /blog (or use zoom=page for a full path)');
  }
  if (anchor.includes('?')) throw badRequest('anchor', 'Leave the query string out of the anchor: paths have none');
  // As the paths are stored (and goals read): `/café` reaches `/caf%C3%A9`.
  return asStoredPath(anchor);
}

export function siteJourneys(deps: StatsDeps, em: EntityManager, actor: Actor, input: JourneysQuery): Promise<Journeys> {
  const zoom = input.zoom ?? 'section';
  checkAnchor(zoom, input.anchor);
  return withSite(deps, em, actor, input.id, (ctx, site) => journeysOf(ctx, site.settings, input));
}

/** The answer for a site context; `store: false` reads every day raw (the reference the tests compare with). */
export async function journeysOf(
  ctx: SiteCtx,
  stored: Record<string, unknown> | null,
  input: JourneysQuery,
  opts: GatherOptions & { store?: boolean } = {},
): Promise<Journeys> {
  const zoom = input.zoom ?? 'section';
  const who = input.who ?? 'human';
  const anchor = checkAnchor(zoom, input.anchor);
  const range = resolveRange(input, ctx.today);
  if (range.from < ctx.rawStart) {
    throw badRequest(
      input.from !== undefined ? 'from' : 'days',
      `Journeys read the last 90 days only: choose days from ${ctx.rawStart} on`,
    );
  }
  // Days to come have no journeys; each would be computed and stored as an empty day (tomorrow: a zone ahead).
  if (range.to > addDays(ctx.today, 1)) {
    throw badRequest('to', `Journeys read the last 90 days only: choose days up to ${ctx.today}`);
  }
  const settings = readSettings(stored);
  const goals = goalDefs(settings.goals);
  const groups = await journeyGroups(
    ctx,
    {
      range,
      zoom,
      who,
      anchor,
      goals,
      convertedGoal: firstEventGoal(goals) + 1,
      ...abOf(settings.experiments),
    },
    opts,
  );
  return {
    timezone: ctx.timezone,
    from: range.from,
    to: range.to,
    zoom,
    who,
    anchor,
    ...journeyAnswer(groups, { goals, experiments: settings.experiments, anchor }),
  };
}
