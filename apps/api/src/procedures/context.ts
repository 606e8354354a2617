import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../actor/actor.ts';
import type { RequestInfo } from '../actor/request-info.ts';
import type { Deps } from '../core/deps.ts';

/** What a procedure adds to the answer besides its body. */
export interface ResponseOut {
  headers: Record<string, string>;
  cookies: string[];
}

export interface Ctx {
  deps: Deps;
  em: EntityManager;
  req: RequestInfo;
  out: ResponseOut;
  /** The caller behind the request's credential, resolved once per request on first use. */
  resolveActor(): Promise<Actor | null>;
}
