"""GET /healthz: is this process fit to serve? The state database, the scheduler, the price sources."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.deps import Deps
from pricing.errors import CacheUnavailable


def _discovery(deps: Deps) -> dict[str, str]:
    """Each cloud discovery is on for: ok, degraded (its last run's problem) or never run."""
    from bot.discover.registry import clouds

    on = clouds(deps.settings)
    if not on:
        return {}
    from bot.state.discovered import Discovered

    runs = Discovered(deps.store).runs()
    out: dict[str, str] = {}
    for name in on:
        run = runs.get(name)
        out[name] = "never run" if run is None else "ok" if run.error is None else f"degraded: {run.error}"
    return out


def health(
    deps: Deps, scheduler_running: Callable[[], bool] | None, chats: Callable[[], dict[str, Any]] | None = None
) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body). `down` (503) when the state database or the price cache cannot be read;
    `degraded` (200) when the scheduler stopped, a price source is stale or failing, or a chat's connection
    failed or is not connected yet; else `ok`. `chats`: each platform serve talks to, and its state."""
    checks: dict[str, Any] = {}
    if chats is not None:
        checks["chats"] = chats()
    problem = deps.store.problem()
    checks["state_db"] = "ok" if problem is None else f"unreachable: {problem}"
    if scheduler_running is None:
        checks["scheduler"] = "off"
    else:
        checks["scheduler"] = "running" if scheduler_running() else "stopped"
    if deps.work is not None:  # serve's work process (work_process.py): started again when it dies
        checks["work_process"] = deps.work.state()
    sources: dict[str, str] = {}
    try:
        states = deps.prices.status()
        checks["price_cache"] = "ok"
    except CacheUnavailable as exc:  # still an answer: what is wrong, and `down`
        states, checks["price_cache"] = [], f"unreadable: {exc.reason}"
    for state in states:
        if state.last_success is None:
            sources[state.source] = "never loaded"
        elif state.last_error:
            sources[state.source] = "failing"
        else:
            sources[state.source] = "stale" if state.stale else "fresh"
    checks["price_sources"] = sources
    checks["discovery"] = _discovery(deps) if checks["state_db"] == "ok" else {}
    if checks["state_db"] != "ok" or checks["price_cache"] != "ok":
        return 503, {"status": "down", "checks": checks}
    degraded = (
        checks["scheduler"] == "stopped"
        or checks.get("work_process", "running") != "running"
        or any(v in ("never loaded", "failing") for v in sources.values())
        or any(v != "ok" for v in checks["discovery"].values())
        # a chat whose long connection failed, or is not up yet (refused again and again looks the same)
        or any(str(c.get("state", "")).startswith(("failed", "connecting")) for c in checks.get("chats", {}).values())
    )
    return 200, {"status": "degraded" if degraded else "ok", "checks": checks}
