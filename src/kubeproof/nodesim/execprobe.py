"""Exec probes: the probe's command runs in the container, as `kubectl exec` does.

Exit 0 passes; another exit fails with the command's output (pkg/probe/exec/exec.go:50-76,
pkg/kubelet/prober/prober.go:120-123); a command that cannot start is an error of the
runtime (prober.go:104-108). In a container whose script runs for real the command runs
for real in its sandbox, for up to the probe's timeoutSeconds: there the kubelet's prober
worker (a goroutine per container and probe, pkg/kubelet/prober/worker.go `run`) waits on
it while the node goes on, so `start` runs it in a thread and wakes the pod when it ends;
the container applies the result on that later tick. In a modelled container the simulated
shell answers at once (`run`).

A network tool is netsim's to answer, as for `kubectl exec` (shell.run), never the
sandbox's; the network view is taken on the node's loop, the command run off it.
"""

import hashlib
import threading
from concurrent.futures import Future

from kubeproof.nodesim.config import World


def run(container, probe: dict, pod, model, label: str, world: World) -> str | None:
    """The probe answered now: its failure message, or None when it passes."""
    return _judge(container, probe, label, _command(container, probe, pod, model, world))


def start(container, probe: dict, pod, model, label: str, world: World) -> Future:
    """The probe's command started in a thread; the pod is woken when it ends, and
    `outcome(future, label)` then reads its failure message (None: passed)."""
    job = _command(container, probe, pod, model, world)
    future: Future = Future()

    def work() -> None:
        future.set_running_or_notify_cancel()
        try:
            future.set_result(_judge(container, probe, label, job))
        except BaseException as exc:  # outcome() reports it as the runtime's error
            future.set_exception(exc)

    # a thread of its own, as the kubelet gives each probe a goroutine: a shared pool of
    # N would let N never-ending probes (a huge timeoutSeconds) hold back every other
    # pod's. They are bounded as the kubelet's are: one in flight per container and probe
    # (Container does not start a probe whose last run has not ended), pods per node.
    # A daemon: a harness that exits does not wait out a probe's timeout.
    try:
        threading.Thread(target=work, name=f"exec-probe-{pod.name}", daemon=True).start()
    except RuntimeError as exc:  # the host's thread limit, reached by an agent's many probes:
        future.set_exception(exc)  # this probe's runtime error (outcome), not the pod sync's
    wake = getattr(container.runner, "wake", None)
    if wake is not None:
        uid = pod.uid
        future.add_done_callback(lambda _: wake(uid))
    return future


def outcome(future: Future, label: str) -> str | None:
    """The finished probe's failure message (None: passed). A command the harness could
    not run at all is the runtime's error, as the kubelet reports one (prober.go:104-108)."""
    try:
        return future.result()
    except Exception as exc:  # the pod's probe fails, the node goes on
        return f"{label} probe errored and resulted in unknown state: {exc}"


def _command(container, probe: dict, pod, model, world: World):
    """What to run, with the network view taken now (on the node's loop)."""
    from kubeproof.nodesim import shell  # shell reads containers: imported late

    command = (probe.get("exec") or {}).get("command") or []
    timeout = float(probe.get("timeoutSeconds", 1))  # prober.go:153
    network = getattr(world, "exec_network", None)
    net = network(pod) if network is not None and container.live is not None else None
    return lambda: shell.run(command, container, pod.name, net, model, timeout=timeout)


def _judge(container, probe: dict, label: str, job) -> str | None:
    result = job()
    if result.code == 0:
        return None
    if result.code == 126:
        command = (probe.get("exec") or {}).get("command") or []
        exec_id = hashlib.sha256(f"{container.container_id}/{command}".encode()).hexdigest()
        return (
            f"{label} probe errored and resulted in unknown state: rpc error: code = "
            f'Unknown desc = failed to exec in container: failed to start exec "{exec_id}": '
            + result.stderr.strip()
        )
    return f"{label} probe failed: {result.stdout}{result.stderr}"
