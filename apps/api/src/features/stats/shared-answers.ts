// Answers of the dashboard's overview reads (live figures, sparklines) reused for a little while by every
// caller on the node: the key must hold everything the answer depends on (site ids, never the caller).

/** Answers reused for a little while, so many open tabs cost one question per site and node. */
const shared = new Map<string, { until: number; answer: Promise<unknown> }>();

export function sharedFor<T>(key: string, forMs: number, make: () => Promise<T>): Promise<T> {
  const now = Date.now();
  const hit = shared.get(key);
  if (hit && hit.until > now) return hit.answer as Promise<T>;
  if (shared.size > 5_000) shared.clear();
  const answer = make();
  shared.set(key, { until: now + forMs, answer });
  answer.catch(() => shared.delete(key));
  return answer;
}
