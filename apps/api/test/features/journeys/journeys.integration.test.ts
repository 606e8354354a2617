import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSessions, emptyRows, insertJourneys, type SessionSpec } from '../../support/journeys-fixture.ts';
import { dayAgo, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

type Node = { id: string; step: number; label: string; sessions: number };
type Link = { source: string; target: string; sessions: number };

/** Nodes as `step:label=sessions` and links as `source>target=sessions`, sorted, for exact comparison. */
function shape(flow: { nodes: Node[]; links: Link[] }) {
  return {
    nodes: flow.nodes.map((n) => `${n.id}=${n.sessions}`).sort(),
    links: flow.links.map((l) => `${l.source}>${l.target}=${l.sessions}`).sort(),
  };
}

describe('journeys', () => {
  let f: StatsFixture;
  const day = dayAgo('UTC', 1);
  beforeAll(async () => {
    f = await statsFixture();
  });
  afterAll(() => f.close());

  async function siteWith(sessions: [Omit<SessionSpec, 'day'>, number][], settings: Record<string, unknown> = {}) {
    const siteId = await f.site({ settings });
    const rows = emptyRows();
    for (const [spec, times] of sessions) addSessions(rows, siteId, { day, ...spec }, times);
    await insertJourneys(f.t.deps.orm, rows);
    return siteId;
  }
  const journeys = (siteId: string, q: Record<string, string | number> = {}) => f.get(`/v1/sites/${siteId}/journeys`, q);

  describe('the flow at each zoom', () => {
    let siteId: string;
    beforeAll(async () => {
      siteId = await siteWith([
        [{ pages: ['/', '/pricing', '/signup'] }, 3],
        // Repeats of a step collapse: these are the same journey as the three above.
        [{ pages: ['/', '/', '/pricing', '/pricing', '/signup'] }, 3],
        [{ pages: ['/', '/blog/a'] }, 5],
        [{ pages: ['/', '/blog/b', '/blog/c'] }, 3],
        [{ pages: ['/', '/rare-x'] }, 2],
        [{ pages: ['/rare-start', '/pricing'] }, 3],
      ]);
    });

    it('at zoom page: steps are paths; groups under 5 sessions fold into (other)', async () => {
      const res = await journeys(siteId, { zoom: 'page', days: 7 }).expect(200);
      expect(res.body).toMatchObject({ zoom: 'page', who: 'human', anchor: null, visits: 19 });
      expect(shape(res.body.flow)).toEqual({
        nodes: ['0:(other)=3', '0:/=16', '1:(other)=8', '1:/blog/a=5', '1:/pricing=6', '2:(other)=3', '2:/signup=6'].sort(),
        links: [
          '0:/>1:/pricing=6',
          '0:/>1:/blog/a=5',
          '0:/>1:(other)=5',
          '0:(other)>1:(other)=3',
          '1:/pricing>2:/signup=6',
          '1:(other)>2:(other)=3',
        ].sort(),
      });
      expect(JSON.stringify(res.body)).not.toMatch(/rare|blog\/b|blog\/c/);
      expect(res.body.paths).toEqual([
        { steps: ['/', '/pricing', '/signup'], sessions: 6, goals: [] },
        { steps: ['/', '/blog/a'], sessions: 5, goals: [] },
      ]);
      expect(res.body.other.note).toMatch(/\(other\)/);
    });

    it('at zoom section (the default): steps are first path segments', async () => {
      const res = await journeys(siteId).expect(200);
      expect(res.body.zoom).toBe('section');
      expect(shape(res.body.flow)).toEqual({
        // /blog/b then /blog/c is one /blog step; /rare-start and /rare-x stay under 5.
        nodes: ['0:(other)=3', '0:/=16', '1:(other)=5', '1:/blog=8', '1:/pricing=6', '2:/signup=6'].sort(),
        links: ['0:/>1:/pricing=6', '0:/>1:/blog=8', '0:/>1:(other)=2', '0:(other)>1:(other)=3', '1:/pricing>2:/signup=6'].sort(),
      });
      expect(res.body.paths.map((p: { steps: string[] }) => p.steps)).toEqual([
        ['/', '/blog'],
        ['/', '/pricing', '/signup'],
      ]);
    });

    it('every named node is the sum of its incoming links', async () => {
      for (const zoom of ['page', 'section']) {
        const { flow } = (await journeys(siteId, { zoom }).expect(200)).body as { flow: { nodes: Node[]; links: Link[] } };
        for (const n of flow.nodes.filter((x) => x.step > 0)) {
          const inflow = flow.links.filter((l) => l.target === n.id).reduce((s, l) => s + l.sessions, 0);
          expect(inflow, n.id).toBe(n.sessions);
        }
      }
    });
  });

  it('zoom element: clicked labels in order, repeats collapsing across pages', async () => {
    const siteId = await siteWith([
      [
        {
          pages: [
            { path: '/', clicks: ['button:Sign up', 'button:Sign up'] },
            { path: '/x', clicks: ['button:Sign up', '/pricing'] },
          ],
        },
        5,
      ],
      [{ pages: [{ path: '/', clicks: ['out:github.com'] }] }, 2],
      [{ pages: ['/'] }, 4],
    ]);
    const res = await journeys(siteId, { zoom: 'element' }).expect(200);
    expect(res.body.visits).toBe(11);
    expect(shape(res.body.flow)).toEqual({
      nodes: ['0:button:Sign up=5', '0:(other)=2', '1:/pricing=5'].sort(),
      links: ['0:button:Sign up>1:/pricing=5'],
    });
    expect(JSON.stringify(res.body)).not.toContain('github');
  });

  it('a session runs from one session start to the next of the same visitor code', async () => {
    const siteId = await siteWith([
      [{ pages: ['/a', '/b'], visitor: 'same-1' }, 1],
      [{ pages: ['/c', '/d'], visitor: 'same-1', offset: 600 }, 1],
      [{ pages: ['/a', '/b'], visitor: 'same-2' }, 1],
      [{ pages: ['/c', '/d'], visitor: 'same-2', offset: 600 }, 1],
      [{ pages: ['/a', '/b'] }, 3],
      [{ pages: ['/c', '/d'] }, 3],
    ]);
    const res = await journeys(siteId, { zoom: 'page' }).expect(200);
    expect(res.body.visits).toBe(10);
    expect(shape(res.body.flow).links).toEqual(['0:/a>1:/b=5', '0:/c>1:/d=5']);
  });

  it('pages with data-journeys="off" are left out entirely', async () => {
    const siteId = await siteWith([
      [{ pages: ['/', { path: '/account/secret', off: true, clicks: ['button:Hidden'] }, '/pricing'] }, 6],
      [{ pages: [{ path: '/account/secret', off: true }] }, 5],
    ]);
    const page = await journeys(siteId, { zoom: 'page' }).expect(200);
    expect(page.body.visits).toBe(6);
    expect(shape(page.body.flow)).toEqual({ nodes: ['0:/=6', '1:/pricing=6'], links: ['0:/>1:/pricing=6'] });
    const element = await journeys(siteId, { zoom: 'element' }).expect(200);
    for (const b of [page.body, element.body]) expect(JSON.stringify(b)).not.toMatch(/secret|Hidden/);
  });

  it('who=internal reads the internal lane only; human leaves it out', async () => {
    const siteId = await siteWith([
      [{ pages: ['/', '/admin-tools'], lane: 'internal' }, 5],
      [{ pages: ['/', '/pricing'] }, 5],
      [{ pages: ['/', '/crawled'], lane: 'bot' }, 5],
    ]);
    const human = await journeys(siteId, { zoom: 'page' }).expect(200);
    expect(shape(human.body.flow).links).toEqual(['0:/>1:/pricing=5']);
    const internal = await journeys(siteId, { zoom: 'page', who: 'internal' }).expect(200);
    expect(internal.body.who).toBe('internal');
    expect(shape(internal.body.flow).links).toEqual(['0:/>1:/admin-tools=5']);
    expect(JSON.stringify([human.body, internal.body])).not.toContain('crawled');
  });

  describe('anchor', () => {
    let siteId: string;
    beforeAll(async () => {
      siteId = await siteWith([
        [{ pages: ['/a', '/b', '/c', '/pricing', '/d', '/e', '/f'] }, 5],
        [{ pages: ['/x', '/pricing', '/y', '/pricing'] }, 5],
        [{ pages: ['/pricing'] }, 2],
        [{ pages: ['/lonely', '/q'] }, 3],
        [{ pages: ['/a', '/b'] }, 9],
      ]);
    });

    it('centres the flow on the first occurrence, steps -2..+2, sessions reaching it only', async () => {
      const res = await journeys(siteId, { zoom: 'page', anchor: '/pricing' }).expect(200);
      expect(res.body.anchor).toBe('/pricing');
      expect(shape(res.body.flow)).toEqual({
        nodes: ['-2:/b=5', '-1:/c=5', '-1:/x=5', '0:/pricing=12', '1:/d=5', '1:/y=5', '2:/e=5', '2:/pricing=5'].sort(),
        links: [
          '-2:/b>-1:/c=5',
          '-1:/c>0:/pricing=5',
          '-1:/x>0:/pricing=5',
          '0:/pricing>1:/d=5',
          '0:/pricing>1:/y=5',
          '1:/d>2:/e=5',
          '1:/y>2:/pricing=5',
        ].sort(),
      });
      // Paths and visits stay those of every session.
      expect(res.body.visits).toBe(24);
      expect(res.body.paths[0]).toMatchObject({ steps: ['/a', '/b'], sessions: 9 });
    });

    it('an anchor reached by fewer than 5 sessions answers an empty flow with a note', async () => {
      const res = await journeys(siteId, { zoom: 'page', anchor: '/lonely' }).expect(200);
      expect(res.body.flow).toEqual({ nodes: [], links: [] });
      expect(res.body.other.note).toMatch(/fewer than 5 sessions reach the anchor/i);
      expect(JSON.stringify(res.body)).not.toMatch(/"\/q"/);
      const none = await journeys(siteId, { zoom: 'page', anchor: '/never' }).expect(200);
      expect(none.body.flow).toEqual(res.body.flow);
      expect(none.body.other.note).toBe(res.body.other.note);
    });

    it('a section anchor at zoom section', async () => {
      const res = await journeys(siteId, { anchor: '/pricing' }).expect(200);
      expect(res.body.flow.nodes.find((n: Node) => n.step === 0)).toMatchObject({ label: '/pricing', sessions: 12 });
    });
  });

  it('goals: overall rates, per path rate and lift; experiments per variant, null under 5 sessions', async () => {
    const settings = {
      goals: [
        { id: 'signup', name: 'Signup', type: 'event', match: 'signup' },
        { id: 'blog', name: 'Blog', type: 'path', match: '/blog/*' },
      ],
      experiments: [
        { key: 'pricing', name: 'Pricing page', variants: ['a', 'b'], status: 'running' },
        { key: 'hero', variants: ['control', 'bold'], status: 'draft' },
      ],
    };
    const siteId = await siteWith(
      [
        [
          {
            pages: [
              { path: '/', exposures: [['pricing', 'a']] },
              { path: '/pricing', events: ['signup'] },
            ],
          },
          4,
        ],
        [{ pages: [{ path: '/', exposures: [['pricing', 'a']] }, '/pricing'] }, 2],
        [{ pages: [{ path: '/', exposures: [['pricing', 'b']] }, '/pricing'] }, 4],
        [{ pages: ['/', '/blog/a'] }, 10],
      ],
      settings,
    );
    const res = await journeys(siteId, { zoom: 'page' }).expect(200);
    expect(res.body.visits).toBe(20);
    expect(res.body.goals).toEqual([
      { id: 'signup', name: 'Signup', sessions: 4, rate: 20 },
      { id: 'blog', name: 'Blog', sessions: 10, rate: 50 },
    ]);
    expect(res.body.paths).toEqual([
      {
        steps: ['/', '/blog/a'],
        sessions: 10,
        goals: [
          { id: 'signup', rate: 0, lift: 0 },
          { id: 'blog', rate: 100, lift: 2 },
        ],
      },
      {
        steps: ['/', '/pricing'],
        sessions: 10,
        goals: [
          { id: 'signup', rate: 40, lift: 2 },
          { id: 'blog', rate: 0, lift: 0 },
        ],
      },
    ]);
    expect(res.body.experiments).toEqual([
      {
        key: 'pricing',
        name: 'Pricing page',
        status: 'running',
        goal: 'signup',
        variants: [
          { variant: 'a', sessions: 6, converted: 4, rate: 66.7 },
          { variant: 'b', sessions: null, converted: null, rate: null },
        ],
      },
      {
        key: 'hero',
        name: null,
        status: 'draft',
        goal: 'signup',
        variants: [
          { variant: 'control', sessions: null, converted: null, rate: null },
          { variant: 'bold', sessions: null, converted: null, rate: null },
        ],
      },
    ]);
  });
});
