// A part loaded when first used (a client or a list most nodes never need), kept once loaded.

export interface LoadOnce<T> {
  /** The part: loaded by the first call; a failed load is not kept, so the next call tries again. */
  (): Promise<T>;
  /** The load under way or done, without starting one (to close what was opened). */
  started(): Promise<T> | undefined;
}

export function loadOnce<T>(load: () => Promise<T>): LoadOnce<T> {
  let loading: Promise<T> | undefined;
  const get = () =>
    (loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    }));
  return Object.assign(get, { started: () => loading });
}
