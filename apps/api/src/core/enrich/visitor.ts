import { hash, randomBytes } from 'node:crypto';
import { utcDay } from '@us/db';
import type { HotStore } from '../hot/store.ts';

/**
 * Cookie-free visitor codes.
 *
 * - Each UTC day has its own random secret ("salt"), created by whichever node needs it first and kept in the
 *   shared HotStore under `salt:<YYYY-MM-DD>` (set-if-absent, so every node agrees; TTL 48 h, so yesterday's salt
 *   disappears by itself and is never written anywhere else).
 * - A visitor's code for the day is base64url(sha256(salt|siteId|ip|ua)) truncated to 16 bytes (22 characters).
 * - Without the salt the code cannot be recomputed from an address, and once the salt is gone nobody (the service
 *   included) can link a visitor's codes across days or across sites. The IP address and the user-agent string
 *   are inputs only: they are never returned or stored by this module.
 */
export const SALT_TTL_SECONDS = 48 * 3600;

/**
 * Per-store cache of the current day's salt, so a request normally costs no HotStore round-trip. `shared`: the
 * store's own; otherwise the node's own, counted with while the store did not answer, and offered to the store
 * again at `retryAt` (every SALT_RETRY_MS), so the node joins the others as soon as the store is back. A shared
 * salt is offered again every SALT_RECHECK_MS too: a store that lost it (a restart without persistence, a
 * failover) gets it back before a node started since makes another, and a node holding another takes the store's.
 */
const cache = new WeakMap<HotStore, { day: string; salt: string; shared: boolean; retryAt: number }>();
const SALT_RETRY_MS = 10_000;
const SALT_RECHECK_MS = 60_000;

export async function dailySalt(hot: HotStore, now: Date | number = Date.now()): Promise<string> {
  const day = utcDay(now);
  const hit = cache.get(hot);
  const today = hit?.day === day ? hit : undefined;
  if (today && Date.now() < today.retryAt) return today.salt;
  // One caller at a time offers the node's salt again; the others count with it meanwhile.
  if (today) today.retryAt = Date.now() + (today.shared ? SALT_RECHECK_MS : SALT_RETRY_MS);
  const key = `salt:${day}`;
  const candidate = today?.salt ?? randomBytes(32).toString('base64url');
  let salt = candidate;
  let shared = true;
  try {
    if (!(await hot.setIfAbsent(key, candidate, SALT_TTL_SECONDS))) {
      salt = (await hot.get(key)) ?? candidate;
    }
  } catch {
    // The shared store is unreachable: this node counts with a salt of its own rather than refusing reports (a
    // visitor seen by two nodes then counts twice), and offers it to the store again in a few seconds.
    shared = false;
  }
  // Only cache today's salt (a caller asking about another day must not replace it).
  const retryAt = Date.now() + (shared ? SALT_RECHECK_MS : SALT_RETRY_MS);
  if (!hit || hit.day <= day) cache.set(hot, { day, salt, shared, retryAt });
  return salt;
}

export function visitorCode(salt: string, siteId: string, ip: string, ua: string): string {
  // One-shot `hash` (no Hash object): the same digest, cheaper on the busiest route.
  return hash('sha256', `${salt}|${siteId}|${ip}|${ua}`, 'buffer').subarray(0, 16).toString('base64url');
}
