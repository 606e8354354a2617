import { randomBytes } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Site, SiteKey } from '@us/db';
import {
  type CreateSiteKeyInput,
  KEY_PREFIX_LENGTH,
  SITE_KEY_LIMITS,
  type SiteKeyKind,
  type SiteKeyList,
  type SiteKeyOutput,
  type SiteKeyRecord,
} from '@us/shared';
import { isUuid, loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import { AppError } from '../../core/errors.ts';
import { sha256 } from '../../core/security/tokens.ts';

const LOWER_ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` characters drawn uniformly from `alphabet` (rejection sampling: no modulo bias). */
function randomChars(alphabet: string, length: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** `pk_` and 26 lower-case letters and digits (about 134 bits). */
export const newPublicKey = () => `pk_${randomChars(LOWER_ALNUM, 26)}`;
/** `sk_live_` and 32 base62 characters (about 190 bits). */
export const newSecretKey = () => `sk_live_${randomChars(BASE62, 32)}`;

/**
 * A new key row of `kind` for the site (not flushed), with its full value. A public key is stored in
 * full; a secret only as its SHA-256, so its value exists only in this answer.
 */
export function createKeyRow(em: EntityManager, siteId: string, kind: SiteKeyKind): { row: SiteKey; value: string } {
  const value = kind === 'public' ? newPublicKey() : newSecretKey();
  const row = em.create(SiteKey, {
    site: siteId,
    kind,
    publicValue: kind === 'public' ? value : null,
    secretHash: kind === 'secret' ? sha256(value) : null,
    prefix: value.slice(0, KEY_PREFIX_LENGTH),
  });
  return { row, value };
}

/**
 * A key as the routes answer it: a public key always in full; a secret's value only when `shown` (the
 * answer that created or rotated it), which is also the one answer with `shownOnce` true.
 */
export function keyRecord(row: SiteKey, shown?: string): SiteKeyRecord {
  const isPublic = row.kind === 'public';
  return {
    id: row.id,
    kind: isPublic ? 'public' : 'secret',
    value: isPublic ? (row.publicValue ?? null) : (shown ?? null),
    prefix: row.prefix,
    createdAt: row.createdAt.toISOString(),
    shownOnce: !isPublic && shown !== undefined,
  };
}

const NO_KEY = () =>
  new AppError(404, 'No such key on this site: it may have been rotated or deleted; list the keys with GET /v1/sites/{id}/keys');

export async function listKeys(em: EntityManager, actor: Actor, siteId: string): Promise<SiteKeyList> {
  const site = await loadSite(em, actor, siteId);
  const rows = await em.find(SiteKey, { site: site.id }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return { keys: rows.map((r) => keyRecord(r)) };
}

/** The site's public key (what its snippet carries), or null when it was deleted and none was made since. */
export function publicKeyOf(em: EntityManager, siteId: string): Promise<SiteKey | null> {
  return em.findOne(SiteKey, { site: siteId, kind: 'public' }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/**
 * A new key: a server secret (its value is in this answer only), or a public key for a site that has none
 * (its public key was deleted). A site has at most one public key: with one, this is 409 (rotate it). The
 * site row is locked, so two requests at once make one public key (the second finds it: 409).
 */
export async function createKey(em: EntityManager, actor: Actor, input: CreateSiteKeyInput): Promise<SiteKeyOutput> {
  if (input.kind === 'secret') {
    return em.transactional(async (tx) => {
      const site = await loadSite(tx, actor, input.id);
      // Counted under the site's row lock: secrets made at once each count the ones before them.
      await tx.findOne(Site, { id: site.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
      if ((await tx.count(SiteKey, { site: site.id, kind: 'secret' })) >= SITE_KEY_LIMITS.secretsPerSite) {
        throw new AppError(
          409,
          `This site has ${SITE_KEY_LIMITS.secretsPerSite} server secrets, the most it keeps: delete the ones no longer used (DELETE /v1/sites/{id}/keys/{keyId}) or rotate one`,
        );
      }
      const { row, value } = createKeyRow(tx, site.id, 'secret');
      await tx.flush();
      return { key: keyRecord(row, value) };
    });
  }
  return em.transactional(async (tx) => {
    const site = await loadSite(tx, actor, input.id);
    await tx.findOne(Site, { id: site.id }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
    const existing = await tx.count(SiteKey, { site: site.id, kind: 'public' });
    if (existing > 0) {
      throw new AppError(
        409,
        'This site already has a public key: rotate it with POST /v1/sites/{id}/keys/{keyId}/rotate to replace it',
      );
    }
    const { row } = createKeyRow(tx, site.id, 'public');
    await tx.flush();
    return { key: keyRecord(row) };
  });
}

/**
 * Replaces a key with a new one of the same kind in one transaction: the old row is deleted as the new
 * one is made, so the old key stops working at once. The key row is locked, so two rotations of the
 * same key cannot both succeed (the second finds it gone: 404).
 */
export async function rotateKey(em: EntityManager, actor: Actor, input: { id: string; keyId: string }): Promise<SiteKeyOutput> {
  return em.transactional(async (tx) => {
    const site = await loadSite(tx, actor, input.id);
    if (!isUuid(input.keyId)) throw NO_KEY();
    const old = await tx.findOne(
      SiteKey,
      { id: input.keyId, site: site.id },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    if (!old) throw NO_KEY();
    const kind: SiteKeyKind = old.kind === 'public' ? 'public' : 'secret';
    const { row, value } = createKeyRow(tx, site.id, kind);
    tx.remove(old);
    await tx.flush();
    return { key: keyRecord(row, kind === 'secret' ? value : undefined) };
  });
}

/**
 * Deletes a key, public or secret (spec §4); it stops working at once. Pages carrying a deleted public key
 * report nothing (the collector answers them as an unknown key) until the site gets a new public key
 * (`createKey` with kind public) and the pages the new snippet; the snippet and install status say so.
 */
export async function deleteKey(em: EntityManager, actor: Actor, input: { id: string; keyId: string }): Promise<void> {
  const site = await loadSite(em, actor, input.id);
  if (!isUuid(input.keyId)) throw NO_KEY();
  const deleted = await em.nativeDelete(SiteKey, { id: input.keyId, site: site.id });
  if (!deleted) throw NO_KEY();
}
