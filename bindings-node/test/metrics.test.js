'use strict';
// zlink's metrics in prom-client (lib/metrics.js): a scrape through
// prom-client's own Registry, checked by promtool (the Prometheus project's
// parser and linter, installed by scripts/install-deps.sh) and against the
// runtime's own text exposition (bridge/src/metrics.rs, the reference).
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { AggregatorRegistry, Registry } = require('prom-client');
const z = require('..');

/** One sender that read an actor's route once from the store, then hit its cache. */
async function scraped() {
  const store = new z.MemoryStore();
  const owner = new z.Runtime({ mesh: 'main', rid: 1 }, { store });
  const sender = new z.Runtime({ mesh: 'main', rid: 2 }, { store });
  await owner.activate('actor', 'user-42');
  assert.equal((await sender.resolve('actor', 'user-42')).kind, 'ReadyRoute');
  assert.equal((await sender.resolve('actor', 'user-42')).kind, 'ReadyRoute');
  const registry = new Registry();
  const registered = z.registerMetrics(sender, registry);
  return { owner, sender, registry, registered };
}

/** The samples of a text exposition: `name{labels}` to its value. */
function samples(text) {
  const out = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** promtool's verdict on `text`; fails (not skips) when promtool is missing. */
function promtool(text) {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (run.error?.code === 'ENOENT') {
    assert.fail('promtool is not installed (scripts/install-deps.sh installs Debian\'s prometheus package)');
  }
  if (run.error) throw run.error;
  return run;
}

test('a prom-client scrape shows the store read, the cache hit and the resolutions', async () => {
  const { owner, sender, registry } = await scraped();
  const text = await registry.metrics();
  const got = samples(text);
  assert.equal(got.get('zlink_store_read_duration_seconds_count'), 1);
  assert.equal(got.get('zlink_store_read_duration_seconds_bucket{le="+Inf"}'), 1);
  assert.ok(got.get('zlink_store_read_duration_seconds_sum') > 0, 'the read took time');
  assert.equal(got.get('zlink_store_read_duration_seconds_bucket{le="10"}'), 1, 'bounds in seconds');
  assert.equal(got.get('zlink_cache_hits_total'), 1);
  assert.equal(got.get('zlink_resolutions_total{result="ready_route"}'), 2);
  assert.equal(got.get('zlink_resolutions_total{result="missing"}'), 0);
  assert.match(text, /^# TYPE zlink_store_read_duration_seconds histogram$/m);
  assert.match(text, /^# TYPE zlink_cache_entries gauge$/m);
  assert.match(text, /^# HELP zlink_cache_hits_total Resolutions answered by the route cache\.$/m);

  const check = promtool(text);
  assert.equal(check.status, 0, `promtool check metrics refused the scrape:\n${check.stdout}${check.stderr}`);

  // The same samples as the runtime's own text exposition (nothing ran in between).
  assert.deepEqual(got, samples(sender.metricsText()));
  owner.close();
  sender.close();
});

test('getMetricsAsJSON gives the families as prom-client metrics', async () => {
  const { owner, sender, registry, registered } = await scraped();
  const json = await registry.getMetricsAsJSON();
  assert.equal(json.length, sender.metrics().length);
  assert.deepEqual(json.map((m) => m.name), registered.names);
  const hits = json.find((m) => m.name === 'zlink_cache_hits_total');
  assert.deepEqual(hits, {
    name: 'zlink_cache_hits_total', help: 'Resolutions answered by the route cache.', type: 'counter',
    values: [{ value: 1, labels: {} }], aggregator: 'sum',
  });
  const reads = json.find((m) => m.name === 'zlink_store_read_duration_seconds');
  assert.equal(reads.type, 'histogram');
  assert.deepEqual(reads.values[0], { value: 1, labels: { le: 0.00005 }, metricName: 'zlink_store_read_duration_seconds_bucket' });
  assert.deepEqual(reads.values.at(-1), { value: 1, labels: {}, metricName: 'zlink_store_read_duration_seconds_count' });
  const resolutions = json.find((m) => m.name === 'zlink_resolutions_total');
  assert.deepEqual(resolutions.values[0], { value: 2, labels: { result: 'ready_route' } });
  owner.close();
  sender.close();
});

test('a scrape reads the runtime once for every family', async () => {
  const { owner, sender, registry } = await scraped();
  const read = sender.metrics.bind(sender);
  let reads = 0;
  sender.metrics = () => { reads += 1; return read(); };
  await registry.metrics();
  assert.equal(reads, 1);
  await registry.getMetricsAsJSON();
  assert.equal(reads, 2);
  owner.close();
  sender.close();
});

test('an OpenMetrics scrape names counters as OpenMetrics does', async () => {
  const { owner, sender, registry } = await scraped();
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
  const text = await registry.metrics();
  assert.match(text, /^# TYPE zlink_cache_hits counter$/m);
  assert.match(text, /^zlink_cache_hits_total 1$/m);
  assert.match(text, /^zlink_store_read_duration_seconds_count 1$/m);
  assert.ok(text.endsWith('# EOF\n'));
  owner.close();
  sender.close();
});

test('a closed runtime reports no samples, and the scrape still succeeds', async () => {
  const { owner, sender, registry } = await scraped();
  sender.close();
  const text = await registry.metrics();
  assert.equal(samples(text).size, 0);
  assert.match(text, /^# TYPE zlink_cache_hits_total counter$/m, 'the families stay');
  assert.equal(promtool(text).status, 0);
  const json = await registry.getMetricsAsJSON();
  assert.ok(json.every((m) => m.values.length === 0));
  // Registering a closed runtime is refused.
  assert.throws(() => z.registerMetrics(sender, new Registry()), z.ClosedError);
  owner.close();
});

test('one runtime per registry; unregister removes its families; arguments are checked', async () => {
  const { owner, sender, registry, registered } = await scraped();
  const before = registry.getMetricsAsArray().length;
  assert.throws(() => z.registerMetrics(owner, registry), /already been registered/);
  assert.equal(registry.getMetricsAsArray().length, before, 'a refused registration registers nothing');
  registered.unregister();
  assert.equal(registry.getMetricsAsArray().length, 0);
  z.registerMetrics(owner, registry);
  assert.equal(samples(await registry.metrics()).get('zlink_store_writes_unreplicated_total'), 0);
  assert.throws(() => z.registerMetrics({}, registry), (e) => e instanceof z.InputError && e.code === 'NotARuntime');
  assert.throws(() => z.registerMetrics(sender, {}), (e) => e instanceof z.InputError && e.code === 'NotARegistry');
  owner.close();
  sender.close();
});

test("prom-client's cluster aggregation sums two runtimes' registries", async () => {
  const { owner, sender, registry } = await scraped();
  const own = new Registry();
  z.registerMetrics(owner, own);
  assert.equal((await owner.resolve('actor', 'user-42')).kind, 'ReadyRoute');
  const summed = AggregatorRegistry.aggregate([await registry.getMetricsAsJSON(), await own.getMetricsAsJSON()]);
  const text = await summed.metrics();
  const got = samples(text);
  assert.equal(got.get('zlink_resolutions_total{result="ready_route"}'), 3);
  assert.equal(got.get('zlink_store_read_duration_seconds_count'),
    samples(sender.metricsText()).get('zlink_store_read_duration_seconds_count')
    + samples(owner.metricsText()).get('zlink_store_read_duration_seconds_count'));
  assert.equal(promtool(text).status, 0);
  owner.close();
  sender.close();
});
