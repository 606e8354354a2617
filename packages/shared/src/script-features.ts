/**
 * The parts of the page script a site turns on (site settings `scriptFeatures`). The core every site gets
 * sends pageviews and leave reports (so path goals, experiments by `data-exp` and `data-prop-<key>` work);
 * each part here adds its own bytes (docs/api/page-script.md). apps/script/build.mjs builds the script for
 * every set of parts; the API serves each site the build for its set.
 */
export const SCRIPT_FEATURES = ['events', 'clicks', 'navigation'] as const;
export type ScriptFeature = (typeof SCRIPT_FEATURES)[number];

/** What each part does, as the dashboard and the API reference say it. */
export const SCRIPT_FEATURE_TEXT: Record<ScriptFeature, string> = {
  events:
    'Custom events from your code: window.unseen(name, { label, value, props }), calls queued before the script loaded included',
  clicks: 'Element clicks (links, buttons, [data-us]) for journeys at element zoom',
  navigation: 'Single-page apps: a pageview for each history.pushState, replaceState (new path) and back/forward',
};

/** The set of a site whose settings never named one (sites from before the choice): every part, as before. */
export const ALL_SCRIPT_FEATURES: readonly ScriptFeature[] = SCRIPT_FEATURES;

/** A set in the one order builds are named by (`events-clicks`, `core` for none). */
export function scriptBuildName(features: readonly ScriptFeature[]): string {
  const on = SCRIPT_FEATURES.filter((f) => features.includes(f));
  return on.length ? on.join('-') : 'core';
}
