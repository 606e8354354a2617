/** Resolves when `p` settles or after `ms`, whichever comes first: true when `p` settled in time. */
export async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    p.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(false), ms))),
  ]);
  clearTimeout(timer);
  return settled;
}
