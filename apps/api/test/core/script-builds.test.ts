import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SCRIPT_FEATURES, type ScriptFeature, scriptBuildName } from '@us/shared';
import { describe, expect, it } from 'vitest';
import { SCRIPT_DIST } from '../../src/core/built-files.ts';
import { scriptFeaturesOf, scriptManifest } from '../../src/core/script-builds.ts';

/** Every set of parts, each in the order of the list. */
function subsets(list: readonly ScriptFeature[]): ScriptFeature[][] {
  const out: ScriptFeature[][] = [[]];
  for (const f of list) for (const s of [...out]) out.push([...s, f]);
  return out;
}

describe('the page script builds', () => {
  it('exist for every set of parts the settings can name, within their budgets', () => {
    const manifest = scriptManifest();
    if (!manifest) throw new Error('the page script is not built: run npm run build');
    const names = subsets(SCRIPT_FEATURES).map(scriptBuildName);
    expect(Object.keys(manifest.builds).sort()).toEqual([...names].sort());
    expect(Object.keys(manifest.partGzip)).toEqual([...SCRIPT_FEATURES]);
    const { budgets } = JSON.parse(readFileSync(path.join(SCRIPT_DIST, 'manifest.json'), 'utf8')) as {
      budgets: { core: number; part: number; all: number };
    };
    // What a site using pageviews, leave reports and path goals gets, as served.
    expect(manifest.builds.core?.gzip).toBeLessThanOrEqual(1024);
    expect(budgets.core).toBeLessThanOrEqual(1024);
    for (const f of SCRIPT_FEATURES) expect(manifest.partGzip[f]).toBeLessThanOrEqual(budgets.part);
    expect(manifest.builds['events-clicks-navigation']?.gzip).toBeLessThanOrEqual(budgets.all);
  });
});

describe('scriptFeaturesOf', () => {
  it('gives a site from before the choice every part, and keeps only known parts in build order', () => {
    expect(scriptFeaturesOf({})).toEqual(['events', 'clicks', 'navigation']);
    expect(scriptFeaturesOf(null)).toEqual(['events', 'clicks', 'navigation']);
    expect(scriptFeaturesOf({ scriptFeatures: [] })).toEqual([]);
    expect(scriptFeaturesOf({ scriptFeatures: ['navigation', 'heatmaps', 'events'] })).toEqual(['events', 'navigation']);
    expect(scriptFeaturesOf({ scriptFeatures: 'events' })).toEqual(['events', 'clicks', 'navigation']);
  });
});
