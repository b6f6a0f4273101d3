"""The small HTTP API beside Slack: the front door of /slack/events, /healthz and /metrics."""
