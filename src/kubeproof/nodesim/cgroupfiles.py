"""The container's own cgroup v2 interface files, as a script in it reads them at
/sys/fs/cgroup (a cgroup namespace per container: its cgroup is the root it sees).

What the kubelet asks the runtime for, from the container's `resources.limits`
(k8s.io/kubernetes v1.36.3 pkg/kubelet/cm/helpers_linux.go: QuotaPeriod 100000 µs,
MilliCPUToQuota `milliCPU * period / 1000`, at least MinQuotaPeriod 1000;
pkg/kubelet/kuberuntime/kuberuntime_container_linux.go: the memory limit in bytes), as
runc writes them: `cpu.max` "QUOTA PERIOD" or "max 100000", `memory.max` the bytes or
"max". A script that tests its CPU quota (infra-bench's stabilize-cpu-throttled-worker
reads cpu.max) sees the limit its pod spec sets."""

import math

from kubeproof.nodesim.quantity import parse

PERIOD = 100_000  # QuotaPeriod, µs
MIN_QUOTA = 1_000  # MinQuotaPeriod


def cpu_max(limits: dict) -> str:
    cpu = limits.get("cpu")
    if not cpu:
        return f"max {PERIOD}\n"
    milli = math.ceil(parse(str(cpu)) * 1000)  # Quantity.MilliValue rounds up
    quota = max(milli * PERIOD // 1000, MIN_QUOTA)
    return f"{quota} {PERIOD}\n"


def memory_max(limits: dict) -> str:
    memory = limits.get("memory")
    return f"{int(parse(str(memory)))}\n" if memory else "max\n"


def files(spec: dict) -> dict[str, str]:
    """/sys/fs/cgroup/cpu.max and memory.max of a container `spec`."""
    limits = (spec.get("resources") or {}).get("limits") or {}
    return {
        "/sys/fs/cgroup/cpu.max": cpu_max(limits),
        "/sys/fs/cgroup/memory.max": memory_max(limits),
    }
