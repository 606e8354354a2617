// Request and answer schemas of search connections (spec §2 "Search connection and weekly figures",
// §4 "Search connections"): the primary provider (Google Search Console) and the secondary (Bing
// Webmaster Tools). Credentials go in and never come out.
import { z } from 'zod';
import { zId } from './common.ts';

export const SEARCH_LIMITS = {
  /** A key file as text, or as an object once serialised as JSON. */
  keyChars: 20_000,
  /** Fields of a key file given as an object (Google's have eleven). */
  keyFields: 32,
  apiKeyChars: 200,
  urlChars: 2048,
  defaultWeeks: 12,
  maxWeeks: 104,
} as const;

export const SearchInput = z.object({ id: zId }).strict();
export type SearchInput = z.infer<typeof SearchInput>;

/** Whether pulls run: delegated access is checked again before every pull, and stops them when it no longer holds. */
export const SEARCH_ACCESS = ['ok', 'access-lost', 'hostname-unverified'] as const;

const LastPull = z
  .object({
    at: z.string(),
    ok: z.boolean(),
    message: z.string().nullable().describe('Why the last pull failed (null when it worked)'),
  })
  .nullable();

export const SearchOutput = z.object({
  serviceAccount: z
    .string()
    .nullable()
    .describe('The address to grant access to in Search Console for delegated mode (null: delegated mode not offered here)'),
  primary: z
    .object({
      mode: z.enum(['delegated', 'service_account']),
      property: z.string(),
      /** service_account mode: the key's client address (the key itself is never shown). */
      account: z.string(),
      connectedAt: z.string(),
      lastPull: LastPull,
      status: z
        .enum(SEARCH_ACCESS)
        .describe(
          'ok: pulls run. Delegated mode, checked before every pull: access-lost (the service account can no longer read the property; pulls stop until it is granted again and the source connected again), hostname-unverified (the property no longer covers a verified hostname of the site; pulls stop until it is verified again, then resume on their own)',
        ),
      statusMessage: z.string().nullable().describe('What to do when status is not ok (null when ok)'),
    })
    .nullable(),
  secondary: z
    .object({
      siteUrl: z.string(),
      connectedAt: z.string(),
      lastPull: LastPull,
    })
    .nullable(),
});
export type SearchOutput = z.infer<typeof SearchOutput>;

/**
 * A key file given as an object: flat like the ones Google makes (every value text, a number, true,
 * false or null), and bounded like the text form (its JSON at most 20,000 characters).
 */
const KeyFileObject = z
  .record(
    z.string(),
    z.union([z.string(), z.number(), z.boolean(), z.null()], {
      error: 'Give the key file as Google makes it: a flat JSON object whose values are text, not objects or lists',
    }),
  )
  .refine((o) => Object.keys(o).length <= SEARCH_LIMITS.keyFields, {
    error: `Give a key file of at most ${SEARCH_LIMITS.keyFields} fields`,
  })
  .refine((o) => JSON.stringify(o).length <= SEARCH_LIMITS.keyChars, {
    error: 'Give a key file of at most 20,000 characters',
  });

export const UpdatePrimarySearchInput = z
  .object({
    id: zId,
    mode: z.enum(['delegated', 'service_account'], { error: 'Use mode delegated or service_account' }),
    property: z
      .string()
      .min(1, 'Give the Search Console property, such as https://example.com/ or sc-domain:example.com')
      .max(SEARCH_LIMITS.urlChars)
      .describe('The Search Console property: a URL prefix (https://example.com/) or a domain (sc-domain:example.com)'),
    key: z
      .union([z.string().max(SEARCH_LIMITS.keyChars, 'Give a key file of at most 20,000 characters'), KeyFileObject], {
        error: 'Give the service-account key file as JSON text or as an object',
      })
      .optional()
      .describe('service_account mode: the service account key file (JSON), as text or as an object'),
  })
  .strict();
export type UpdatePrimarySearchInput = z.infer<typeof UpdatePrimarySearchInput>;

export const UpdateSecondarySearchInput = z
  .object({
    id: zId,
    apiKey: z
      .string()
      .min(1, 'Give the Bing Webmaster Tools API key')
      .max(SEARCH_LIMITS.apiKeyChars, 'Give an API key of at most 200 characters'),
    siteUrl: z
      .string()
      .min(1, 'Give the site as registered in Bing Webmaster Tools, such as https://example.com/')
      .max(SEARCH_LIMITS.urlChars),
  })
  .strict();
export type UpdateSecondarySearchInput = z.infer<typeof UpdateSecondarySearchInput>;

export const SearchWeeksQuery = z
  .object({
    id: zId,
    weeks: z
      .number()
      .int()
      .min(1, 'Give weeks of 1 or more')
      .max(SEARCH_LIMITS.maxWeeks, `Give weeks of at most ${SEARCH_LIMITS.maxWeeks}`)
      .optional()
      .describe(`Weeks ending with the current one (weeks start Monday, UTC). Default ${SEARCH_LIMITS.defaultWeeks}`),
  })
  .strict();
export type SearchWeeksQuery = z.infer<typeof SearchWeeksQuery>;

const TopRow = z.object({ key: z.string(), clicks: z.number(), impressions: z.number() });

export const SearchWeek = z.object({
  week: z.string().describe('The Monday the week starts on (YYYY-MM-DD)'),
  source: z.enum(['primary', 'secondary']),
  clicks: z.number().nullable(),
  impressions: z.number().nullable(),
  ctr: z.number().nullable().describe('Clicks per impression, 0–1'),
  position: z.number().nullable().describe('Average position'),
  pages: z.number().nullable().describe('Pages shown in results'),
  queries: z.number().nullable().describe('Queries the site was shown for'),
  links: z.number().nullable().describe('Inbound links (secondary source only)'),
  top: z
    .object({ pages: z.array(TopRow), queries: z.array(TopRow) })
    .nullable()
    .describe('The ten pages and ten queries with the most clicks that week (null: not collected)'),
});

export const SearchWeeksOutput = z.object({
  from: z.string(),
  to: z.string(),
  weeks: z.array(SearchWeek).describe('One row per week and source that has figures, oldest first; null: not collected'),
});
export type SearchWeeksOutput = z.infer<typeof SearchWeeksOutput>;
