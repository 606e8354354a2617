// Request and answer schemas of site hostnames and the internal link (spec §2 Hostname, §4 Sites).
import { z } from 'zod';
import { zId, zTimestamp } from './common.ts';

/** Spec §8: hostnames per site, verification checks per site per hour, internal link and mark lifetimes. */
export const HOSTNAME_LIMITS = {
  perSite: 50,
  verifyChecksPerHour: 30,
  internalLinkTtlSeconds: 10 * 60,
  internalMarkTtlSeconds: 90 * 24 * 3600,
} as const;
/** The first-party cookie carrying the internal mark. */
export const INTERNAL_MARK_COOKIE = 'us_internal';

/**
 * A hostname as typed; normalised and checked by the service with `normaliseHostname`, so its refusal
 * reads as an instruction (scheme, path, port) rather than a schema message.
 */
const zHostnameText = z.string().max(1000, 'Use a hostname of at most 253 characters');

/** The TXT record that proves control of an ordinary hostname. */
export const HostnameVerificationRecord = z.object({
  type: z.literal('TXT'),
  name: z.string().describe('_svc.<hostname>'),
  value: z.string().describe('svc-verify=<token>'),
});

/** A DNS record a proxy-mode hostname needs. */
export const ProxyDnsRecord = z.object({
  type: z.enum(['CNAME', 'TXT']),
  name: z.string(),
  value: z.string(),
  purpose: z
    .enum(['traffic', 'ownership', 'certificate'])
    .describe(
      'traffic: points the hostname at the proxy; ownership: proves the hostname is yours (_svc.<hostname>, or a record the edge platform asks for); certificate: asked for by the edge platform',
    ),
});

/** Live state of a proxy-mode hostname (the built-in ingress's, or the edge platform's), and the DNS records still needed. */
export const HostnameProxyStatus = z.object({
  status: z
    .string()
    .describe(
      'pending until the DNS records are seen, active once live (served through the proxy); with an edge platform its status, missing when it no longer knows it',
    ),
  sslStatus: z
    .string()
    .nullable()
    .describe("The edge platform's certificate status, e.g. pending_validation, active; null on the built-in ingress"),
  live: z
    .boolean()
    .describe(
      'true when the status is current (the built-in ingress, or read from the edge platform just now); false when the edge platform could not be reached (last known status)',
    ),
  origin: z.string().nullable().describe('Where requests to the hostname are forwarded'),
  records: z.array(ProxyDnsRecord),
});

/** One hostname of a site, as the single-hostname routes answer it. */
export const HostnameDetail = z.object({
  hostname: z.string(),
  proxy: HostnameProxyStatus.nullable().describe('Live proxy status for a proxy-mode hostname; null otherwise'),
  verifiedAt: zTimestamp.nullable(),
  verification: HostnameVerificationRecord.nullable().describe(
    'The TXT record to add, while an ordinary hostname is unverified; null when verified, and for proxy-mode hostnames (see proxy.records)',
  ),
  createdAt: zTimestamp,
});
export type HostnameDetail = z.infer<typeof HostnameDetail>;

export const CreateHostnameInput = z
  .object({
    id: zId,
    hostname: zHostnameText.describe('Bare hostname such as www.example.com (no scheme, path or port)'),
    proxy: z.boolean().optional().describe('Serve the hostname through the proxy (proxy mode)'),
    origin: z
      .string()
      .max(2048, 'Use an origin URL of at most 2048 characters')
      .optional()
      .describe('For proxy mode (required there): the http(s) URL requests are forwarded to, e.g. https://origin.example.com'),
  })
  .strict();

export const SiteHostnameParams = z.object({ id: zId, hostname: zHostnameText }).strict();

export const VerifyHostnameOutput = z.object({
  verified: z.boolean(),
  message: z.string().optional().describe('When not verified: what to add or wait for'),
});

export const InternalLinkInput = z
  .object({
    id: zId,
    hostname: zHostnameText.describe('A verified or proxy-mode hostname of the site; the link is on its /_us/ path'),
  })
  .strict();

export const InternalLinkOutput = z.object({
  url: z.string().describe('Open it in each browser of your team; valid ten minutes, once per browser'),
  expiresAt: zTimestamp,
});

export const InternalLinkRotateInput = z.object({ id: zId }).strict();

export const InternalLinkRotateOutput = z.object({ rotated: z.boolean() });
