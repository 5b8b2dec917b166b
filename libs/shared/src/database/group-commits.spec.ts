import { groupCommits } from './group-commits';

describe(groupCommits.name, () => {
  it('runs one batch at a time, each with what was asked while the one before it ran, and answers each caller its own', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const firstHeld = new Promise<void>((resolve) => (release = resolve));
    const double = groupCommits<number, number>(async (items) => {
      batches.push([...items]);
      if (batches.length === 1) await firstHeld;
      return items.map((item) => (item === 13 ? new Error('unlucky') : item * 2));
    });
    const first = double(1);
    while (batches.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const later = [double(2), double(3), double(13)];
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]);
    release();
    expect(await first).toBe(2);
    expect(await Promise.allSettled(later)).toEqual([
      { status: 'fulfilled', value: 4 },
      { status: 'fulfilled', value: 6 },
      { status: 'rejected', reason: new Error('unlucky') },
    ]);
    expect(batches).toEqual([[1], [2, 3, 13]]);
  });

  it('fails every caller of a batch whose work throws, and runs the next batch', async () => {
    let fail = true;
    const echo = groupCommits<string, string>(async (items) => {
      if (fail) throw new Error('database away');
      return [...items];
    });
    await expect(Promise.all([echo('a'), echo('b')])).rejects.toThrow('database away');
    fail = false;
    expect(await echo('c')).toBe('c');
  });

  it('with a gathering time, holds a batch that long after its first item, even while nothing else runs', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const batches: number[][] = [];
      const echo = groupCommits<number, number>(async (items) => (batches.push([...items]), [...items]), 200, 50);
      const answers = [echo(1)];
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
      answers.push(echo(2));
      jest.advanceTimersByTime(49);
      await new Promise((resolve) => setImmediate(resolve));
      expect(batches).toEqual([]);
      jest.advanceTimersByTime(1);
      expect(await Promise.all(answers)).toEqual([1, 2]);
      expect(batches).toEqual([[1, 2]]);
    } finally {
      jest.useRealTimers();
    }
  });
});
