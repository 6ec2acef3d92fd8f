"""The runtime's metrics through prometheus_client: scraped by its own
registry, read back by its own text parser."""

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

import zlink
from zlink.metrics import ZlinkCollector


def families(text: str) -> dict[str, object]:
    return {f.name: f for f in text_string_to_metric_families(text)}


def runtime(rid: int, store: zlink.MemoryStore) -> zlink.Runtime:
    return zlink.Runtime(zlink.NodeIdentity("m", rid), store=store)


def test_a_scrape_sees_store_latency_and_counters():
    store = zlink.MemoryStore()
    with runtime(1, store) as owner, runtime(2, store) as reader:
        owner.activate("actor", "a")
        assert isinstance(reader.resolve("actor", "a"), zlink.ReadyRoute)
        assert isinstance(reader.resolve("actor", "a"), zlink.ReadyRoute)
        registry = CollectorRegistry()
        registry.register(ZlinkCollector(reader))
        scraped = families(generate_latest(registry).decode())

    reads = scraped["zlink_store_read_duration_seconds"]
    assert reads.type == "histogram"
    samples = {(s.name, s.labels.get("le")): s.value for s in reads.samples}
    assert samples[("zlink_store_read_duration_seconds_count", None)] == 1
    assert samples[("zlink_store_read_duration_seconds_bucket", "+Inf")] == 1
    assert samples[("zlink_store_read_duration_seconds_sum", None)] > 0
    # prometheus_client names a counter family without its `_total`.
    hits = scraped["zlink_cache_hits"]
    assert hits.type == "counter"
    assert hits.samples[0].value == 1
    results = {s.labels["result"]: s.value for s in scraped["zlink_resolutions"].samples}
    assert results["ready_route"] == 2
    assert scraped["zlink_cache_entries"].type == "gauge"


def test_the_text_exposition_parses_as_the_collector_scrapes():
    with zlink.Runtime(zlink.NodeIdentity("m", 1)) as rt:
        rt.activate("spot", "s")
        text = rt.metrics_text()
        registry = CollectorRegistry()
        registry.register(ZlinkCollector(rt))
        scraped = families(generate_latest(registry).decode())
    parsed = families(text)
    assert parsed.keys() == scraped.keys()
    writes = parsed["zlink_store_write_duration_seconds"]
    count = [s for s in writes.samples if s.name.endswith("_count")][0]
    assert count.value == 2  # create, then publish Ready


def test_each_family_is_named_once_with_its_kind():
    with zlink.Runtime(zlink.NodeIdentity("m", 1)) as rt:
        all_ = rt.metrics()
    names = [f.name for f in all_]
    assert len(names) == len(set(names))
    kinds = {f.kind for f in all_}
    assert kinds == {"counter", "gauge", "histogram"}
    histogram = next(f for f in all_ if f.kind == "histogram")
    assert histogram.unit == "s" and histogram.otel_name.startswith("zlink.")
    assert len(histogram.samples[0].buckets) == len(histogram.bounds_ns)
