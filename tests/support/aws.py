"""AWS stood in by moto's server (ThreadedMotoServer) on 127.0.0.1 at a free port: real boto3 calls over real
HTTP, never a mock of our code. One server per test process (its start and stop cost half a second each);
moto keeps its accounts in the process, so each use starts from a reset."""

from __future__ import annotations

import atexit
import functools
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from bot.tls import shared_context

# moto gives every EC2 backend (an account and a region: made again after each reset, one for each region a scan
# reads) its 44 bundled images and the region's "latest" ones, about 1,300 images and 30 ms a backend, unless
# MOTO_AMIS_PATH names the images to load instead: here the one image the tests launch (its record as moto bundles
# it). Read when moto's EC2 models are imported, so set before moto is: this module is the tests' only way to moto.
IMAGES = os.path.join(os.path.dirname(__file__), "moto_amis.json")
os.environ.setdefault("MOTO_AMIS_PATH", IMAGES)

FAKE_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_EC2_METADATA_DISABLED": "true",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    "AWS_CONFIG_FILE": os.devnull,
}


@contextmanager
def moto_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """moto on 127.0.0.1; yields its URL. The environment holds fake credentials and no profile, so nothing
    can reach a real account."""
    for key, value in FAKE_ENV.items():
        monkeypatch.setenv(key, value)
    url = _server()
    _reset_client().post(f"{url}/moto-api/reset").raise_for_status()
    yield url


@functools.cache
def _reset_client() -> httpx.Client:
    """One client for the resets, kept alive: a client each time built a TLS context each time (20-50 ms)."""
    return httpx.Client(timeout=10, verify=shared_context())


@functools.cache
def _server() -> str:
    from moto.server import ThreadedMotoServer  # imported here, after MOTO_AMIS_PATH, by the tests that use it

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        # an xdist worker leaves with os._exit (tests/conftest.py), its threads with it: stopping the server first
        # waited for werkzeug's next poll (up to 0.5 s), at the very end of the run, with every other worker done
        atexit.register(server.stop)
    host, port = server.get_host_and_port()
    return f"http://{host}:{port}"


@functools.cache
def _session() -> Any:
    """The tests' own boto3 session, reading botocore's service models through the app's loader (bot/discover/aws.py):
    boto3's default session decoded EC2's megabytes of JSON again, 0.15 s of CPU in each worker that reads EC2."""
    import boto3
    import botocore.session

    from bot.discover.aws import _models

    core = botocore.session.Session()
    core.register_component("data_loader", _models())
    return boto3.session.Session(botocore_session=core)


def ec2(url: str, region: str = "us-east-1") -> Any:
    return _session().client("ec2", region_name=region, endpoint_url=url)


def cloudwatch(url: str, region: str = "us-east-1") -> Any:
    return _session().client("cloudwatch", region_name=region, endpoint_url=url)


with open(IMAGES, encoding="utf-8") as _images:
    AMI = str(json.load(_images)[0]["ami_id"])  # the image moto loads, named in one place


def launch(client: Any, instance_type: str, tags: dict[str, str] | None = None, *, spot: bool = False) -> str:
    extra: dict[str, Any] = {"InstanceMarketOptions": {"MarketType": "spot"}} if spot else {}
    if tags:
        extra["TagSpecifications"] = [
            {"ResourceType": "instance", "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}
        ]
    made = client.run_instances(ImageId=AMI, MinCount=1, MaxCount=1, InstanceType=instance_type, **extra)
    return str(made["Instances"][0]["InstanceId"])


def volume(client: Any, size_gb: int, tags: dict[str, str] | None = None, volume_type: str = "gp3") -> str:
    extra: dict[str, Any] = {}
    if tags:
        extra["TagSpecifications"] = [
            {"ResourceType": "volume", "Tags": [{"Key": k, "Value": v} for k, v in tags.items()]}
        ]
    made = client.create_volume(Size=size_gb, AvailabilityZone="us-east-1a", VolumeType=volume_type, **extra)
    return str(made["VolumeId"])
