// Request and answer schemas of site keys (spec §2 "Site key", §3 rotation, §4 Sites).
import { z } from 'zod';
import { zId, zTimestamp } from './common.ts';

/** Spec §2: `pk_` and 26 lower-case letters and digits (published in pages). */
export const PUBLIC_KEY_PATTERN = /^pk_[a-z0-9]{26}$/;
/** Server secrets: `sk_live_` and 32 base62 characters; stored only as SHA-256. */
export const SECRET_KEY_PATTERN = /^sk_live_[A-Za-z0-9]{32}$/;
/** Characters of a key kept for display (`prefix`): enough to tell keys apart, never enough to use. */
export const KEY_PREFIX_LENGTH = 12;

/** Ours: server secrets a site keeps at once (one per edge or server is the use; rotation replaces one). */
export const SITE_KEY_LIMITS = { secretsPerSite: 20 } as const;

export const SITE_KEY_KINDS = ['public', 'secret'] as const;
export type SiteKeyKind = (typeof SITE_KEY_KINDS)[number];

export const SiteKeyRecord = z.object({
  id: zId,
  kind: z.enum(SITE_KEY_KINDS),
  value: z
    .string()
    .nullable()
    .describe('The full key: always for a public key; for a secret only in the answer that creates or rotates it, else null'),
  prefix: z.string().describe('The first 12 characters of the key, to tell keys apart'),
  createdAt: zTimestamp,
  shownOnce: z.boolean().describe('true only in the answer that created (or rotated) a secret: store its value now'),
});
export type SiteKeyRecord = z.infer<typeof SiteKeyRecord>;

export const SiteKeyList = z.object({ keys: z.array(SiteKeyRecord) });
export type SiteKeyList = z.infer<typeof SiteKeyList>;

export const SiteKeyOutput = z.object({ key: SiteKeyRecord });
export type SiteKeyOutput = z.infer<typeof SiteKeyOutput>;

export const CreateSiteKeyInput = z
  .object({
    id: zId,
    kind: z
      .enum(['secret', 'public'], { error: 'Use kind secret (a server secret) or public (a public key)' })
      .describe(
        'secret: a server secret (sk_live_…) for the edge worker SDK and the first-party proxy; public: a new public key (pk_…) for a site whose public key was deleted (a site has at most one: rotate it to replace it)',
      ),
  })
  .strict();
export type CreateSiteKeyInput = z.infer<typeof CreateSiteKeyInput>;

export const SiteKeyParams = z.object({ id: zId, keyId: zId }).strict();
export type SiteKeyParams = z.infer<typeof SiteKeyParams>;
