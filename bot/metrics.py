"""What the bot does, counted for Prometheus (GET /metrics). Every metric is named gpu_advisor_...

One Metrics object per process (its own registry, so tests can build several), passed down in Deps.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

ACK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 3.0, 5.0)


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        self.requests = Counter(
            "gpu_advisor_slack_requests", "Slack requests by kind (command, event, ...)", ["kind"], registry=r
        )
        self.chat_requests = Counter(
            "gpu_advisor_chat_requests",
            "Requests from each chat, by platform and kind",
            ["platform", "kind"],
            registry=r,
        )
        self.chat_errors = Counter(
            "gpu_advisor_chat_api_errors",
            "Chat API calls that failed for good (after retries), by platform and error",
            ["platform", "error"],
            registry=r,
        )
        self.chat_retries = Counter(
            "gpu_advisor_chat_api_retries",
            "Chat API calls retried, by platform and reason",
            ["platform", "reason"],
            registry=r,
        )
        self.refused = Counter(
            "gpu_advisor_slack_requests_refused", "Requests refused at the door, by HTTP status", ["status"], registry=r
        )
        self.heartbeats = Counter("gpu_advisor_heartbeats", "Agent heartbeats by HTTP status", ["status"], registry=r)
        self.samples = Counter("gpu_advisor_gpu_samples", "GPU samples kept from agents", registry=r)
        self.decisions = Counter("gpu_advisor_decisions", "Recommendations made, by choice", ["choice"], registry=r)
        self.ack_seconds = Histogram(
            "gpu_advisor_ack_seconds", "Time to acknowledge a Slack request", buckets=ACK_BUCKETS, registry=r
        )
        self.slack_errors = Counter(
            "gpu_advisor_slack_api_errors", "Slack Web API errors by method and error", ["method", "error"], registry=r
        )
        self.slack_retries = Counter(
            "gpu_advisor_slack_api_retries", "Slack Web API calls retried, by reason", ["reason"], registry=r
        )
        self.refreshes = Counter(
            "gpu_advisor_price_refreshes", "Price refreshes by source and result", ["source", "result"], registry=r
        )
        self.price_age = Gauge(
            "gpu_advisor_price_age_seconds", "Age of each source's last successful refresh", ["source"], registry=r
        )
        self.actions = Counter(
            "gpu_advisor_actions", "Actions on idle instances, by kind and result", ["kind", "result"], registry=r
        )
        self.discovered = Gauge(
            "gpu_advisor_discovered_items",
            "Items found by discovery and still rented, by source",
            ["source"],
            registry=r,
        )
        self.inbox_backlog = Gauge(
            "gpu_advisor_inbox_backlog", "Acknowledged requests whose work is not done", registry=r
        )

    def exposition(self, also: bytes | None = None) -> bytes:
        """The text Prometheus scrapes; with `also` (another process's exposition: serve's work process), its
        counts added to this process's (a gauge either process sets is this process's when both have it)."""
        if also is None:
            return generate_latest(self.registry)
        merged = CollectorRegistry(auto_describe=False)
        merged.register(_Merged(list(self.registry.collect()), list(text_string_to_metric_families(also.decode()))))
        return generate_latest(merged)


def _key(name: str, labels: dict[str, str]) -> tuple[str, frozenset[tuple[str, str]]]:
    return name, frozenset(labels.items())


class _Merged:
    """Two processes' metric families as one: counts summed, the earliest creation time kept."""

    def __init__(self, ours: list[Metric], theirs: list[Metric]) -> None:
        self._ours, self._theirs = ours, {family.name: family for family in theirs}

    def collect(self) -> Iterable[Metric]:
        for family in self._ours:
            other = self._theirs.get(family.name)
            if other is None:
                yield family
                continue
            mine = {_key(s.name, s.labels): i for i, s in enumerate(family.samples)}
            samples = list(family.samples)
            for sample in other.samples:
                at = mine.get(_key(sample.name, sample.labels))
                if at is None:
                    samples.append(sample)
                elif sample.name.endswith("_created"):
                    samples[at] = samples[at]._replace(value=min(samples[at].value, sample.value))
                elif family.type != "gauge":
                    samples[at] = samples[at]._replace(value=samples[at].value + sample.value)
            family.samples = samples
            yield family
