import { describe, expect, it } from 'vitest';
import { journeyParams, parseJourneyChoices } from '../src/pages/sites/journeys/choices.ts';
import { bandPath, layoutSankey, stepName } from '../src/pages/sites/journeys/sankeyLayout.ts';

const node = (step: number, label: string, sessions: number) => ({ id: `${step}:${label}`, step, label, sessions });

describe('journeys page: choices in the address', () => {
  it('reads days, zoom, who and anchor, falling back to the defaults', () => {
    expect(parseJourneyChoices('')).toEqual({ days: 7, zoom: 'section', who: 'human', anchor: null });
    expect(parseJourneyChoices('?days=30&zoom=page&who=internal&anchor=%2Fpricing')).toEqual({
      days: 30,
      zoom: 'page',
      who: 'internal',
      anchor: '/pricing',
    });
    expect(parseJourneyChoices('?days=5&zoom=huge&who=bots&anchor=')).toEqual({
      days: 7,
      zoom: 'section',
      who: 'human',
      anchor: null,
    });
  });

  it('drops the anchor with a new zoom', () => {
    expect(journeyParams({ zoom: 'element' })).toEqual({ zoom: 'element', anchor: null });
    expect(journeyParams({ anchor: '/blog' })).toEqual({ anchor: '/blog' });
    expect(journeyParams({ days: 90, who: 'internal' })).toEqual({ days: '90', who: 'internal' });
  });
});

describe('journeys page: Sankey layout', () => {
  const nodes = [node(-1, '/', 25), node(0, '/pricing', 25), node(1, '/checkout', 10), node(1, '(other)', 6)];
  const links = [
    { source: '-1:/', target: '0:/pricing', sessions: 25 },
    { source: '0:/pricing', target: '1:/checkout', sessions: 10 },
    { source: '0:/pricing', target: '1:(other)', sessions: 6 },
    { source: '0:/pricing', target: '9:/gone', sessions: 3 },
  ];

  it('puts each step in its own column, left to right, bands sized by sessions', () => {
    const plan = layoutSankey(nodes, links, 600, 300);
    if (!plan) throw new Error('no plan');
    expect(plan.columns.map((c) => c.step)).toEqual([-1, 0, 1]);
    const x = (id: string) => plan.nodes.find((n) => n.id === id)?.x0 ?? Number.NaN;
    expect(x('-1:/')).toBeLessThan(x('0:/pricing'));
    expect(x('0:/pricing')).toBeLessThan(x('1:/checkout'));
    expect(x('1:/checkout')).toBe(x('1:(other)'));
    // The link to a node not in the flow is left out; widths follow sessions.
    expect(plan.links).toHaveLength(3);
    const width = (target: string) => plan.links.find((l) => l.target.id === target)?.width ?? 0;
    expect(width('0:/pricing')).toBeCloseTo((width('1:/checkout') * 25) / 10, 5);
    for (const n of plan.nodes) {
      expect(n.x1).toBeLessThanOrEqual(600);
      expect(n.y1).toBeLessThanOrEqual(300);
    }
    expect(bandPath(plan.links[0] as (typeof plan.links)[number])).toMatch(/^M[\d.]+,[\d.]+C/);
  });

  it('draws nothing without nodes, and names steps around an anchor', () => {
    expect(layoutSankey([], [], 600, 300)).toBeNull();
    expect(stepName(0, false)).toBe('Step 1');
    expect(stepName(0, true)).toBe('Anchor');
    expect(stepName(-2, true)).toBe('2 steps before');
    expect(stepName(1, true)).toBe('1 step after');
  });
});
