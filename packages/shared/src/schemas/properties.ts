// Custom properties of a site (issue 40 item 2; docs/product/stats.md, "Properties"): the keys its pages
// sent lately, for a stats question by `prop:<key>` or the dashboard's Properties card.
import { z } from 'zod';
import { PROPERTY_LIMITS } from '../properties.ts';
import { zId } from './common.ts';

/** Days the keys route looks back over (today included). */
export const PROPERTY_KEY_DAYS = 30;

export const SitePropertiesInput = z.object({ id: zId }).strict();
export type SitePropertiesInput = z.infer<typeof SitePropertiesInput>;

export const SitePropertyKey = z.object({
  key: z.string().describe('The key as sent (trimmed, case kept); ask for it as the dimension prop:<key>'),
  pageviews: z.number().int().describe('People pageviews that carried the key'),
  events: z.number().int().describe('People events that carried the key'),
});

export const SiteProperties = z.object({
  from: z.string().describe('First day looked at (YYYY-MM-DD, site time zone)'),
  to: z.string().describe('Last day looked at, today'),
  keys: z.array(SitePropertyKey).describe(`The most used keys first, at most ${PROPERTY_LIMITS.listed}`),
  truncated: z.boolean().describe(`More keys were seen than the ${PROPERTY_LIMITS.listed} listed`),
  kept: z.array(z.string()).describe('The keys the site marked as kept (keptProperties in its settings)'),
});
export type SiteProperties = z.infer<typeof SiteProperties>;
