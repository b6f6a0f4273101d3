"""Huawei Cloud ModelArts notebooks (Notebook 2.0) with GPUs or Ascend NPUs, with the official SDK
(huaweicloudsdkmodelarts, signed as ECS; the same credentials, regions, projects and endpoint): the region's notebook
flavors once (ListFlavors, page by page: each flavor's `gpu` or `ascend` cards), every notebook of the project
(ListAllNotebooks, page by page: not only the key's own user's, as ListNotebooks gives), StopNotebook, then the
notebook read again (ShowNotebook) until it is no longer STOPPING.

A notebook's own stopper is its `lease`: of type IDLE (stopped by ModelArts once idle for `duration` milliseconds)
it is kept with the item as the platform's own idle rule, in minutes, so the bot does not race it; of type TIMING
(stopped a fixed time after it started, busy or not) or off, the idle rule is 0 and the digest flags it. ModelArts
has no GPU metrics API the product reads: an agent of ours in the notebook reports its activity, else it is unknown,
never idle. Prices: the price cache's rows for provider huawei-modelarts, else unknown; a notebook bills to the Huawei
Cloud account (one balance with ECS). The notebook's user is kept as its Creator; its tags give owner and project."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from bot.discover.cloud import (
    Paging,
    Stopped,
    free_once_stopped,
    gpu_named,
    refusal_said,
    scan_regions,
    settled,
)
from bot.discover.huawei import Huawei
from bot.state.discovered import IDLE_TAG, Found, Scan
from rules.samples import Sample

PAGE = 50  # ListNotebooks' limit: 10, 20 or 50
STATES = {
    "INIT": "pending",
    "CREATING": "pending",
    "STARTING": "pending",
    "RUNNING": "running",
    "SNAPSHOTTING": "running",
    "STOPPING": "stopping",
    "STOPPED": "stopped",
    "DELETING": "terminated",
    "DELETED": "terminated",
    "CREATE_FAILED": "terminated",
    "START_FAILED": "stopped",
    "DELETE_FAILED": "stopped",
    "ERROR": "stopped",
    "FROZEN": "stopped",  # in arrears
}


class HuaweiModelArts(Huawei):
    name = "huawei-modelarts"
    metrics = "agent"  # no GPU metrics API read for notebooks

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._cards: dict[str, dict[str, tuple[str | None, int]]] = {}  # region -> flavor id -> (card, count)

    def scan(self) -> Scan:
        return scan_regions(self.name, self.regions, self._notebooks, workers=self.at_once)

    def _notebooks(self, region: str) -> Iterator[Found]:
        from huaweicloudsdkmodelarts.v1 import ListAllNotebooksRequest

        cards = self._flavors(region)
        paging = Paging("Huawei Cloud", f"ModelArts ListAllNotebooks in {region}")
        offset = 0
        while True:
            request = ListAllNotebooksRequest(offset=offset, limit=PAGE)
            body = self.call("modelarts", region, "list_all_notebooks", request)
            rows = body.get("data") or []
            paging.rows(rows)
            for raw in rows:
                card = cards.get(str(raw.get("flavor") or ""), (None, 0))
                if card[1] > 0:  # a CPU notebook is not the product's business
                    yield notebook_found(raw, region, card)
            offset += len(rows)
            if not rows or offset >= int(body.get("total") or 0):
                return

    def _flavors(self, region: str) -> dict[str, tuple[str | None, int]]:
        """Each notebook flavor's card and count (its GPUs, else its Ascend NPUs), read once a region."""
        from huaweicloudsdkmodelarts.v1 import ListFlavorsRequest

        if region not in self._cards:
            out: dict[str, tuple[str | None, int]] = {}
            paging, offset = Paging("Huawei Cloud", f"ModelArts ListFlavors in {region}"), 0
            while True:
                body = self.call("modelarts", region, "list_flavors", ListFlavorsRequest(offset=offset, limit=PAGE))
                rows = body.get("flavors") or body.get("data") or []
                paging.rows(rows)
                for flavor in rows:
                    gpu, npu = flavor.get("gpu") or {}, flavor.get("ascend") or {}
                    count = int(gpu.get("gpu") or 0) or int(npu.get("npu") or 0)
                    named = str((gpu if gpu.get("gpu") else npu).get("type") or "").strip()
                    out[str(flavor.get("id"))] = (gpu_named(named) if count and named else None, count)
                offset += len(rows)
                if not rows or offset >= int(body.get("total") or 0):
                    break
            self._cards[region] = out
        return self._cards[region]

    def gpu_samples(
        self, region: str, instance_ids: list[str], since: datetime, until: datetime
    ) -> dict[str, list[Sample]]:
        return {}

    def _read(self, region: str, notebook_id: str) -> dict[str, Any]:
        from huaweicloudsdkmodelarts.v1 import ShowNotebookRequest

        return self.call("modelarts", region, "show_notebook", ShowNotebookRequest(id=notebook_id))

    def stop(self, region: str, instance_id: str) -> Stopped:
        from huaweicloudsdkmodelarts.v1 import StopNotebookRequest

        with refusal_said("cloud.stop_refused", "cloud.name_huawei_modelarts", instance_id):
            self.call("modelarts", region, "stop_notebook", StopNotebookRequest(id=instance_id))
        raw = settled(lambda: self._read(region, instance_id), lambda body: body.get("status") == "STOPPING")
        said = str(raw.get("status") or "unknown")
        state = STATES.get(said, said.lower())  # a stopped notebook bills no compute (its storage apart)
        return Stopped(state, charging=free_once_stopped(state), how="StopNotebook")


def idle_lease_minutes(lease: dict[str, Any] | None) -> int:
    """The notebook's idle stop in minutes (a lease of type IDLE that is on); 0: none (off, or a TIMING stop)."""
    lease = lease or {}
    if str(lease.get("type") or "").upper() != "IDLE" or lease.get("enable") is False:
        return 0
    return max(0, round(int(lease.get("duration") or 0) / 60_000))


def notebook_found(raw: dict[str, Any], region: str, card: tuple[str | None, int]) -> Found:
    """A notebook with GPUs or NPUs, as ListNotebooks gives it."""
    tags = {str(t.get("key", "")): str(t.get("value", "")) for t in raw.get("tags") or [] if t.get("key")}
    tags[IDLE_TAG] = str(idle_lease_minutes(raw.get("lease")))
    user = raw.get("user") or {}
    if user.get("name"):
        tags["Creator"] = str(user["name"])
    said = str(raw.get("status") or "unknown")
    state = STATES.get(said, said.lower())
    created = (raw.get("lease") or {}).get("create_at")
    gpu, cards = card
    return Found(
        f"huawei-modelarts:{raw['id']}",
        "instance",
        region,
        tags.get("Name") or str(raw.get("name") or raw["id"]),
        state,
        tags,
        f"ModelArts {raw.get('flavor')}",  # the notebook flavor's own price, not an ECS flavor's
        gpu,
        cards,
        None,
        False,
        datetime.fromtimestamp(int(created) / 1000, UTC) if created else None,
        charging=free_once_stopped(state),
        currency="CNY",
    )
