"""How `pytest -n` spreads the tests over its workers: xdist's load scheduling, but a heavy fake's tests on one worker.

Every worker that runs one test of a cloud's fake pays for importing that cloud's SDK and starting its fake (moto's
EC2 models alone take 0.43 s to import; the first AWS test of a worker costs 1.3 s of CPU against 0.3 s for the
next), so with the plain load scheduling each such library was paid by all four workers. Here each library's tests
go to one worker (the libraries dealt out over the workers), which takes them before any other test it is offered;
every other test is handed out as xdist does. Fast loop on 2 cores, alternated runs: 31.4-35.6 s -> 29.6-31.4 s,
user CPU 48-56 s -> 47-50 s (2026-12-05).

A test module belongs to a library when its text names that library's fake (it imports it, even inside a test).
xdist's own `--dist` choices other than `load` are left as they are. Not a way to hide a slow test: each test runs
as before, on some worker, once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from xdist.scheduler.load import LoadScheduling

# a library, and what a test module of its says (its fake, imported at the top or inside a test)
HEAVY = {
    "moto": ("tests.support.aws", "moto_server"),
    "aliyun": ("fake_aliyun",),
    "huawei": ("fake_huawei",),
    "tencent": ("fake_tencent",),
    "volcengine": ("fake_volcengine",),
    "dingtalk": ("fake_dingtalk", "dingtalk_harness"),  # dingtalk-stream, and the Tea clients through aiohttp
    "wecom": ("fake_wecom", "wecom_harness"),  # the AI-bot SDK, pyee and websockets' legacy client
    "matplotlib": ("chart",),  # what draws a chart: matplotlib and its fonts, 0.9 s a worker
    "sources": ("tests.support.sources",),  # every source file of ours parsed: 0.5 s a worker
}
_read: dict[str, str | None] = {}


def library_of(nodeid: str) -> str | None:
    """The heavy library a test's module uses, by what its text names; None for most."""
    path = nodeid.split("::", 1)[0]
    if path not in _read:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError:
            text = ""
        _read[path] = next((name for name, says in HEAVY.items() if any(s in text for s in says)), None)
    return _read[path]


class ByLibrary(LoadScheduling):
    """LoadScheduling whose every batch for a worker takes its own libraries' tests first, then anyone's; another
    worker's library's tests are never sent to it. A worker that leaves (it crashed) hands its libraries on."""

    def __init__(self, config: Any, log: Any = None) -> None:
        super().__init__(config, log)
        self.owners: dict[str, Any] = {}
        self.libraries: list[str | None] | None = None

    def _deal(self) -> None:
        assert self.collection is not None
        self.libraries = [library_of(nodeid) for nodeid in self.collection]
        nodes = self.nodes
        for n, library in enumerate(sorted({lib for lib in self.libraries if lib})):
            self.owners[library] = nodes[n % len(nodes)]

    def _send_tests(self, node: Any, num: int) -> None:
        if self.libraries is None:
            self._deal()
        assert self.libraries is not None
        own, anyones = [], []
        for index in self.pending:
            library = self.libraries[index]
            if library is None:
                anyones.append(index)
            elif self.owners.get(library) is node:
                own.append(index)
        # At least two: a worker holds back the last test it was sent until it is sent another or told to stop (its
        # fixtures' teardown needs to know the next test), and it is sent more only when it reports one done. xdist's
        # own scheduling sends a small run's tests all at once; here a node may take only its libraries' and anyone's,
        # and a single test sent to it, with more of its own still pending, would wait for ever (four tests of one
        # library on four workers did).
        chosen = (own + anyones)[: max(num, 2)]
        if chosen:
            taken = set(chosen)
            self.pending[:] = [index for index in self.pending if index not in taken]
            self.node2pending[node].extend(chosen)
            node.send_runtest_some(chosen)
        if len(chosen) == len(own) + len(anyones):  # nothing left that it may run: it runs what it holds, then stops
            node.shutdown()

    def remove_node(self, node: Any) -> str | None:
        left = [n for n in self.nodes if n is not node and not n.shutting_down]
        for library, owner in list(self.owners.items()):
            if owner is node and left:
                self.owners[library] = left[0]
        return super().remove_node(node)
