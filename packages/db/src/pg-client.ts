// A pool's client as the COPY streams use it, on its own so a module that needs only this (the rollup thread's)
// is reached as `@us/db/pg-client` without loading the ORM and the migrations with the package's index.

/** What of a `pg` pool's client a COPY stream needs (structural, so `pg`'s types are not needed here). */
export interface PgClient {
  query<T>(query: T): T;
  escapeLiteral(value: string): string;
  release(err?: Error | boolean): void;
}
export interface PgPool {
  connect(): Promise<PgClient>;
}

/** Gives `client` back to its pool once, however many paths end its use; with an error it is discarded. */
export function releaseOnce(client: PgClient): (err?: Error) => void {
  let released = false;
  return (err) => {
    if (released) return;
    released = true;
    client.release(err ?? false);
  };
}
