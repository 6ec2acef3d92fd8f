// Types of zlink's prom-client collector (lib/metrics.js). prom-client is
// not a dependency of zlink: these are the shapes its Registry reads, so a
// prom-client `Registry` is accepted as it is.

import type { MetricKindName } from './codes';
import type { Runtime } from './index';

/** What `registerMetrics` needs of a registry: prom-client's `Registry` has it. */
export interface MetricsRegistry {
  // `any`: prom-client types it as its own metric classes, which a zlink
  // metric is not (it only has what the registry reads of them).
  registerMetric(metric: any): void;
  getSingleMetric(name: string): unknown;
  removeSingleMetric(name: string): void;
}

/** One sample as prom-client's registry prints it. */
export interface ZlinkMetricValue {
  value: number;
  /** The family's label (`result`, `reason`) if it has one; a histogram's `le` (seconds, or '+Inf'). */
  labels: Record<string, string | number>;
  /** A histogram's `<name>_bucket`, `<name>_sum` or `<name>_count`. */
  metricName?: string;
}

/** One metric family as a prom-client metric: what `registry.registerMetric` takes. */
export interface ZlinkMetric {
  readonly name: string;
  readonly help: string;
  readonly type: MetricKindName;
  readonly aggregator: 'sum';
  readonly labelNames: string[];
  /** Its samples now: counts as numbers, durations and `le` bounds in seconds. */
  get(): Promise<{
    name: string; help: string; type: MetricKindName; values: ZlinkMetricValue[]; aggregator: 'sum';
  }>;
  /** Does nothing: the runtime's counts are not reset (`registry.resetMetrics()` calls it). */
  reset(): void;
}

/** What `registerMetrics` registered. */
export interface RegisteredMetrics {
  /** The Prometheus names of the families registered (e.g. `zlink_cache_hits_total`). */
  readonly names: readonly string[];
  /** Removes them from the registry. */
  unregister(): void;
}

/**
 * Registers every metric family of `runtime` (its counters, then its latency histograms) in a
 * prom-client `registry`. A scrape reads `runtime.metrics()` once for all of them; counts are
 * numbers, durations and histogram bounds seconds. Once the runtime is closed its families report
 * no samples. Throws an InputError for a wrong argument (`NotARuntime`, `NotARegistry`), a
 * ClosedError for a closed runtime, and prom-client's error when a name is already registered in
 * `registry` (then it registers nothing): one runtime per registry.
 */
export function registerMetrics(runtime: Runtime, registry: MetricsRegistry): RegisteredMetrics;
