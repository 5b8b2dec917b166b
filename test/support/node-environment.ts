import { TestEnvironment } from 'jest-environment-node';
import perfHooks, { IntervalHistogram } from 'node:perf_hooks';

/**
 * jest's node environment, closing what a test file's apps leave open process-wide. prom-client's
 * process metrics (made once per module registry, so once per test file) start a GC PerformanceObserver
 * and an event-loop-delay histogram that live in Node's own lists, not the file's: they would keep each
 * finished file's whole module registry alive, and a worker's heap would grow by tens of MB a file. They
 * are noted as the file opens them and closed when it ends.
 */
export default class NodeEnvironment extends TestEnvironment {
  private readonly opened: (() => void)[] = [];
  private restore?: () => void;

  override async setup(): Promise<void> {
    await super.setup();
    const { opened } = this;
    const { monitorEventLoopDelay, PerformanceObserver } = perfHooks;
    const observe = PerformanceObserver.prototype.observe;
    PerformanceObserver.prototype.observe = function (this: perfHooks.PerformanceObserver, ...options) {
      opened.push(() => this.disconnect());
      return observe.apply(this, options);
    };
    (perfHooks as { monitorEventLoopDelay: typeof monitorEventLoopDelay }).monitorEventLoopDelay = (...options) => {
      const histogram: IntervalHistogram = monitorEventLoopDelay(...options);
      opened.push(() => histogram.disable());
      return histogram;
    };
    this.restore = () => {
      PerformanceObserver.prototype.observe = observe;
      (perfHooks as { monitorEventLoopDelay: typeof monitorEventLoopDelay }).monitorEventLoopDelay = monitorEventLoopDelay;
    };
  }

  override async teardown(): Promise<void> {
    this.restore?.();
    for (const close of this.opened.splice(0)) close();
    await super.teardown();
  }
}
