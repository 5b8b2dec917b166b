import { Inject, Injectable } from '@nestjs/common';
import { timingSafeEqual } from 'node:crypto';
import { collectDefaultMetrics, Counter, CounterConfiguration, Gauge, GaugeConfiguration, Histogram, HistogramConfiguration, Registry } from 'prom-client';
import { APP_CONFIG, AppConfig } from '../config/config';

/** Node's process metrics (CPU, memory, event loop, GC), collected once per process. */
let processMetrics: Registry | undefined;

/**
 * Why the public sign-up took nothing: refused with challenge_failed (challenge), or dropped without a word
 * and the usual answer (the others); the values of waitlist_signups_refused_total's reason label, one a line.
 */
export const SIGNUP_REFUSALS = [
  'challenge',
  'honeypot',
  'fill_time',
] as const;
export type SignupRefusal = (typeof SIGNUP_REFUSALS)[number];
/** The type under which daily_event_counts keeps a product's day of these, for the overview. */
export const refusedCountType = (reason: SignupRefusal): string => `refused:${reason}`;

/** A scrape's answer: the exposition, or 401 when METRICS_TOKEN is set and not sent. */
export interface Scrape {
  status: 200 | 401;
  contentType: string;
  body: string;
}

/**
 * One app's Prometheus metrics, in a registry of its own (the tests run the three apps in one
 * process), exposed with the process's metrics. Each part of an app makes its families here once.
 * Labels come from short fixed lists (a route template, a queue, an outcome): never an address, a
 * code, an entry id or a URL.
 */
@Injectable()
export class Metrics {
  private readonly registry = new Registry();
  private readonly token: Buffer | undefined;
  private refusedSignups?: Counter<'reason'>;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.token = config.METRICS_TOKEN === undefined ? undefined : Buffer.from(`Bearer ${config.METRICS_TOKEN}`);
    if (!processMetrics) {
      processMetrics = new Registry();
      collectDefaultMetrics({ register: processMetrics });
    }
  }

  counter<L extends string>(config: Omit<CounterConfiguration<L>, 'registers'>): Counter<L> {
    return new Counter({ ...config, registers: [this.registry] });
  }

  gauge<L extends string>(config: Omit<GaugeConfiguration<L>, 'registers'>): Gauge<L> {
    return new Gauge({ ...config, registers: [this.registry] });
  }

  histogram<L extends string>(config: Omit<HistogramConfiguration<L>, 'registers'>): Histogram<L> {
    return new Histogram({ ...config, registers: [this.registry] });
  }

  /**
   * waitlist_signups_refused_total, one family whichever part of the api drops a sign-up, made at its
   * first use with every reason at 0 (so a rate over it starts from the process's start).
   */
  signupsRefused(): Counter<'reason'> {
    if (!this.refusedSignups) {
      this.refusedSignups = this.counter({ name: 'waitlist_signups_refused_total', help: 'Public sign-ups refused (challenge) or dropped without a word (honeypot, fill_time) before anything was stored, by reason', labelNames: ['reason'] });
      for (const reason of SIGNUP_REFUSALS) this.refusedSignups.inc({ reason }, 0);
    }
    return this.refusedSignups;
  }

  /** The answer to GET /metrics with this Authorization header. */
  async scrape(authorization: string | undefined): Promise<Scrape> {
    if (this.token && !sameBytes(this.token, authorization ?? '')) {
      return { status: 401, contentType: 'application/json', body: JSON.stringify({ error: { code: 'unauthorized', message: 'Send the metrics token as a Bearer token.' } }) };
    }
    const registry = Registry.merge([this.registry, processMetrics!]);
    return { status: 200, contentType: registry.contentType, body: await registry.metrics() };
  }
}

function sameBytes(expected: Buffer, actual: string): boolean {
  const given = Buffer.from(actual);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
