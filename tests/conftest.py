"""Shared fixtures. Integration tests run against real embedded clusters built by
`kubeproof setup`; their state lives in a temporary directory, never the user's."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from kubeproof.cluster.binaries import missing_binaries

# `make test` runs files side by side (pytest-xdist, --dist loadfile, no reordering): the
# files that take longest start first, so that none of them is left running alone at the
# end. Longest first, by the seconds (setup + calls) of a two-worker run at load 20-40.
LONG_FIRST = (
    "tests/runner/test_library_sample.py",  # 954 s with 48 trials (now 24)
    "tests/runner/test_trials.py",  # 1185 s in CI before its two libraries became one
    "tests/adversarial/test_identities.py",  # 771 s
    "tests/agents/test_model_trials.py",  # 514 s
    "tests/verify/test_safety_trials.py",  # 264 s
    "tests/adversarial/test_sandbox.py",
    "tests/nodesim/test_nodes.py",
    "tests/cluster/test_coredns_reload.py",
    "tests/adversarial/test_hostile_files.py",
    "tests/nodesim/test_pod_lifecycle.py",
    "tests/runner/test_evidence_trials.py",
    "tests/nodesim/test_container_world.py",
    "tests/cluster/test_cli.py",
    "tests/report/test_browser.py",  # 137 s
)


def pytest_collection_modifyitems(config, items) -> None:
    rank = {path: n for n, path in enumerate(LONG_FIRST)}
    # stable: within a file, and among the other files, the collection order stays
    items.sort(key=lambda item: rank.get(item.nodeid.split("::", 1)[0], len(rank)))


def pytest_terminal_summary(terminalreporter) -> None:
    """Seconds per test file (setup, calls and teardown summed) and per worker: the figures
    LONG_FIRST and the CI budget are tuned from."""
    files: dict[str, float] = {}
    workers: dict[str, float] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            duration = getattr(report, "duration", None)
            if duration is None or not hasattr(report, "nodeid") or not report.nodeid:
                continue
            path = report.nodeid.split("::", 1)[0]
            files[path] = files.get(path, 0.0) + duration
            worker = getattr(getattr(report, "node", None), "gateway", None)
            name = getattr(worker, "id", "main")
            workers[name] = workers.get(name, 0.0) + duration
    if not files:
        return
    terminalreporter.section("slowest files")
    for path, seconds in sorted(files.items(), key=lambda kv: -kv[1])[:20]:
        terminalreporter.write_line(f"{seconds:8.1f}s {path}")
    busy = ", ".join(f"{name} {seconds:.0f}s" for name, seconds in sorted(workers.items()))
    terminalreporter.write_line(f"summed: {sum(files.values()):.0f}s; per worker: {busy}")


@pytest.fixture(scope="session", autouse=True)
def isolated_state(tmp_path_factory) -> Path:
    state = tmp_path_factory.mktemp("kubeproof-state")
    os.environ["KUBEPROOF_STATE_DIR"] = str(state)
    # evidence is signed with a key of the test session's own, not the user's
    from kubeproof.evidence import keys

    key = keys.save_private(keys.generate(), state / "evidence-key.pem")
    os.environ["KUBEPROOF_EVIDENCE_KEY_FILE"] = str(key)
    os.environ.pop("KUBEPROOF_EVIDENCE_KEY", None)
    return state


@pytest.fixture(scope="session")
def binaries_built() -> None:
    missing = missing_binaries()
    if missing:
        pytest.fail(f"control-plane binaries missing ({', '.join(missing)}): run `kubeproof setup`")


@pytest.fixture(scope="session")
def cluster(binaries_built):
    """One warm embedded cluster without nodes (the control plane alone), shared by
    read-mostly tests."""
    from kubeproof.cluster import EmbeddedCluster

    with EmbeddedCluster(nodes=0) as c:
        yield c


def wait_for(check, timeout: float = 30, interval: float = 0.2, what: str = "condition"):
    """Poll `check()` until it returns something truthy; return that."""
    import time

    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def run_cli(
    *args: str, check: bool = False, timeout: float = 180, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """Run the real `kubeproof` console script in a child process (in `cwd` if given)."""
    exe = Path(sys.executable).with_name("kubeproof")
    return subprocess.run(
        [str(exe), *args],
        capture_output=True,
        text=True,
        check=check,
        timeout=timeout,
        env=os.environ.copy(),
        cwd=cwd,
    )


@pytest.fixture(scope="module")
def sim(binaries_built):
    """A warm cluster with two simulated nodes."""
    from kubeproof.cluster import EmbeddedCluster

    with EmbeddedCluster(nodes=2) as cluster:
        yield cluster


@pytest.fixture
def ns(sim, request):
    """A fresh namespace per test, named after it."""
    import re

    name = re.sub(r"[^a-z0-9-]+", "-", request.node.name.lower())[:50].strip("-")
    sim.kubectl("create", "namespace", name)
    yield name
    sim.kubectl("delete", "namespace", name, "--wait=false", check=False)
