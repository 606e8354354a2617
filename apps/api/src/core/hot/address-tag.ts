import { hash } from 'node:crypto';

/**
 * Client addresses as hot-state keys name them: hashed with a key of the deployment's own (derived from
 * APP_SECRET), never plainly and never with a hash anyone can compute. A plain SHA-256 of an address is read back by
 * hashing all four billion IPv4 addresses (minutes on one core), and Redis keeps its keys on disk (`appendonly`).
 */
export const tagOf = (key: string, text: string) => hash('sha256', `${key}\n${text}`, 'base64url').slice(0, 22);

/** The key of a deployment's tags: every node has the same APP_SECRET, so budgets counted by address are shared. */
export const tagKeyOf = (appSecret: string) => hash('sha256', `hot-state address tags\n${appSecret}`, 'base64url');
