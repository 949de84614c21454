"""Shell workloads that really run: which containers' scripts run in a sandbox (runbox.py,
liveproc.py) instead of being read from their text (process.py), and what each run gets
from the simulator — the environment it computes (expansion.py, downward.py,
servicelinks.py through config.resolve_env and shell.environment), the mounted files
(volumefiles.py, etcfiles.py), the pod's emptyDir volumes and its hostname.

A script runs for real where the image's model says `shell: busybox`, its command is
`sh|ash|bash|dash -c SCRIPT`, and the node simulator has a Runner (a live cluster; golden
runs on a fake clock keep the text reading). Other containers are unaffected."""

import atexit
import logging
import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path

from kubeproof.cluster.pki import FIRST_SERVICE_IP
from kubeproof.netsim.objects import DNS_SERVICE_IP
from kubeproof.nodesim import cgroupfiles, netbridge, projected, runbox, volumedirs
from kubeproof.nodesim.catalog import ImageModel, shell_invocation
from kubeproof.nodesim.etcfiles import hostname_and_domain
from kubeproof.nodesim.liveproc import DRAIN_SECONDS, PROBE_OUTPUT, ExecResult, Live
from kubeproof.nodesim.ncargs import parse_nc
from kubeproof.nodesim.podnet import PodNetworks
from kubeproof.nodesim.runbox import Box, Run, available
from kubeproof.nodesim.volumefiles import ContainerFiles

__all__ = ["Runner", "available", "exec_in", "probe_output", "runs_for_real"]

log = logging.getLogger("kubeproof.nodesim")
NOT_FOUND = (
    "OCI runtime exec failed: exec failed: unable to start container process: "
    'exec: "{}": executable file not found in $PATH: unknown\n'
)


# `sh FILE ARGS…` run as `sh -c SOURCE FILE ARGS…`: $0 is FILE and $1… its arguments, as
# when the shell opens the file itself; `.` searches PATH for a name without a slash (ash.c
# find_dot_file), which `sh FILE` never does
SOURCE_FILE = 'case $0 in */*) . "$0" ;; *) . "./$0" ;; esac'


def runs_for_real(model: ImageModel | None, argv: list[str]) -> bool:
    """A busybox-like image's shell given a script (`-c`) or a script file."""
    return model is not None and model.shell == "busybox" and shell_invocation(argv) is not None


def canonical(argv: list[str]) -> list[str]:
    """`sh [OPTIONS] -c SCRIPT [NAME ARGS…]` for any command runs_for_real accepts
    (`sh -ec S` is `sh -e -c S`; `sh FILE ARGS` sources FILE)."""
    found = shell_invocation(argv)
    assert found is not None
    options, kind, text, rest = found
    if kind == "file":
        text, rest = SOURCE_FILE, [text, *rest]
    return [argv[0], *options, "-c", text, *rest]


LOOPBACK_NAMES = {"localhost", "ip6-localhost", "ip6-loopback"}
# the names a pod's resolver turns into the `default/kubernetes` Service (apiwget.py)
API_NAMES = {
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
}


def nc_stays_real(args: list[str], pod_network: bool) -> bool:
    """Whether a script's `nc` reaches its target for real (the shim then runs the applet
    itself, stdin and all): its own loopback, where its own servers listen; and in a pod
    network (podnet.py), the apiserver's ClusterIP and the cluster DNS address, which answer
    there. Anything else is netsim's to answer (netbridge.py)."""
    operands, _, error = parse_nc(args)
    if error is not None:
        return False
    host = operands[0]
    if host in LOOPBACK_NAMES or host == "::1" or host.startswith("127."):
        return True
    return pod_network and (host in API_NAMES or host in (FIRST_SERVICE_IP, DNS_SERVICE_IP))


class Runner:
    """The sandboxes of one node simulator's containers, under `base` (its state dir's
    `containers/`): base/POD-UID/volumes/NAME for emptyDirs, base/POD-UID/NAME-N for the
    Nth run of a container. `wake(pod uid)` is called (from a thread) when a script exits."""

    def __init__(
        self,
        base: Path,
        wake: Callable[[str], None] | None = None,
        network: Callable[[object, list[str]], tuple[str, str, int]] | None = None,
        pod_networks: PodNetworks | None = None,
        kubectl: str | None = None,
        ships_kubectl: Callable[[str], bool] | None = None,
        world=None,
    ) -> None:
        self.base = base
        self.wake = wake
        # (pod, argv of wget|nslookup) -> (stdout, stderr, code): netsim's answer to a
        # script's network tool (netbridge.py); None: scripts have no network tools
        self.network = network
        # the network namespaces of pods that run kubectl (podnet.py), and the host's stock
        # kubectl bound where such an image has its own; None: kubectl is not there
        self.pod_networks = pod_networks
        self.kubectl = kubectl
        self.ships_kubectl = ships_kubectl  # image -> whether its model has kubectl
        self.world = world  # claims and volumes, for the directories of claims (volumedirs.py)
        self._uids: dict[str, int] = {}
        self._lives: dict[str, list[Live]] = {}  # pod uid → its scripts, for forget()
        atexit.register(self.close)  # the node simulator stopping: nothing of it stays
        self._lock = threading.Lock()

    def _pod_dir(self, pod_uid: str) -> Path:
        if not pod_uid or "/" in pod_uid or pod_uid.startswith("."):
            raise ValueError(f"bad pod uid {pod_uid!r}")
        return self.base / pod_uid

    def start(self, container, pod, argv: list[str], model: ImageModel) -> Live:
        """The container's script, started now; its log lines go to container.logs."""
        with self._lock:
            uid = self._uids.setdefault(pod.uid, runbox.pod_uid())
        pod_dir = self._pod_dir(pod.uid)
        previous = pod_dir / f"{container.name}-{container.restart_count - 1}"
        shutil.rmtree(previous, ignore_errors=True)  # a restart starts from the image again
        home = pod_dir / f"{container.name}-{container.restart_count}"
        shutil.rmtree(home, ignore_errors=True)
        limits = runbox.container_limits(container.spec.get("resources"))
        box = Box(home, uid, limits, self._pod_network(pod))
        if pod.tokens is not None and isinstance(container.files, ContainerFiles):
            pod.tokens.give(container.files)  # its projected token, as the kubelet mounted it
        # its configMap/secret/projected volumes: directories the kubelet keeps current
        container.projected = None
        paths = projected.mount_paths(pod.obj, container.spec)
        if paths and isinstance(container.files, ContainerFiles):
            container.projected = projected.Volumes(home / "projected", paths)
            container.projected.write(container.files.projected())
        argv = canonical(argv)
        if self.network is not None:  # its wget and nslookup: netsim's (netbridge.py)
            argv = netbridge.with_tools(argv)
        run = self.run_of(container, pod, argv, model)
        wake = self.wake
        live = Live(box, run, container.logs, (lambda: wake(pod.uid)) if wake else None)
        if run.net_dir is not None and self.network is not None:
            network, pod_net = self.network, box.network is not None

            def answer(words: list[str]) -> tuple[str, str, int]:
                if words[0] == "nc" and nc_stays_real(words[1:], pod_net):
                    return "", "", netbridge.REAL
                return network(pod, words)

            netbridge.Bridge(run.net_dir, answer, lambda: live.alive)
        with self._lock:
            lives = [x for x in self._lives.get(pod.uid, []) if x.alive]
            self._lives[pod.uid] = [*lives, live]
        return live

    def try_start(self, container, pod, argv: list[str], model: ImageModel) -> Live | None:
        """start(), or None (logged) when the sandbox cannot be made: the machine lost
        something it needs, a cgroup could not be created. One pod's failure must not stop
        the node's loop."""
        try:
            return self.start(container, pod, argv, model)
        except Exception:
            where = f"{pod.namespace}/{pod.name}/{container.name}"
            log.exception("sandbox of %s: the script is read from its text", where)
            return None

    def run_of(self, container, pod, argv: list[str], model: ImageModel | None) -> Run:
        from kubeproof.nodesim import shell  # shell reads containers: imported late

        hostname = hostname_and_domain(pod.obj)[0]
        spec = container.spec
        volumes = getattr(container, "projected", None)
        return Run(
            argv=argv,
            env=shell.environment(container, hostname, model),
            files=self._files(container),
            mounts=[
                *volumedirs.mounts(self.base, pod, spec, self.world, self._uids.get(pod.uid)),
                *(volumes.mounts() if volumes is not None else []),
            ],
            workdir=spec.get("workingDir") or (model.workdir if model else "/"),
            hostname=hostname,
            termination_path=spec.get("terminationMessagePath", "/dev/termination-log"),
            programs=model.executables if model else None,
            uid=_security(pod.obj, spec, "runAsUser"),
            gid=_security(pod.obj, spec, "runAsGroup"),
            net_dir=self._net_dir(pod, container) if self.network is not None else None,
            binaries=self._binaries(model),
        )

    @staticmethod
    def _files(container) -> dict[str, str]:
        """The files bound one by one: /etc/hosts, resolv.conf, subPath mounts, the cgroup's
        limits … — those of the projected volume directories (projected.py) are theirs."""
        volumes = getattr(container, "projected", None)
        paths = [p for p in list(container.files) if volumes is None or not volumes.covers(p)]
        # its cgroup's cpu.max and memory.max, as the runtime sets them (cgroupfiles.py)
        return cgroupfiles.files(container.spec) | {p: container.files[p] for p in paths}

    def _binaries(self, model: ImageModel | None) -> dict[str, str]:
        """The host's stock kubectl where the image has its own (podnet.py)."""
        if model is None or not model.kubectl or not self.kubectl:
            return {}
        return {model.kubectl: self.kubectl}

    def _pod_network(self, pod):
        """The pod's network namespace (podnet.py) when one of its containers' images ships
        kubectl; None: each run keeps a loopback of its own."""
        if self.pod_networks is None or self.kubectl is None or self.ships_kubectl is None:
            return None
        if not any(self.ships_kubectl(c.image) for c in [*pod.init, *pod.app]):
            return None
        return self.pod_networks.of(pod)

    def _net_dir(self, pod, container) -> Path:
        """The request directory of the container's current run (netbridge.py): made in
        its home, handed to the pod's uid (the sandbox writes requests there)."""
        home = self._pod_dir(pod.uid) / f"{container.name}-{container.restart_count}"
        where = home / "net"
        where.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0 and pod.uid in self._uids:
            os.lchown(where, self._uids[pod.uid], self._uids[pod.uid])
        return where

    def close(self) -> None:
        """Kill every script still running (bwrap's --die-with-parent would, but their
        control groups would stay behind)."""
        for uid in list(self._lives):
            with self._lock:
                lives = self._lives.pop(uid, [])
            for live in lives:
                live.kill()
                live.wait(DRAIN_SECONDS + 2)
        if self.pod_networks is not None:
            self.pod_networks.close()

    def forget(self, pod_uid: str) -> None:
        """A pod gone from the node: whatever of it still runs is killed (a pod force-deleted
        is not stopped first), and its directories go."""
        with self._lock:
            self._uids.pop(pod_uid, None)
            lives = self._lives.pop(pod_uid, [])
        for live in lives:
            live.kill()
            live.wait(2.0)
        if self.pod_networks is not None:
            self.pod_networks.forget(pod_uid)
        shutil.rmtree(self._pod_dir(pod_uid), ignore_errors=True)


def _security(pod: dict, spec: dict, field: str) -> int:
    """A securityContext id, the container's over the pod's (0: unset; the image's user is
    root). Out of range ids fall back to 0 (the apiserver validates them anyway)."""
    for context in (spec.get("securityContext"), pod["spec"].get("securityContext")):
        value = (context or {}).get(field)
        if isinstance(value, int) and 0 <= value < 2**31:
            return value
    return 0


def exec_in(
    live: Live,
    runner: Runner,
    container,
    pod,
    argv: list[str],
    model,
    timeout: float | None,
    stdin: bytes | None = None,
) -> ExecResult:
    """`argv` run in the container's sandbox, fed `stdin` (`kubectl exec -i`, `kubectl cp`);
    a program not there is the runtime's error (exit 126, as runc words it) rather than
    bwrap's."""
    result = live.exec(runner.run_of(container, pod, argv, model), timeout, stdin=stdin)
    if result.code == 1 and result.stderr.startswith("bwrap: execvp "):
        return ExecResult("", NOT_FOUND.format(argv[0]), 126)
    return result


def probe_output(result: ExecResult, command: list[str], timeout: float) -> str:
    """What an exec probe reports: the command's output, at most maxReadLength
    (pkg/probe/exec/exec.go:32,50-76), or the CRI client's timeout error
    (cri-client pkg/remote_runtime.go:638-641)."""
    if result.timed_out:
        from kubeproof.nodesim.timing import go_duration

        return f'command timed out: "{" ".join(command)}" timed out after {go_duration(timeout)}'
    return (result.stdout + result.stderr)[:PROBE_OUTPUT]
