"""Where a rented item came from: typed (track), enrolled by its agent, or found by discovery in a cloud or a
cluster. Found items are nobody's until claimed, and have no activity data unless an agent or the cloud says."""

from __future__ import annotations

# clouds whose items discovery keeps (bot/discover/cloud.py)
CLOUD_SOURCES = ("aws", "aliyun", "aliyun-dsw", "tencent", "tencent-hai", "autodl")
FOUND_SOURCES = (*CLOUD_SOURCES, "k8s")  # every source of found items
