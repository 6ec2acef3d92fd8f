'use strict';
// zlink's metrics in prom-client, without depending on it: the caller
// gives its own prom-client `Registry`, and `registerMetrics` registers one
// metric object per family of `rt.metrics()` (the counters, then the
// latency histograms, named once in the bridge: bridge/src/metrics.rs).
// Each object is what prom-client's registry reads from its own metrics
// (`registry.registerMetric(metric)`, then `await metric.get()` on every
// scrape), so `registry.metrics()`, `getMetricsAsJSON()`, OpenMetrics and
// the cluster aggregator all see them as prom-client metrics.
//
// A scrape reads the runtime once: the registry asks every metric for its
// values in one synchronous pass, and the first to ask reads `rt.metrics()`
// for all of them (the read is kept until that pass is over; a registry
// asking one metric at a time would read once per metric, still right).
// Counts become
// numbers, nanoseconds seconds. Once the runtime is closed, the families
// report no samples (their HELP and TYPE lines stay): a scrape never fails
// because one runtime was closed.

const { ClosedError, InputError } = require('./errors.js');

const NANOS = 1e9;

/**
 * Registers every metric family of `runtime` in `registry` (a prom-client
 * Registry): `{ names, unregister() }`. Throws an InputError for a wrong
 * argument, a ClosedError for a closed runtime, and prom-client's own
 * error when a name is already registered there (then it registers none).
 */
function registerMetrics(runtime, registry) {
  if (runtime === null || typeof runtime !== 'object' || typeof runtime.metrics !== 'function') {
    throw new InputError('runtime must be a zlink Runtime', 'NotARuntime');
  }
  if (registry === null || typeof registry !== 'object' || typeof registry.registerMetric !== 'function') {
    throw new InputError('registry must be a prom-client Registry (it has registerMetric)', 'NotARegistry');
  }
  const read = snapshots(runtime);
  // The families a runtime has are fixed (bridge/src/metrics.rs): read once
  // now for their names, help and kinds. A closed runtime throws here.
  const metrics = runtime.metrics().map((f) => new ZlinkMetric(f, read));
  const registered = [];
  try {
    for (const m of metrics) {
      registry.registerMetric(m);
      registered.push(m);
    }
  } catch (e) {
    // A name already taken (a second runtime on one registry): take back
    // what this call registered, so it changes nothing.
    unregister(registry, registered);
    throw e;
  }
  return Object.freeze({
    names: Object.freeze(metrics.map((m) => m.name)),
    unregister: () => unregister(registry, metrics),
  });
}

function unregister(registry, metrics) {
  for (const m of metrics) {
    const key = m[FAMILY];
    // Only if the name is still this metric's (not one registered since).
    if (typeof registry.getSingleMetric !== 'function' || registry.getSingleMetric(key) === m) {
      registry.removeSingleMetric(key);
    }
  }
}

const FAMILY = Symbol('zlink family');

/**
 * The reader one registration's metrics share: the runtime's families by
 * name, read at the first `get()` of a scrape and kept until the
 * registry's synchronous pass over its metrics is over (a microtask
 * later), so one scrape reads `rt.metrics()` once. A failed read (other
 * than a closed runtime) is kept too: the scrape rejects once with it.
 */
function snapshots(runtime) {
  let current = null;
  return () => {
    if (current === null) {
      current = readOnce(runtime);
      queueMicrotask(() => { current = null; });
    }
    if (current.error !== undefined) throw current.error;
    return current.families;
  };
}

const NONE = new Map();

function readOnce(runtime) {
  if (runtime.closed === true) return { families: NONE };
  try {
    return { families: new Map(runtime.metrics().map((f) => [f.name, f])) };
  } catch (error) {
    if (error instanceof ClosedError) return { families: NONE };
    return { error };
  }
}

/**
 * One metric family as prom-client reads its own metrics: `name`, `help`,
 * `type`, `aggregator`, and `get()` (its values now).
 */
class ZlinkMetric {
  #read;

  constructor(family, read) {
    this.name = family.name;
    this.help = family.help;
    this.type = family.kind;
    this.aggregator = 'sum';
    this.labelNames = family.label === '' ? [] : [family.label];
    // The registry's key: an OpenMetrics scrape renames a counter (it
    // drops `_total` from `name`), so the family is looked up by this.
    this[FAMILY] = family.name;
    this.#read = read;
  }

  async get() {
    const family = this.#read().get(this[FAMILY]);
    return {
      name: this.name,
      help: this.help,
      type: this.type,
      values: family === undefined ? [] : values(family, this.name),
      aggregator: this.aggregator,
    };
  }

  /** prom-client's `registry.resetMetrics()` calls it; the runtime's counts are not reset. */
  reset() {}
}

function values(family, name) {
  const labels = (s) => (family.label === '' ? {} : { [family.label]: s.labelValue });
  if (family.kind !== 'histogram') {
    return family.samples.map((s) => ({ value: Number(s.value), labels: labels(s) }));
  }
  const bounds = family.boundsNs.map((b) => Number(b) / NANOS);
  const out = [];
  for (const s of family.samples) {
    const base = labels(s);
    bounds.forEach((le, i) => {
      out.push({ value: Number(s.buckets[i]), labels: { ...base, le }, metricName: `${name}_bucket` });
    });
    const count = Number(s.value);
    out.push({ value: count, labels: { ...base, le: '+Inf' }, metricName: `${name}_bucket` });
    out.push({ value: Number(s.sumNs) / NANOS, labels: base, metricName: `${name}_sum` });
    out.push({ value: count, labels: base, metricName: `${name}_count` });
  }
  return out;
}

module.exports = { registerMetrics };
