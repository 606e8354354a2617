// Request and answer schemas of sites (spec §2 "Site", "Hostname"; §4 Sites; §8 limits).
import { z } from 'zod';
import { SCRIPT_FEATURES } from '../script-features.ts';
import { zId, zName, zTimestamp } from './common.ts';
import { HOSTNAME_LIMITS, HostnameVerificationRecord } from './hostnames.ts';
import { SiteKeyRecord } from './site-keys.ts';
import { SiteSettings } from './site-settings.ts';

let zoneIndex: Map<string, string> | undefined;
/** Every IANA zone this runtime knows, by lower-cased name. */
function zones(): Map<string, string> {
  zoneIndex ??= new Map(['UTC', ...Intl.supportedValuesOf('timeZone')].map((z) => [z.toLowerCase(), z]));
  return zoneIndex;
}

/**
 * The stored form of a time zone name, or null when it is not an IANA zone: `UTC` or a zone of
 * `Intl.supportedValuesOf('timeZone')` (any letter case, stored as listed), or a current IANA name the
 * runtime lists under an older one (`Europe/Kyiv`, listed as `Europe/Kiev`), kept as written.
 */
export function canonicalTimezone(input: string): string | null {
  const name = input.trim();
  const listed = zones().get(name.toLowerCase());
  if (listed) return listed;
  if (!/^[A-Z][A-Za-z_]*(\/[A-Z][A-Za-z0-9_+-]*)+$/.test(name)) return null;
  try {
    const resolved = new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
    return zones().has(resolved.toLowerCase()) ? name : null;
  } catch {
    return null;
  }
}

export const zTimezone = z
  .string()
  .max(64, 'Give an IANA time zone such as Europe/Berlin or UTC')
  .refine((v) => canonicalTimezone(v) !== null, 'Give an IANA time zone such as Europe/Berlin, America/New_York or UTC');

/** One hostname in the site record (spec §2 Hostname). */
export const HostnameRecord = z.object({
  hostname: z.string().describe('Bare, lower-case hostname'),
  proxy: z.boolean().describe('Served through the proxy (proxy mode)'),
  verifiedAt: zTimestamp.nullable(),
  verification: HostnameVerificationRecord.nullable().describe(
    'The TXT record to add while an ordinary hostname is unverified; null once verified, and for proxy-mode hostnames (the edge platform validates those)',
  ),
  createdAt: zTimestamp,
});
export type HostnameRecord = z.infer<typeof HostnameRecord>;

export const Site = z.object({
  id: zId,
  name: z.string(),
  timezone: z.string().describe('IANA zone; report days start at midnight there'),
  createdAt: zTimestamp,
  hostnames: z.array(HostnameRecord),
  settings: SiteSettings,
  lastSeenAt: zTimestamp.nullable().describe('When a page with the snippet was last viewed (stamped at most once a minute)'),
  retentionDays: z
    .number()
    .int()
    .nullable()
    .describe('Days of analytics kept (raw rows and daily rollups); null = kept while the account exists'),
});
export type Site = z.infer<typeof Site>;

/** Per-site retention: whole days, 1-3650 (about ten years), or null to keep data while the account exists. */
export const SITE_RETENTION_DAYS = { min: 1, max: 3650 } as const;

export const SiteList = z.object({ sites: z.array(Site) });
export type SiteList = z.infer<typeof SiteList>;

export const SiteOutput = z.object({ site: Site });
export type SiteOutput = z.infer<typeof SiteOutput>;

export const CreateSiteInput = z
  .object({
    name: zName.describe('1-80 characters'),
    timezone: zTimezone.optional().describe('IANA time zone; report days start at midnight there (default UTC)'),
    hostnames: z
      .array(z.string().max(1000, 'Use a hostname of at most 253 characters'))
      .max(
        HOSTNAME_LIMITS.perSite,
        `List at most ${HOSTNAME_LIMITS.perSite} hostnames: a site has at most ${HOSTNAME_LIMITS.perSite}`,
      )
      .optional()
      .describe('Bare hostnames such as www.example.com (no scheme, path or port); each gets a TXT record to verify'),
  })
  .strict();
export type CreateSiteInput = z.infer<typeof CreateSiteInput>;

export const CreateSiteOutput = z.object({
  site: Site,
  publicKey: SiteKeyRecord.describe('The public key for the page snippet (data-site)'),
});
export type CreateSiteOutput = z.infer<typeof CreateSiteOutput>;

export const SiteIdInput = z.object({ id: zId }).strict();
export type SiteIdInput = z.infer<typeof SiteIdInput>;

export const UpdateSiteInput = z
  .object({
    id: zId,
    name: zName.optional(),
    timezone: zTimezone.optional().describe('IANA time zone'),
    retentionDays: z
      .number({ error: 'Give retentionDays as a whole number of days (1-3650) or null' })
      .int('Give retentionDays as a whole number of days (1-3650) or null')
      .min(SITE_RETENTION_DAYS.min, 'Keep data at least 1 day (or null to keep it while the account exists)')
      .max(SITE_RETENTION_DAYS.max, 'Keep data at most 3650 days (or null to keep it while the account exists)')
      .nullable()
      .optional()
      .describe(
        'Days of analytics kept (raw rows and daily rollups older than this many days in the site time zone are deleted daily); null = kept while the account exists',
      ),
  })
  .strict();
export type UpdateSiteInput = z.infer<typeof UpdateSiteInput>;

export const CollectHealth = z.object({
  droppedToday: z.number().int().describe('Reports dropped today (UTC) by the collect budgets'),
  droppedLast7Days: z.number().int().describe('Reports dropped over the last seven days (UTC)'),
  droppedByReason: z
    .object({
      address: z.number().int().describe('One client address sent more than its budget per minute'),
      site: z.number().int().describe('The site received more than its budget per minute'),
    })
    .describe('Last seven days, by the budget that dropped them'),
  setAsideLast7Days: z
    .number()
    .int()
    .describe('Rows the database refused even after cleaning, kept aside with the reason (ingest_dead_letters)'),
});
export type CollectHealth = z.infer<typeof CollectHealth>;

export const InstallStatusOutput = z.object({
  installed: z.boolean().describe('true once a page with the snippet has been viewed'),
  lastSeenAt: zTimestamp.nullable(),
  needsPublicKey: z
    .boolean()
    .describe(
      'true when the site has no public key (it was deleted): pages report nothing until one is created (POST /v1/sites/{id}/keys with kind public) and the new snippet is in them',
    ),
  message: z.string().describe('What the status means and what to do next'),
  collect: CollectHealth.describe('Reports the collector did not store, and why'),
});
export type InstallStatusOutput = z.infer<typeof InstallStatusOutput>;

export const SnippetOutput = z.object({
  html: z.string().describe('Paste into the <head> of every page'),
  scriptUrl: z
    .string()
    .describe(
      "This site's page script: the build with the parts its settings name (scriptFeatures), served at /script/{siteKey}.js",
    ),
  script: z
    .object({
      features: z.array(z.enum(SCRIPT_FEATURES)).describe('The parts beside the core this site gets (settings scriptFeatures)'),
      gzipBytes: z.number().int().nullable().describe('Its size as served with gzip (null before the script is built)'),
      coreGzipBytes: z.number().int().nullable().describe('The core alone, gzip'),
      featureGzipBytes: z
        .partialRecord(z.enum(SCRIPT_FEATURES), z.number().int())
        .describe('What each part adds to the core, gzip (empty before the script is built)'),
    })
    .describe('The page script this site gets and what each part costs'),
  siteKey: z.string().describe('The public key (data-site)'),
  collectUrl: z
    .string()
    .describe(
      'Where pages and edges report (COLLECT_URL): the edge SDK’s SVC_COLLECT_URL, and data-api when not this origin’s /collect',
    ),
});
export type SnippetOutput = z.infer<typeof SnippetOutput>;
