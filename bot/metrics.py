"""What the bot does, counted for Prometheus (GET /metrics). Every metric is named gpu_advisor_...

One Metrics object per process (its own registry, so tests can build several), passed down in Deps.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

ACK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 3.0, 5.0)


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        self.requests = Counter("gpu_advisor_slack_requests", "Slack requests by kind (command, event, ...)",
                                ["kind"], registry=r)
        self.refused = Counter("gpu_advisor_slack_requests_refused", "Requests refused at the door, by HTTP status",
                               ["status"], registry=r)
        self.heartbeats = Counter("gpu_advisor_heartbeats", "Agent heartbeats by HTTP status", ["status"], registry=r)
        self.samples = Counter("gpu_advisor_gpu_samples", "GPU samples kept from agents", registry=r)
        self.decisions = Counter("gpu_advisor_decisions", "Recommendations made, by choice", ["choice"], registry=r)
        self.ack_seconds = Histogram("gpu_advisor_ack_seconds", "Time to acknowledge a Slack request",
                                     buckets=ACK_BUCKETS, registry=r)
        self.slack_errors = Counter("gpu_advisor_slack_api_errors", "Slack Web API errors by method and error",
                                    ["method", "error"], registry=r)
        self.slack_retries = Counter("gpu_advisor_slack_api_retries", "Slack Web API calls retried, by reason",
                                     ["reason"], registry=r)
        self.refreshes = Counter("gpu_advisor_price_refreshes", "Price refreshes by source and result",
                                 ["source", "result"], registry=r)
        self.price_age = Gauge("gpu_advisor_price_age_seconds", "Age of each source's last successful refresh",
                               ["source"], registry=r)
        self.actions = Counter("gpu_advisor_actions", "Actions on idle instances, by kind and result",
                               ["kind", "result"], registry=r)
        self.discovered = Gauge("gpu_advisor_discovered_items", "Items found by discovery and still rented, by source",
                                ["source"], registry=r)
        self.inbox_backlog = Gauge("gpu_advisor_inbox_backlog", "Acknowledged requests whose work is not done",
                                   registry=r)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
