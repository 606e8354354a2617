import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Deps } from '../../src/core/deps.ts';
import { collectProcessMetrics, processMetrics } from '../../src/core/observe/metrics.ts';
import { serverMetrics } from '../../src/faces/metrics.ts';

interface Panel {
  id: number;
  type: string;
  title?: string;
  targets?: { expr: string }[];
}
const dashboard = JSON.parse(readFileSync(new URL('../../../../infra/grafana/unseen-stats.json', import.meta.url), 'utf8')) as {
  title: string;
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; definition?: string }[] };
};

/** Every metric the service exposes: the process's and a server's (read at scrape time: never read here). */
function exposed(): Set<string> {
  collectProcessMetrics();
  const own = serverMetrics({ orm: {}, statsOrm: {}, ingest: { buffer: {} }, hot: {} } as unknown as Deps);
  return new Set([...processMetrics.getMetricsAsArray(), ...own.getMetricsAsArray()].map((m) => m.name));
}

/** The metric names a PromQL expression reads (a histogram's `_bucket`, `_sum`, `_count` series are its own). */
function metricsIn(expr: string): string[] {
  return [...expr.matchAll(/\b((?:us|nodejs|process)_[a-z0-9_]+)/g)].map((m) =>
    (m[1] as string).replace(/_(bucket|sum|count)$/, ''),
  );
}

describe('infra/grafana/unseen-stats.json', () => {
  const queried = dashboard.panels.flatMap((p) => (p.targets ?? []).flatMap((t) => metricsIn(t.expr)));
  const names = exposed();

  it('is a dashboard of named panels with unique ids, each querying something', () => {
    expect(dashboard).toMatchObject({ title: 'Unseen Stats', uid: 'unseen-stats' });
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of dashboard.panels) {
      expect(p.title?.trim()).toBeTruthy();
      if (p.type !== 'row') expect(p.targets?.length).toBeGreaterThan(0);
    }
  });

  it('queries only metrics the service exposes', () => {
    const variables = dashboard.templating.list.flatMap((v) => metricsIn(v.definition ?? ''));
    expect([...queried, ...variables].filter((m) => !names.has(m))).toEqual([]);
  });

  it('shows every metric of the service’s own', () => {
    expect([...names].filter((m) => m.startsWith('us_') && !queried.includes(m))).toEqual([]);
  });
});
