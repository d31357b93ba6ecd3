"""Prometheus metrics of one server, served at ``/metrics`` on HTTP (``[http] metrics``).

What is counted (names as scraped)::

    toolbay_calls_total{tool, outcome}          every tools/call, by how it ended
    toolbay_call_seconds                        a call's whole time in the server (histogram)
    toolbay_stage_seconds{stage}                each chain stage, and the tool's run ("tool")
    toolbay_rate_limit_refusals_total{reason}   "limit" (over a limit) or "store_unavailable"
    toolbay_jobs{state}                         this replica's jobs queued and running now
    toolbay_catalog_tools                       tools in the catalog now
    toolbay_catalog_reloads_total               catalog changes taken in (rescans that changed it)

Outcomes: ``ok``, ``tool_error`` (the tool ran and said it failed), ``job`` (it went on in the
background), ``refused_<code>`` (the chain stopped it: ``refused_rate_limited``,
``refused_forbidden``...) and ``crash`` (toolbay's own fault). Labels are tool names, stage
names and these fixed words only: never arguments, callers or tokens. A call of a name no tool
serves is counted as ``(unknown)`` and a caller's personal tool as ``(personal)``.

Each server has its own registry (tests build several in one process). The call path pays for
a few dictionary lookups and histogram observations (``bench/bench_metrics.py`` measures it);
the per-replica gauges are read only when scraped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from toolbay.outcomes import outcome_of
from toolbay.words import ToolResult

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# From a quick path's tenth of a millisecond to a job's sync budget and past it.
CALL_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
STAGE_BUCKETS = (0.00001, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 1.0, 10.0)
LIMIT_REFUSALS = {"rate_limited": "limit", "limits_unavailable": "store_unavailable"}


class _Gauges(Collector):
    """Values read from the running server when scraped, never on the call path."""

    def __init__(self, jobs_by_state: Callable[[], Mapping[str, int]], catalog_size: Callable[[], int]) -> None:
        self.jobs_by_state = jobs_by_state
        self.catalog_size = catalog_size

    def collect(self) -> Iterable[GaugeMetricFamily]:
        jobs = GaugeMetricFamily("toolbay_jobs", "Jobs of this replica, queued or running now.", labels=["state"])
        for state, count in self.jobs_by_state().items():
            jobs.add_metric([state], count)
        yield jobs
        yield GaugeMetricFamily("toolbay_catalog_tools", "Tools in the catalog now.", value=self.catalog_size())


class ServerMetrics:
    """The metrics of one server and the few calls that feed them."""

    def __init__(self, jobs_by_state: Callable[[], Mapping[str, int]], catalog_size: Callable[[], int]) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self._calls = Counter("toolbay_calls", "Tool calls, by tool and outcome.", ["tool", "outcome"],
                              registry=self.registry)
        self._call_seconds = Histogram("toolbay_call_seconds", "A tool call's whole time in the server.",
                                       buckets=CALL_BUCKETS, registry=self.registry)
        self._stage_seconds = Histogram("toolbay_stage_seconds", "Time in each chain stage and in the tool's run.",
                                        ["stage"], buckets=STAGE_BUCKETS, registry=self.registry)
        self._refusals = Counter("toolbay_rate_limit_refusals", "Calls refused by the rate limiter.", ["reason"],
                                 registry=self.registry)
        self._reloads = Counter("toolbay_catalog_reloads", "Catalog changes taken in.", registry=self.registry)
        self.registry.register(_Gauges(jobs_by_state, catalog_size))
        # Children cached by label values: .labels() takes a lock and builds a key each time.
        self._call_children: dict[tuple[str, str], Counter] = {}
        self._stage_children: dict[str, Histogram] = {}

    def observe_call(self, tool: str, result: ToolResult, timings: Mapping[str, float], seconds: float) -> None:
        """Counts one finished call: its outcome, its whole time and each stage's."""
        outcome = outcome_of(result)
        key = (tool, outcome)
        counter = self._call_children.get(key)
        if counter is None:
            counter = self._call_children[key] = self._calls.labels(tool, outcome)
        counter.inc()
        self._call_seconds.observe(seconds)
        for stage, spent in timings.items():
            histogram = self._stage_children.get(stage)
            if histogram is None:
                histogram = self._stage_children[stage] = self._stage_seconds.labels(stage)
            histogram.observe(spent)
        if outcome.startswith("refused_") and (reason := LIMIT_REFUSALS.get(outcome[8:])) is not None:
            self._refusals.labels(reason).inc()

    async def catalog_changed(self) -> None:
        """A catalog listener: one reload taken in."""
        self._reloads.inc()

    def exposition(self) -> bytes:
        """The text format Prometheus scrapes."""
        return generate_latest(self.registry)
