import { insertRows, pageviewRows } from '@us/db';
import type { SiteSettings } from '@us/shared';
import { addDays, localToday } from '../../src/analytics/range.ts';
import type { TestServer } from './server.ts';
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
