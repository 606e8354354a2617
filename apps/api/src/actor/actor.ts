import type { Session, User } from '@us/db';
import type { Role, Scope } from '@us/shared';
import type { CallerToken } from './token-cache.ts';

/**
 * Who is calling: a signed-in person (the `us_session` cookie), an API token or a shared link's viewer,
 * with the workspace they act in, the scopes they hold there and, for a site-restricted token (or a
 * shared link), the sites they may see.
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

/**
 * Whoever opened a shared link (`X-Share-View`, tRPC face only): reads one site's dashboard figures and
 * nothing else. Only procedures whose meta says `shareable` let it in (procedures/authorize.ts).
 */
export type ShareActor = {
  type: 'share';
  shareId: string;
  workspaceId: string;
  role: null;
  scopes: Scope[];
  siteIds: string[];
};

export type Actor = PersonActor | TokenActor | ShareActor;
