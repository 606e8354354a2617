import type { Session, User } from '@us/db';
import type { Role, Scope } from '@us/shared';
import type { CallerToken } from './token-cache.ts';

/**
 * Who is calling: a signed-in person (the `us_session` cookie) or an API token, with the workspace they
 * act in, the scopes they hold there and, for a site-restricted token, the sites they may see.
 */
export type PersonActor = {
  type: 'user';
  user: User;
  session: Session;
  /** null for a person who belongs to no workspace yet. */
  workspaceId: string | null;
  role: Role | null;
  scopes: Scope[];
  siteIds: null;
};

export type TokenActor = {
  type: 'token';
  token: CallerToken;
  workspaceId: string;
  role: null;
  scopes: Scope[];
  /** The token's site restriction; null for every site of the workspace. */
  siteIds: string[] | null;
};

export type Actor = PersonActor | TokenActor;
