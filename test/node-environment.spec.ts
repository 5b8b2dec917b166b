import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import NodeEnvironment from './support/node-environment';
import { waitFor } from './support/wait';

/** The test environment closes the process-wide monitors a file opened, which would keep its module registry alive. */
describe('the test environment', () => {
  const config = { globalConfig: {}, projectConfig: { testEnvironmentOptions: {}, globals: {} } };
  const context = { console, docblockPragmas: {}, testPath: __filename };
  const marksSeenBy = (seen: string[]) => new PerformanceObserver((list) => seen.push(...list.getEntries().map((entry) => entry.name)));

  it('disconnects the PerformanceObservers and disables the event-loop histograms opened during its file, and only those', async () => {
    const [before, seenBefore] = [monitorEventLoopDelay(), [] as string[]];
    before.enable();
    const control = marksSeenBy(seenBefore);
    control.observe({ entryTypes: ['mark'] });

    const environment = new NodeEnvironment(config as never, context as never);
    await environment.setup();
    const histogram = monitorEventLoopDelay({ resolution: 10 });
    histogram.enable();
    const seen: string[] = [];
    marksSeenBy(seen).observe({ entryTypes: ['mark'] });
    await environment.teardown();

    performance.mark('after the file');
    await waitFor(() => seenBefore.includes('after the file'), 'the mark reaching the observer made before the file');
    expect(seen).toEqual([]);
    // enable() answers whether the histogram was disabled.
    expect(histogram.enable()).toBe(true);
    expect(before.enable()).toBe(false);
    for (const opened of [histogram, before]) opened.disable();
    control.disconnect();
  });
});
