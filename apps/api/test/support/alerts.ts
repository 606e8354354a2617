import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { insertRows, pageviewRows } from '@us/db';
import type { Scope, SiteSettings } from '@us/shared';
import { addDays, localToday } from '../../src/analytics/range.ts';
import { callerFor } from './caller.ts';
import { createToken, createUser, type TestServer } from './server.ts';
import { createSite } from './sites.ts';

/** The 4 same weekdays an alert's day is compared with: 7, 14, 21 and 28 days before `day`. */
export const weeksBefore = (day: string) => [7, 14, 21, 28].map((d) => addDays(day, -d));

/**
 * Factory: a site whose yesterday (its zone, at `offset` from UTC all year) had `yesterday` visitors and
 * each of the 4 same weekdays before it `usual`, each a pageview at noon local time; for alert rules.
 */
export async function siteWithYesterday(
  t: TestServer,
  workspaceId: string,
  opts: { name: string; usual: number; yesterday: number; timezone?: string; offset?: string; settings?: Partial<SiteSettings> },
): Promise<{ siteId: string; yesterday: string }> {
  const timezone = opts.timezone ?? 'UTC';
  const { siteId } = await createSite(t.deps.orm.em.fork(), {
    workspace: workspaceId,
    name: opts.name,
    timezone,
    settings: opts.settings,
  });
  const yesterday = addDays(localToday(timezone), -1);
  const at = (day: string) => new Date(`${day}T12:00:00${opts.offset ?? '+00:00'}`);
  await insertRows(t.deps.orm, 'pageviews', [
    ...weeksBefore(yesterday).flatMap((day) => pageviewRows(siteId, at(day), opts.usual)),
    ...pageviewRows(siteId, at(yesterday), opts.yesterday),
  ]);
  return { siteId, yesterday };
}

/** A new owner's workspace and a token caller that may read and set its sites' alerts. */
export async function alertsOwner(t: TestServer): Promise<{ owner: ReturnType<typeof callerFor>; workspaceId: string }> {
  const { user, workspace } = await createUser(t.deps);
  const scopes: Scope[] = ['sites:read', 'sites:write', 'analytics:read'];
  const owner = callerFor(t.deps, await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes }));
  return { owner, workspaceId: workspace.id };
}

/** A webhook receiver on 127.0.0.1 (any free port): its base URL, and a close that ends calls still held. */
export async function webhookReceiver(handler: RequestListener): Promise<{ base: string; close: () => Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
