// Where Citus put the scale-out sites: the worker holding each site's shard of `pageviews` (every analytics
// table is colocated with it), summed per worker as sites and generated pageviews.
import type { Orm } from '@us/db';
import type { BenchSite } from './scaleout-data.ts';

export interface WorkerShare {
  worker: string;
  sites: number;
  pageviews: number;
  holdsLarge: boolean;
}

export async function sitesPerWorker(orm: Orm, sites: BenchSite[], shares: number[]): Promise<WorkerShare[]> {
  const rows = await orm.em.getConnection().execute<{ site_id: string; worker: string }[]>(
    `select s.site_id::text as site_id, n.nodename || ':' || n.nodeport as worker
       from unnest(?::uuid[]) s(site_id)
       join pg_dist_placement p on p.shardid = get_shard_id_for_distribution_column('pageviews', s.site_id)
       join pg_dist_node n on n.groupid = p.groupid`,
    [`{${sites.map((s) => s.id).join(',')}}`],
    'all',
  );
  const share = new Map(sites.map((s, i) => [s.id, shares[i] ?? 0]));
  const byWorker = new Map<string, WorkerShare>();
  for (const r of rows) {
    const w = byWorker.get(r.worker) ?? { worker: r.worker, sites: 0, pageviews: 0, holdsLarge: false };
    w.sites += 1;
    w.pageviews += share.get(r.site_id) ?? 0;
    if (r.site_id === sites[0]?.id) w.holdsLarge = true;
    byWorker.set(r.worker, w);
  }
  return [...byWorker.values()].sort((a, b) => (a.worker < b.worker ? -1 : 1));
}

export function formatLayout(workers: WorkerShare[]): string {
  return workers
    .map(
      (w) =>
        `  worker ${w.worker}: ${w.sites} sites, ${w.pageviews.toLocaleString('en')} of the generated pageviews${w.holdsLarge ? ' (the large site among them)' : ''}`,
    )
    .join('\n');
}
