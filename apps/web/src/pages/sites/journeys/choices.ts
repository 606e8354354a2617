import { daysParam } from '../parts/searchParams.ts';

export const JOURNEY_DAYS = [7, 30, 90] as const;
export const ZOOMS = [
  { key: 'page', label: 'Page' },
  { key: 'section', label: 'Section' },
  { key: 'element', label: 'Element' },
] as const;
export const WHO = [
  { key: 'human', label: 'People' },
  { key: 'internal', label: 'Your team' },
] as const;

export type Zoom = (typeof ZOOMS)[number]['key'];
export type Who = (typeof WHO)[number]['key'];

/** What the journeys page shows, all of it in the address: `?days=&zoom=&who=&anchor=`. */
export interface JourneyChoices {
  days: number;
  zoom: Zoom;
  who: Who;
  anchor: string | null;
}

const oneOf = <T extends string>(keys: readonly { key: T }[], value: string | null, fallback: T): T =>
  keys.find((k) => k.key === value)?.key ?? fallback;

export function parseJourneyChoices(search: string): JourneyChoices {
  const q = new URLSearchParams(search);
  const anchor = q.get('anchor');
  return {
    days: daysParam(search, JOURNEY_DAYS),
    zoom: oneOf(ZOOMS, q.get('zoom'), 'section'),
    who: oneOf(WHO, q.get('who'), 'human'),
    anchor: anchor ? anchor : null,
  };
}

/** The query parameters of a change; a new zoom drops the anchor (a section is not a page or an element). */
export function journeyParams(change: Partial<JourneyChoices>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  if (change.days !== undefined) out.days = String(change.days);
  if (change.who !== undefined) out.who = change.who;
  if (change.zoom !== undefined) {
    out.zoom = change.zoom;
    out.anchor = null;
  }
  if (change.anchor !== undefined) out.anchor = change.anchor;
  return out;
}

/** The address of the page with `anchor` set, keeping the other choices (for links on the flow's steps). */
export function anchorHref(search: string, anchor: string): string {
  const q = new URLSearchParams(search);
  q.set('anchor', anchor);
  return `${window.location.pathname}?${q.toString()}`;
}
