"""How `pytest -n` deals the tests out (tests/support/scheduling.py), played against workers that behave as xdist's do:
a worker runs the tests it holds but the last, which it keeps until it is sent another or told to stop. Every test
runs once, each heavy library's tests on one worker, and every worker ends: a run of four tests of one library on four
workers waited for ever before."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.scheduling import ByLibrary, library_of

TENCENT = [f"tests/actions/test_stop_tencent.py::test_{n}" for n in range(4)]
MOTO = [f"tests/discover/test_aws_faults.py::test_{n}" for n in range(3)]
PLAIN = [f"tests/test_cache.py::test_{n}" for n in range(30)]


class _Config:
    def getvalue(self, name: str) -> Any:
        return ["4*popen"] if name == "tx" else None

    def getoption(self, name: str, default: Any = None) -> Any:
        return {"maxschedchunk": None, "dist": "load"}.get(name, default)


class _Worker:
    def __init__(self, n: int) -> None:
        self.gateway = type("Gateway", (), {"id": f"gw{n}"})()
        self.held: list[int] = []
        self.ran: list[int] = []
        self.shutting_down = False

    def send_runtest_some(self, indices: list[int]) -> None:
        self.held += indices

    def shutdown(self) -> None:
        self.shutting_down = True


def _played(collection: list[str]) -> list[_Worker]:
    scheduler, workers = ByLibrary(_Config()), [_Worker(n) for n in range(4)]
    for worker in workers:
        scheduler.add_node(worker)  # type: ignore[arg-type]
    for worker in workers:
        scheduler.add_node_collection(worker, collection)  # type: ignore[arg-type]
    scheduler.schedule()
    while True:
        ready = [(w, (w.held if w.shutting_down else w.held[:-1])[:1]) for w in workers]
        if not any(first for _w, first in ready):
            return workers
        for worker, first in ready:
            for index in first:
                worker.held.remove(index)
                worker.ran.append(index)
                scheduler.mark_test_complete(worker, index)  # type: ignore[arg-type]


@pytest.mark.parametrize("collection", [TENCENT, TENCENT[:3] + MOTO[:1], TENCENT + MOTO + PLAIN, PLAIN[:3]])
def test_every_test_runs_once_each_library_on_one_worker_and_every_worker_ends(collection: list[str]) -> None:
    workers = _played(collection)
    assert sorted(i for w in workers for i in w.ran) == list(range(len(collection)))
    assert all(w.shutting_down and not w.held for w in workers)
    for library in {library_of(nodeid) for nodeid in collection} - {None}:
        assert sum(1 for w in workers if any(library_of(collection[i]) == library for i in w.ran)) == 1
