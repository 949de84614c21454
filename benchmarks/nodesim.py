"""Node simulator benchmark: time from Deployment create to N pods Ready, and the
simulator's CPU per 100 pods, measured side by side in one run.

    python benchmarks/nodesim.py [--sizes 1,20,100] [--nodes 2] [--json out.json]
"""

import argparse
import os
import sys
import tempfile
import time

import psutil
from rich.console import Console
from rich.table import Table

from report import publish


def cpu_seconds(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return times.user + times.system


def rollout(cluster, ns: str, replicas: int) -> float:
    started = time.monotonic()
    cluster.kubectl(
        "create", "deployment", "bench", "--image=nginx:1.27", f"--replicas={replicas}", "-n", ns
    )
    cluster.kubectl(
        "rollout", "status", "deployment/bench", "-n", ns, "--timeout=300s", timeout=320
    )
    return time.monotonic() - started


def measure(cluster, replicas: int) -> dict:
    sim_pid = cluster.record.components["nodesim"].pid
    ns = f"bench-{replicas}"
    cluster.kubectl("create", "namespace", ns)
    cpu_before = cpu_seconds(sim_pid)
    seconds = rollout(cluster, ns, replicas)
    cpu_busy = cpu_seconds(sim_pid) - cpu_before
    # idle cost of keeping these pods: lease renewals and nothing else
    idle_before = cpu_seconds(sim_pid)
    time.sleep(10)
    idle = (cpu_seconds(sim_pid) - idle_before) / 10
    cluster.kubectl("delete", "namespace", ns, "--timeout=300s", timeout=320)
    return {
        "pods": replicas,
        "create_to_ready_s": round(seconds, 2),
        "per_pod_ms": round(seconds / replicas * 1000, 1),
        "sim_cpu_s": round(cpu_busy, 2),
        "sim_cpu_s_per_100_pods": round(cpu_busy / replicas * 100, 2),
        "sim_idle_cpu_pct": round(idle * 100, 2),
        "sim_rss_mb": round(psutil.Process(sim_pid).memory_info().rss / 2**20, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,20,100")
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--json", help="also write the JSON result to this file")
    args = parser.parse_args()
    os.environ.setdefault("KUBEPROOF_STATE_DIR", tempfile.mkdtemp(prefix="kubeproof-bench-"))
    from kubeproof.cluster import EmbeddedCluster

    sizes = [int(s) for s in args.sizes.split(",")]
    console = Console(stderr=True)
    rows = []
    with EmbeddedCluster(nodes=args.nodes) as cluster:
        for n in sizes:
            with console.status(f"{n} pods"):
                rows.append(measure(cluster, n))
    table = Table(
        "pods",
        "create→ready (s)",
        "per pod (ms)",
        "sim CPU (s)",
        "sim CPU / 100 pods (s)",
        "idle CPU %",
        "sim RSS (MB)",
        title=f"node simulator ({args.nodes} nodes)",
    )
    for r in rows:
        table.add_row(
            *(
                str(r[k])
                for k in (
                    "pods",
                    "create_to_ready_s",
                    "per_pod_ms",
                    "sim_cpu_s",
                    "sim_cpu_s_per_100_pods",
                    "sim_idle_cpu_pct",
                    "sim_rss_mb",
                )
            )
        )
    publish(table, {"nodes": args.nodes, "runs": rows}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
