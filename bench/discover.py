"""Discovery benchmark: AWS discovery over moto's server beside a bare boto3 describe loop of the same data.

moto (ThreadedMotoServer on 127.0.0.1) holds 5,000 GPU instances and 2,000 unattached volumes over 4 regions
(plus the instances' root volumes). The floor is the least any discovery must do: describe every instance of
the GPU types and every volume, page by page, in each region, and nothing else. Ours is `discover()` on a
state database: the same describes, then keeping the items (a first run inserts them, a re-run updates them)
and asking CloudWatch for NVIDIA metrics. The two take turns in rounds, so drift in the machine enters both.
Goal: ours within 1.2x of the floor.

    python bench/discover.py                 # 5,000 instances, 2,000 volumes, 4 regions, 3 rounds
    python bench/discover.py --instances 1000 --volumes 400 --rounds 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

REGIONS = ("us-east-1", "us-west-2", "eu-west-1", "ap-northeast-1")
TYPES = ("g5.xlarge", "g5.12xlarge", "p4d.24xlarge", "g6e.xlarge", "g4dn.xlarge", "p5.48xlarge")


def fill(url: str, instances: int, volumes: int) -> None:
    import boto3

    for n, region in enumerate(REGIONS):
        ec2 = boto3.client("ec2", region_name=region, endpoint_url=url)
        mine = instances // len(REGIONS) + (1 if n < instances % len(REGIONS) else 0)
        made = 0
        while made < mine:
            batch = min(250, mine - made)
            kind = TYPES[(made // 250) % len(TYPES)]
            tags = [
                {
                    "ResourceType": "instance",
                    "Tags": [{"Key": "Owner", "Value": f"U{made:05d}"}, {"Key": "Project", "Value": f"p{made % 17}"}],
                }
            ]
            ec2.run_instances(
                ImageId="ami-12c6146b", MinCount=batch, MaxCount=batch, InstanceType=kind, TagSpecifications=tags
            )
            made += batch
        for v in range(volumes // len(REGIONS) + (1 if n < volumes % len(REGIONS) else 0)):
            ec2.create_volume(Size=100 + v % 900, AvailabilityZone=f"{region}a", VolumeType="gp3")


def floor(url: str) -> tuple[float, int]:
    """Describe every GPU instance and every volume in each region, page by page; keep nothing. Returns the
    time and how many instances and volumes were described (ours must see as many)."""
    import boto3

    from bot.discover.aws import ALIVE, CONFIG
    from bot.discover.catalog import gpu_types

    start, seen = time.perf_counter(), 0
    for region in REGIONS:
        ec2 = boto3.client("ec2", region_name=region, endpoint_url=url, config=CONFIG)
        filters = [
            {"Name": "instance-type", "Values": sorted(gpu_types())},
            {"Name": "instance-state-name", "Values": list(ALIVE)},
        ]
        for page in ec2.get_paginator("describe_instances").paginate(
            Filters=filters, PaginationConfig={"PageSize": 1000}
        ):
            seen += sum(len(r.get("Instances", [])) for r in page.get("Reservations", []))
        for page in ec2.get_paginator("describe_volumes").paginate(PaginationConfig={"PageSize": 1000}):
            seen += sum(1 for v in page.get("Volumes", []) if v.get("State") == "available")
    return time.perf_counter() - start, seen


def ours(url: str, folder: Path, name: str) -> tuple[float, int]:
    from bot.discover.run import discover
    from bot.settings import Settings
    from bot.state import Store

    settings = Settings(
        db=folder / "bot.db",
        aws_regions=",".join(REGIONS),
        aws_endpoint_url=url,
        azure_enabled=False,
        ecb_enabled=False,
    )
    store = Store(f"sqlite:///{folder / name}")
    start = time.perf_counter()
    report = discover(settings, store, "T1", datetime.now(UTC), offers=lambda gpu: [])
    return time.perf_counter() - start, len(report.items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=5000)
    parser.add_argument("--volumes", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for key, value in {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_EC2_METADATA_DISABLED": "true",
    }.items():
        os.environ[key] = value
    import logging

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    started = time.perf_counter()
    fill(url, args.instances, args.volumes)
    print(
        f"moto filled: {args.instances} GPU instances, {args.volumes} unattached volumes, {len(REGIONS)} regions "
        f"in {time.perf_counter() - started:.1f} s"
    )
    floors, firsts, reruns, found, described = [], [], [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(args.rounds):
            seconds, described = floor(url)
            floors.append(seconds)
            first, found = ours(url, Path(tmp), f"state-{n}.db")  # a fresh database: every item inserted
            firsts.append(first)
            reruns.append(ours(url, Path(tmp), f"state-{n}.db")[0])  # the same database: every item updated
    server.stop()
    base = statistics.median(floors)
    rows: list[tuple[str, Any]] = [
        ("bare boto3 describe loop (floor)", base),
        ("discover, first run (inserts)", statistics.median(firsts)),
        ("discover, re-run (updates)", statistics.median(reruns)),
    ]
    print(
        f"items kept: {found} (the floor described {described} GPU instances and unattached volumes); "
        f"median of {args.rounds} rounds, taking turns"
    )
    for label, seconds in rows:
        print(f"  {label:<36} {seconds:7.2f} s  {seconds / base:5.2f}x")
    worst = max(statistics.median(firsts), statistics.median(reruns)) / base
    print(f"goal: within 1.2x of the floor -> {'met' if worst <= 1.2 else 'NOT met'} ({worst:.2f}x)")


if __name__ == "__main__":
    main()
