import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Site } from './site.ts';

/**
 * A hostname of a site. Verified by a TXT record `_svc.<hostname>` = `svc-verify=<verifyToken>`, or, in
 * proxy mode, live (`edgeStatus` active) once its records are seen: by the service's own DNS check (built-in
 * ingress, no `edgeId`) or by the edge platform's validation of the custom hostname (`edgeId`).
 */
export const SiteHostname = defineEntity({
  name: 'SiteHostname',
  tableName: 'site_hostnames',
  properties: {
    site: () => p.manyToOne(Site).primary().deleteRule('cascade'),
    hostname: p.string().length(253).primary().index(),
    proxy: p.boolean().default(false),
    origin: p.text().nullable(),
    verifyToken: p.string().length(64),
    verifiedAt: p.datetime().nullable(),
    edgeId: p.string().length(128).nullable(),
    edgeStatus: p.string().length(32).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** When the built-in ingress's job last looked up a pending proxy hostname's records (its turns). */
    ingressCheckedAt: p.datetime().nullable(),
  },
});
export type SiteHostname = InferEntity<typeof SiteHostname>;
