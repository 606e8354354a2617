import { AppError } from '../errors.ts';
import type { Actor } from './credentials.ts';

/** The signed-in person behind a person-only procedure (the middleware has already checked). */
export function personOf(actor: Actor | null) {
  if (actor?.type !== 'user') throw new AppError(403, 'Only a signed-in person can do this: sign in to the dashboard');
  return actor;
}
