/**
 * What the bare baselines' drains share: `slots` workers taking rows from `waiting` until none is left,
 * each starting the read of the next page while fewer than `slots` rows wait (a short page is the last:
 * every row is committed before the drain starts), and all stopping at the first failure.
 */
export async function pagedWorkers<T>(
  slots: number,
  pages: { waiting: T[]; exhausted: () => boolean; failed: () => boolean; read: () => Promise<void> },
  work: (row: T) => Promise<void>,
): Promise<void> {
  const { waiting } = pages;
  await Promise.all(
    Array.from({ length: slots }, async () => {
      while (!pages.failed()) {
        if (waiting.length < slots && !pages.exhausted()) {
          const next = pages.read();
          if (!waiting.length) {
            await next;
            continue;
          }
        }
        const row = waiting.shift();
        if (!row) return;
        await work(row);
      }
    }),
  );
}
