import DataLoader from 'dataloader';

/**
 * One statement (or transaction) for what many callers ask at about the same time, instead of one
 * each: a batch runs as soon as the one before it has ended (a group commit), so nobody waits while
 * the database is idle, and under load each batch takes whatever came in meanwhile, up to `maxBatch`.
 * `work` answers each item in its place, with a value or an Error for that caller alone; if it throws,
 * every caller of its batch gets the error. With `gatherMs`, a batch also waits that long after its
 * first item, for callers that come one by one (each at the end of its own work) to share a statement.
 */
export function groupCommits<I, O>(work: (items: readonly I[]) => Promise<(O | Error)[]>, maxBatch = 200, gatherMs = 0): (item: I) => Promise<O> {
  let previous: Promise<unknown> = Promise.resolve();
  const loader = new DataLoader<I, O>(
    (items) => {
      const batch = work(items);
      previous = batch.catch(() => undefined);
      return batch;
    },
    {
      cache: false,
      maxBatchSize: maxBatch,
      batchScheduleFn: gatherMs
        ? (dispatch) => void Promise.all([previous, new Promise((resolve) => setTimeout(resolve, gatherMs))]).then(dispatch)
        : (dispatch) => void previous.then(() => setImmediate(dispatch)),
    },
  );
  return (item) => loader.load(item);
}
