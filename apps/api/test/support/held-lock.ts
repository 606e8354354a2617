import type { Orm } from '@us/db';

/**
 * Runs `fn` while another connection (of `locker`, a pool of its own) holds the locks `take` takes inside its
 * transaction; they are released when `fn` ends, however it ends. For attack tests that need a question to
 * wait until its statement timeout, deterministically.
 */
export async function whileHolding<T>(
  locker: Orm,
  take: (trx: ReturnType<Orm['em']['fork']>) => Promise<unknown>,
  fn: () => Promise<T>,
): Promise<T> {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const tx = locker.em.fork().transactional(async (trx) => {
    await take(trx);
    locked();
    await held;
  });
  // A failure to take the locks ends the transaction before `locked`: surfaced instead of waiting forever.
  await Promise.race([isLocked, tx]);
  try {
    return await fn();
  } finally {
    release();
    await tx;
  }
}
