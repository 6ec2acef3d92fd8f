"""zlink's metrics in prometheus_client.

``ZlinkCollector(rt)`` reads the runtime's metric families on every scrape
(``Runtime.metrics()``: the counters, then the latency histograms, named
once in the bridge) and hands them to prometheus_client as they are::

    from prometheus_client import REGISTRY, start_http_server
    from zlink.metrics import ZlinkCollector

    REGISTRY.register(ZlinkCollector(rt))
    start_http_server(9100)

Needs the ``prometheus`` extra (``pip install 'zlink[prometheus]'``).
Without prometheus_client, ``Runtime.metrics_text()`` gives the same
metrics in the text exposition format.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from zlink._zlink import MetricFamily, Runtime

__all__ = ["ZlinkCollector"]

_NANOS = 1e9


class ZlinkCollector(Collector):
    """A prometheus_client collector of one runtime's metrics."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    def collect(self) -> Iterator[Metric]:
        """Every metric family of the runtime, read now."""
        for family in self._runtime.metrics():
            yield _metric(family)


def _metric(f: MetricFamily) -> Metric:
    labels = [f.label] if f.label else []

    def label_values(value: str) -> list[str]:
        return [value] if f.label else []

    if f.kind == "histogram":
        histogram = HistogramMetricFamily(f.name, f.help, labels=labels)
        bounds = [repr(b / _NANOS) for b in f.bounds_ns] + ["+Inf"]
        for s in f.samples:
            counts = list(s.buckets) + [s.value]
            histogram.add_metric(
                label_values(s.label_value),
                buckets=list(zip(bounds, counts)),
                sum_value=s.sum_ns / _NANOS,
            )
        return histogram
    family: CounterMetricFamily | GaugeMetricFamily
    if f.kind == "counter":
        family = CounterMetricFamily(f.name, f.help, labels=labels)
    else:
        family = GaugeMetricFamily(f.name, f.help, labels=labels)
    for s in f.samples:
        family.add_metric(label_values(s.label_value), s.value)
    return family
