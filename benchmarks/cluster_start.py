"""Cluster start-up and memory benchmark.

Measures, in one run on this machine: cold start (bootstrap from scratch), warm start
(golden snapshot), the time per start phase, RSS per component and per idle cluster, and
the time to start N clusters one after another and all at once. Prints a table, the ratio
of each figure to its budget (docs: ARCHITECTURE.md "Performance budgets"), and JSON.

    python benchmarks/cluster_start.py [--warm 5] [--cold 2] [--clusters 4] [--json out.json]
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import psutil
from rich.console import Console
from rich.table import Table

from report import publish

BUDGETS = {
    "cold_start_s": 6.0,
    "warm_start_s": 1.5,
    "pooled_acquire_s": 1.5,
    "idle_cluster_rss_mb": 400.0,
    "pss_per_cluster_mb": 400.0,
}


def timed_start(warm: bool):
    from kubeproof.cluster import EmbeddedCluster

    started = time.monotonic()
    cluster = EmbeddedCluster(warm=warm).start()
    return cluster, time.monotonic() - started


def starts(n: int, warm: bool) -> dict:
    seconds, phases = [], []
    for _ in range(n):
        cluster, elapsed = timed_start(warm)
        assert cluster.record.start_mode == ("warm" if warm else "cold")
        seconds.append(elapsed)
        phases.append(dict(cluster.record.phases))
        cluster.stop()
    return {
        "runs": n,
        "median_s": round(statistics.median(seconds), 3),
        "min_s": round(min(seconds), 3),
        "max_s": round(max(seconds), 3),
        "phases_median_s": {
            k: round(statistics.median(p[k] for p in phases), 3) for k in phases[0]
        },
    }


def idle_rss(settle: float) -> dict:
    cluster, _ = timed_start(True)
    try:
        time.sleep(settle)
        per = {}
        for name, entry in cluster.record.components.items():
            mem = psutil.Process(entry.pid).memory_full_info()
            per[name] = {"rss_mb": round(mem.rss / 2**20, 1), "uss_mb": round(mem.uss / 2**20, 1)}
        total = round(sum(c["rss_mb"] for c in per.values()), 1)
        unique = round(sum(c["uss_mb"] for c in per.values()), 1)
        # USS leaves out pages shared with other clusters (the binaries' code): the
        # marginal memory of one more cluster
        return {
            "settle_s": settle,
            "components": per,
            "cluster_rss_mb": total,
            "cluster_uss_mb": unique,
        }
    finally:
        cluster.stop()


def many(n: int) -> dict:
    started = time.monotonic()
    clusters = [timed_start(True)[0] for _ in range(n)]
    sequential = time.monotonic() - started
    healthy = all(all(s.healthy for s in c.status()) for c in clusters)
    # PSS splits pages shared between clusters (the binaries' code) fairly among them
    pss = sum(
        psutil.Process(e.pid).memory_full_info().pss
        for c in clusters
        for e in c.record.components.values()
    )
    for c in clusters:
        c.stop()
    started = time.monotonic()
    with ThreadPoolExecutor(n) as pool:
        clusters = list(pool.map(lambda _: timed_start(True)[0], range(n)))
    concurrent = time.monotonic() - started
    healthy = healthy and all(all(s.healthy for s in c.status()) for c in clusters)
    for c in clusters:
        c.stop()
    return {
        "clusters": n,
        "sequential_s": round(sequential, 2),
        "concurrent_s": round(concurrent, 2),
        "all_healthy": healthy,
        "pss_per_cluster_mb": round(pss / n / 2**20, 1),
    }


def pooled(trials: int, trial_seconds: float) -> dict:
    """Acquire latency from a pool of one, with trials that take `trial_seconds`."""
    from kubeproof.cluster.pool import ClusterPool

    waits = []
    with ClusterPool(size=1) as pool:
        pool.acquire(timeout=300).stop()  # let the pool fill once before timing
        for _ in range(trials):
            time.sleep(trial_seconds)
            started = time.monotonic()
            cluster = pool.acquire(timeout=300)
            waits.append(time.monotonic() - started)
            cluster.stop()
    return {
        "trials": trials,
        "trial_s": trial_seconds,
        "median_acquire_s": round(statistics.median(waits), 3),
        "max_acquire_s": round(max(waits), 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warm", type=int, default=5, help="warm starts to time")
    parser.add_argument("--cold", type=int, default=2, help="cold starts to time")
    parser.add_argument("--clusters", type=int, default=8, help="clusters to start together")
    parser.add_argument("--trial", type=float, default=6, help="simulated trial seconds (pool)")
    parser.add_argument("--settle", type=float, default=15, help="idle seconds before RSS")
    parser.add_argument("--json", help="also write the JSON result to this file")
    args = parser.parse_args()

    os.environ.setdefault("KUBEPROOF_STATE_DIR", tempfile.mkdtemp(prefix="kubeproof-bench-"))
    from kubeproof.cluster import snapshot
    from kubeproof.cluster.binaries import require_binaries
    from kubeproof.cluster.versions import versions

    require_binaries()
    if not snapshot.usable():
        timed_start(False)[0].stop()  # the first cold start saves the golden snapshot

    console = Console(stderr=True)
    with console.status("cold starts"):
        cold = starts(args.cold, warm=False)
    with console.status("warm starts"):
        warm = starts(args.warm, warm=True)
    with console.status("idle memory"):
        memory = idle_rss(args.settle)
    with console.status(f"{args.clusters} clusters"):
        parallel = many(args.clusters)
    with console.status("pooled acquire"):
        pool = pooled(3, args.trial)

    figures = {
        "cold_start_s": cold["median_s"],
        "warm_start_s": warm["median_s"],
        "pooled_acquire_s": pool["median_acquire_s"],
        "idle_cluster_rss_mb": memory["cluster_rss_mb"],
        "pss_per_cluster_mb": parallel["pss_per_cluster_mb"],
    }
    result = {
        "kubernetes": versions().kubernetes,
        "machine": {
            "cpus": os.cpu_count(),
            "memory_gb": round(psutil.virtual_memory().total / 2**30),
        },
        "cold": cold,
        "warm": warm,
        "memory": memory,
        "many": parallel,
        "pool": pool,
        "budgets": {
            k: {"measured": figures[k], "budget": b, "ratio": round(figures[k] / b, 2)}
            for k, b in BUDGETS.items()
        },
        "warm_over_cold": round(warm["median_s"] / cold["median_s"], 2),
    }

    table = Table("figure", "measured", "budget", "ratio", title="cluster start-up")
    for key, entry in result["budgets"].items():
        table.add_row(key, str(entry["measured"]), str(entry["budget"]), f"{entry['ratio']}x")
    table.add_row("warm / cold", str(result["warm_over_cold"]), "", "")
    for phase, seconds in warm["phases_median_s"].items():
        table.add_row(f"  warm phase {phase}", f"{seconds}", "", "")
    for name, mem in memory["components"].items():
        table.add_row(f"  {name} RSS / USS (MB)", f"{mem['rss_mb']} / {mem['uss_mb']}", "", "")
    table.add_row("idle cluster USS (MB), one running", str(memory["cluster_uss_mb"]), "", "")
    table.add_row(f"{args.clusters} clusters sequential (s)", str(parallel["sequential_s"]), "", "")
    table.add_row(f"{args.clusters} clusters concurrent (s)", str(parallel["concurrent_s"]), "", "")
    publish(table, result, args.json)
    return 0 if parallel["all_healthy"] else 1


if __name__ == "__main__":
    sys.exit(main())
