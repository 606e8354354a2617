/**
 * `fn` over every item, at most `limit` running at once, the answers in the items' order: work that
 * shares a pool (database connections, a workspace's query slots) runs side by side without taking it all.
 * Once one fails no further item starts, and the failure is thrown only when the items already running have
 * ended: work left running after the caller returned (and gave its slot back) ran on without a slot.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const answers: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed) {
      const i = next++;
      try {
        answers[i] = await fn(items[i] as T, i);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const ended = await Promise.allSettled(Array.from({ length: Math.min(limit, items.length) }, worker));
  const failure = ended.find((e) => e.status === 'rejected');
  if (failure) throw failure.reason;
  return answers;
}

/**
 * `Promise.all` that waits for every promise to end before it throws the first failure, for the same reason:
 * statements a question runs side by side keep their connections until they end, slot or no slot.
 */
export async function allEnded<T extends readonly unknown[] | []>(
  promises: T,
): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const ended = (await Promise.allSettled(promises)) as PromiseSettledResult<unknown>[];
  const failure = ended.find((e): e is PromiseRejectedResult => e.status === 'rejected');
  if (failure) throw failure.reason;
  return ended.map((e) => (e as PromiseFulfilledResult<unknown>).value) as { -readonly [P in keyof T]: Awaited<T[P]> };
}
