"""Pulling DCGM samples from a local server answering Prometheus's query_range API in its format."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import parse_qs

import httpx
import pytest

from bot.server.prometheus import PrometheusError, pull
from bot.state import Store
from bot.state.rentals import Rentals
from bot.tls import shared_context
from tests.support.servers import Reply, Request, serve
from tests.support.state_template import migrated_state_db

NOW = datetime(2026, 11, 30, 2, 0, tzinfo=UTC)
FIELDS = {
    "gpu": "A100-80GB",
    "cards": 2,
    "share": None,
    "unit": "day",
    "price": 800.0,
    "currency": "CNY",
    "channel": "C1",
    "owner": "U1",
    "project": None,
    "started_at": NOW - timedelta(hours=5),
}
VALUES = {
    "DCGM_FI_DEV_GPU_UTIL": ("0", "97"),
    "DCGM_FI_DEV_FB_USED": ("1200", "70000"),
    "DCGM_FI_DEV_FB_FREE": ("80720", "11920"),
}


EMPTY = {"status": "success", "data": {"resultType": "matrix", "result": []}}
NPU = {  # npu-exporter: AI Core utilisation (%), HBM used and total (MB)
    "npu_chip_info_utilization": ("0", "88"),
    "npu_chip_info_hbm_used_memory": ("3126", "60000"),
    "npu_chip_info_hbm_total_memory": ("65536", "65536"),
}


def npu_matrix(request: Request) -> Reply:
    """An Ascend box's npu-exporter series as Prometheus has them (the card's index in `id`); no DCGM series."""
    query = parse_qs(request.query)
    metric = query["query"][0]
    start, end, step = (float(query[k][0]) for k in ("start", "end", "step"))
    points = [start + i * step for i in range(int((end - start) // step) + 1)]
    result = [
        {
            "metric": {"__name__": metric, "id": str(card), "Hostname": "ascend-1", "model_name": "Ascend910B2"},
            "values": [[p, NPU[metric][card]] for p in points],
        }
        for card in (0, 1)
        if metric in NPU
    ]
    body = {"status": "success", "data": {"resultType": "matrix", "result": result}}
    return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()


def test_npu_exporter_series_of_an_ascend_box_become_its_samples(tmp_path: Path) -> None:
    rentals = Rentals(Store(migrated_state_db(tmp_path / "s.db")))
    inst, _ = rentals.track_instance("T1", "ascend-1", FIELDS | {"gpu": "Ascend-910B2-64GB"})
    with serve({"/api/v1/query_range": npu_matrix}) as prom, httpx.Client(verify=shared_context()) as client:
        done = pull(rentals, client, prom.base_url, label="Hostname", now=NOW, minutes=10)
    assert (done.kept, done.series) == (22, 2)
    got = rentals.samples(inst.id, NOW - timedelta(hours=1))
    idle = next(s for s in got if s.gpu == 0)
    busy = next(s for s in got if s.gpu == 1)
    assert (idle.utilization_pct, idle.memory_used_mib, idle.memory_total_mib) == (0.0, 3126.0, 65536.0)
    assert (busy.utilization_pct, busy.memory_used_mib) == (88.0, 60000.0)
    asked = {parse_qs(r.query)["query"][0] for r in prom.requests}
    assert {"npu_chip_info_utilization", "DCGM_FI_DEV_GPU_UTIL"} <= asked


GIB = 1024**3
EXPORTED = {  # each exporter's series as it labels them: (labels of card 0, of card 1), values of cards 0 and 1
    "mlu": (  # Cambricon mlu-exporter (prefix mlu): the card in `mlu`, the host in `node`, memory in bytes
        {
            "mlu_utilization": ("0", "64"),
            "mlu_memory_used": ("0", str(20 * GIB)),
            "mlu_memory_total": (str(24 * GIB),) * 2,
        },
        lambda card: {"mlu": str(card), "node": "mlu-1", "model": "MLU370-X8", "type": "MLU370-X8"},
    ),
    "dcu": (  # Hygon dcu-exporter: the card in `minor_number`, the host in `Hostname`, memory in bytes
        {
            "dcu_utilizationrate": ("0", "91"),
            "dcu_usedmemory_bytes": (str(GIB // 1024), str(50 * GIB)),
            "dcu_memorycap_bytes": (str(64 * GIB),) * 2,
        },
        lambda card: {"minor_number": str(card), "Hostname": "dcu-1", "device_id": f"{card:x}ab1"},
    ),
}


def exported(kind: str):  # type: ignore[no-untyped-def]
    values, labels = EXPORTED[kind]

    def answer(request: Request) -> Reply:
        query = parse_qs(request.query)
        metric = query["query"][0]
        start, end, step = (float(query[k][0]) for k in ("start", "end", "step"))
        points = [start + i * step for i in range(int((end - start) // step) + 1)]
        result = [
            {"metric": {"__name__": metric, **labels(card)}, "values": [[p, values[metric][card]] for p in points]}
            for card in (0, 1)
            if metric in values
        ]
        body = {"status": "success", "data": {"resultType": "matrix", "result": result}}
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    return answer


@pytest.mark.parametrize(
    ("kind", "host", "gpu", "total_mib", "busy"),
    [
        ("mlu", "mlu-1", "MLU370-X8-48GB", 24576.0, (64.0, 20480.0)),
        ("dcu", "dcu-1", "K100-AI-64GB", 65536.0, (91.0, 51200.0)),
    ],
)
def test_cambricon_and_hygon_exporters_become_their_boxes_samples(
    tmp_path: Path, kind: str, host: str, gpu: str, total_mib: float, busy: tuple[float, float]
) -> None:
    rentals = Rentals(Store(migrated_state_db(tmp_path / "s.db")))
    inst, _ = rentals.track_instance("T1", host, FIELDS | {"gpu": gpu})
    with serve({"/api/v1/query_range": exported(kind)}) as prom, httpx.Client(verify=shared_context()) as client:
        done = pull(rentals, client, prom.base_url, label="Hostname", now=NOW, minutes=10)
    assert (done.kept, done.series) == (22, 2)
    got = rentals.samples(inst.id, NOW - timedelta(hours=1))
    idle = next(s for s in got if s.gpu == 0)
    working = next(s for s in got if s.gpu == 1)
    assert (idle.utilization_pct, idle.memory_total_mib) == (0.0, total_mib)
    assert (working.utilization_pct, working.memory_used_mib) == busy  # bytes in, MiB kept


def matrix(request: Request) -> Reply:
    """A query_range answer: for each of two hosts' GPUs 0 and 1, a point a minute over the range."""
    query = parse_qs(request.query)
    metric = query["query"][0]
    start, end, step = (float(query[k][0]) for k in ("start", "end", "step"))
    points = [start + i * step for i in range(int((end - start) // step) + 1)]
    result = [
        {
            "metric": {
                "__name__": metric,
                "gpu": str(gpu),
                "Hostname": host,
                "modelName": "NVIDIA A100-SXM4-80GB",
                "job": "dcgm",
            },
            "values": [[p, VALUES[metric][gpu]] for p in points],
        }
        for host in ("train-1", "someone-else")
        for gpu in (0, 1)
        if metric in VALUES  # a metric nobody exports: an empty matrix, as Prometheus answers
    ]
    body = {"status": "success", "data": {"resultType": "matrix", "result": result}}
    return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()


def test_series_of_a_tracked_instance_become_its_samples(tmp_path: Path) -> None:
    rentals = Rentals(Store(migrated_state_db(tmp_path / "s.db")))
    inst, _ = rentals.track_instance("T1", "train-1", FIELDS)
    with serve({"/api/v1/query_range": matrix}) as prom, httpx.Client(verify=shared_context()) as client:
        done = pull(rentals, client, prom.base_url, label="Hostname", now=NOW, minutes=10)
        again = pull(rentals, client, prom.base_url, label="Hostname", now=NOW, minutes=10)
    assert (done.kept, done.series, done.skipped) == (22, 2, 2)  # 11 points x 2 GPUs; someone-else is not tracked
    assert again.kept == 0  # the overlap of the next pull is kept once
    got = rentals.samples(inst.id, NOW - timedelta(hours=1))
    gpu1 = [s for s in got if s.gpu == 1]
    assert (gpu1[0].utilization_pct, gpu1[0].memory_used_mib, gpu1[0].memory_total_mib) == (97.0, 70000.0, 81920.0)
    assert got[0].at == NOW - timedelta(minutes=10)
    fresh = rentals.instance("T1", "train-1")
    assert fresh is not None and fresh.last_busy_at == NOW  # GPU 1 is busy up to now


def test_an_error_answer_is_reported_with_prometheus_own_words(tmp_path: Path) -> None:
    body = {"status": "error", "errorType": "bad_data", "error": 'invalid parameter "query"'}
    answer: Reply = (400, {"Content-Type": "application/json"}, json.dumps(body).encode())
    with (
        serve({"/api/v1/query_range": answer}) as prom,
        httpx.Client(verify=shared_context()) as client,
        pytest.raises(PrometheusError) as err,
    ):
        pull(Rentals(Store(migrated_state_db(tmp_path / "s.db"))), client, prom.base_url, label="Hostname", now=NOW)
    assert "HTTP 400" in str(err.value) and "bad_data" in str(err.value)


def pod_matrix(request: Request) -> Reply:
    """DCGM series as a Prometheus scraping the exporter in Kubernetes sees them: GPUs handed to pods carry
    exported_namespace and exported_pod; one series belongs to a tracked host."""
    query = parse_qs(request.query)
    metric = query["query"][0]
    start, end, step = (float(query[k][0]) for k in ("start", "end", "step"))
    points = [start + i * step for i in range(int((end - start) // step) + 1)]
    if metric not in VALUES:  # a metric nobody exports: an empty matrix, as Prometheus answers
        return 200, {"Content-Type": "application/json"}, json.dumps(EMPTY).encode()
    pods = [("ml", "train-0", 0), ("ml", "train-0", 1), ("serving", "llm-7f9c", 0)]
    h100, a100 = "NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB"
    result = [
        {
            "metric": {
                "__name__": metric,
                "gpu": str(gpu),
                "Hostname": "node-3",
                "modelName": h100,
                "exported_namespace": ns,
                "exported_pod": pod,
            },
            "values": [[p, VALUES[metric][0]] for p in points],
        }
        for ns, pod, gpu in pods
    ]
    result.append(
        {
            "metric": {
                "__name__": metric,
                "gpu": "0",
                "Hostname": "train-1",
                "modelName": a100,
                "exported_namespace": "ml",
                "exported_pod": "tracked-already",
            },
            "values": [[p, VALUES[metric][1]] for p in points],
        }
    )
    body = {"status": "success", "data": {"resultType": "matrix", "result": result}}
    return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()


def test_pods_given_gpus_become_items_of_their_own_notify_only(tmp_path: Path) -> None:
    from bot.discover.k8s import PodFiling

    rentals = Rentals(Store(migrated_state_db(tmp_path / "s.db")))
    tracked, _ = rentals.track_instance("T1", "train-1", FIELDS)
    filing = PodFiling("T1", "CK8S", lambda gpu, cards: (2.5 * cards, "hour", "USD"))
    with serve({"/api/v1/query_range": pod_matrix}) as prom, httpx.Client(verify=shared_context()) as client:
        pull(rentals, client, prom.base_url, label="Hostname", now=NOW, minutes=10, pods=filing)
        pull(rentals, client, prom.base_url, label="Hostname", now=NOW + timedelta(minutes=5), minutes=10, pods=filing)
    items = {i.provider_id: i for i in rentals.instances("T1") if i.source == "k8s"}
    assert set(items) == {"k8s:ml/train-0", "k8s:serving/llm-7f9c"}  # the tracked host's series stay its own
    pod = items["k8s:ml/train-0"]
    assert (pod.name, pod.gpu, pod.cards, pod.owner, pod.channel, pod.price, pod.currency) == (
        "ml.train-0",
        "H100-80GB",
        2,
        "",
        "CK8S",
        5.0,
        "USD",
    )
    assert len(rentals.samples(pod.id, NOW - timedelta(hours=1))) == 2 * 16  # 11 + 5 new points, two GPUs
    assert len(rentals.samples(tracked.id, NOW - timedelta(hours=1))) == 16
    with (
        serve({"/api/v1/query_range": matrix}) as prom,
        httpx.Client(verify=shared_context()) as client,
    ):  # the pods are gone
        pull(rentals, client, prom.base_url, label="Hostname", now=NOW + timedelta(hours=2), minutes=10, pods=filing)
    gone = rentals.instance("T1", "ml.train-0")
    assert gone is not None and gone.released_by == "cloud"
