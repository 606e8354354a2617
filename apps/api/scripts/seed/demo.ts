// The demo account of `npm run seed:demo`: a user, a workspace "Demo" and a site "Demo shop" (demo.example)
// with months of generated traffic, counted in the workspace's usage like collected traffic.
import type { Orm } from '@us/db';
import { type Account, ensureAccount, ensureSite, type SeededSite } from './accounts.ts';
import { deleteTraffic, type GenerateProgress, type GenerateResult, generateTraffic } from './generate.ts';

export interface DemoOptions {
  email: string;
  password: string;
  /** Calendar days of traffic ending today. */
  days: number;
  /** Pageviews over all days (all lanes). */
  pageviews: number;
  /** Days generated at once (connections). */
  jobs: number;
  onReplacing?: (rowsRemoved: number) => void;
  onProgress?: (p: GenerateProgress) => void;
}

export interface Demo extends SeededSite {
  account: Account;
  timezone: string;
  result: GenerateResult;
}

export const DEMO_TIMEZONE = 'Europe/Berlin';

/**
 * Creates (or finds, by e-mail and name) the demo user, workspace and site, replaces the site's earlier
 * traffic (and the usage it had counted) and generates new traffic. Safe to run again.
 */
export async function seedDemo(orm: Orm, opts: DemoOptions): Promise<Demo> {
  const em = orm.em.fork();
  const account = await ensureAccount(em, { email: opts.email, password: opts.password, workspaceName: 'Demo' });
  const timezone = DEMO_TIMEZONE;
  const seeded = await ensureSite(em, {
    workspaceId: account.workspace.id,
    name: 'Demo shop',
    hostname: 'demo.example',
    timezone,
    settings: {
      internalNetworks: ['192.0.2.0/24'],
      goals: [
        { id: 'signed-up', name: 'Signed up', type: 'event', match: 'signup' },
        { id: 'purchase', name: 'Purchase', type: 'event', match: 'purchase' },
        { id: 'order-completed', name: 'Order completed', type: 'path', match: '/checkout/thanks' },
      ],
      experiments: [{ key: 'pricing', name: 'Pricing page layout', variants: ['a', 'b'], status: 'running' }],
      bot: {
        mode: 'challenge',
        bots: 'allow',
        rules: [{ action: 'deny', label: 'Block Bytespider', match: { bot: 'Bytespider' } }],
      },
    },
  });
  if (!seeded.created) {
    const removed = await deleteTraffic(orm, seeded.site.id);
    if (removed) opts.onReplacing?.(removed);
  }
  const result = await generateTraffic(orm, {
    siteId: seeded.site.id,
    timezone,
    days: opts.days,
    pageviews: opts.pageviews,
    jobs: opts.jobs,
    seed: 'demo-shop',
    onProgress: opts.onProgress,
  });
  await orm.em.getConnection().execute('analyze pageviews, page_leaves, events, requests, daily_rollups', [], 'run');
  return { ...seeded, account, timezone, result };
}
