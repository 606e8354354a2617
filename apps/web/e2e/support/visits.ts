// Traffic for dashboard tests in a real browser, and how to read the figures back off the page.
import { randomUUID } from 'node:crypto';
import type { PageviewRow } from '@us/db';
import type { Page } from 'playwright-core';

/** A UTC day `n` days before today (the test sites keep UTC, so these are their report days). */
export const dayAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
export const at = (n: number, minute = 0) => new Date(`${dayAgo(n)}T12:${String(minute).padStart(2, '0')}:00Z`);

/**
 * One visit: its first pageview starts the session, the others follow a minute apart. Source, country
 * and device belong to the visit.
 */
export function visit(
  siteId: string,
  daysAgo: number,
  paths: string[],
  extra: Pick<PageviewRow, 'referrerHost' | 'country' | 'device' | 'source' | 'channel'> & { lane?: PageviewRow['lane'] },
): PageviewRow[] {
  const visitor = `v-${randomUUID()}`;
  return paths.map((path, i) => ({
    siteId,
    at: at(daysAgo, i),
    pageviewId: `pv-${randomUUID()}`,
    visitor,
    sessionStart: i === 0,
    lane: extra.lane ?? 'human',
    path,
    referrerHost: extra.referrerHost ?? null,
    source: extra.source ?? null,
    channel: extra.channel ?? null,
    country: extra.country ?? null,
    device: extra.device,
  }));
}

/** The texts of a table's row headers, top to bottom. */
export const rowLabels = (page: Page, table: string) =>
  page.getByRole('table', { name: table, exact: true }).locator('tbody th').allTextContents();

export const measure = (page: Page, label: string) =>
  page.getByRole('list', { name: 'Headline figures' }).getByRole('listitem', { name: label, exact: true });
