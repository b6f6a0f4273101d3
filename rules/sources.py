"""Where a rented item came from: typed (track), enrolled by its agent, or found by discovery in a cloud or a
cluster. Found items are nobody's until claimed, and have no activity data unless an agent or the cloud says."""

from __future__ import annotations

# clouds whose items discovery keeps (bot/discover/cloud.py)
CLOUD_SOURCES = (
    "aws",
    "aliyun",
    "aliyun-dsw",
    "tencent",
    "tencent-hai",
    "volcengine",
    "volcengine-mlp",
    "huawei",
    "huawei-modelarts",
    "autodl",
)
FOUND_SOURCES = (*CLOUD_SOURCES, "k8s")  # every source of found items
# the account a product bills to: a DSW notebook and an ECS instance draw on one Alibaba Cloud wallet, a HAI server and
# a CVM instance on one Tencent Cloud account, an ML Platform dev instance and an ECS one on one Volcengine account, a
# ModelArts notebook and an ECS server on one Huawei Cloud account (one balance, one runway)
WALLET_OF = {
    "aliyun-dsw": "aliyun",
    "tencent-hai": "tencent",
    "volcengine-mlp": "volcengine",
    "huawei-modelarts": "huawei",
}


def wallet_of(source: str) -> str:
    """The provider account a source's items bill to."""
    return WALLET_OF.get(source, source)
