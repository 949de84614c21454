"""The sandbox a container's shell script really runs in: Debian's busybox-static inside
bubblewrap, hardened as the agent sandbox is (agents/sandbox.py, agents/limits.py: their
staging, control groups, rlimits and seccomp filter are reused, not repeated).

Inside: a root that is the container's writable layer (a host directory of its own, kept
for the container's life so `kubectl exec` and exec probes see what the script wrote; a
restarted container gets a fresh one, as a runtime starts it from the image again), /bin a
tmpfs holding only busybox and its applet links, a fresh /proc and /dev, the pod's mounted
files (ConfigMap, Secret, downward API, /etc/hosts …) read-only, its emptyDir volumes (one
host directory per pod and volume) and the terminationMessagePath file. Nothing else of the
host. The process is uid 0 in a user namespace of its own mapped to an unprivileged host uid
(one per pod, so RLIMIT_NPROC bounds the pod), with no capability, no network (only a
loopback of its own), its own pid, ipc and uts namespaces (`--as-pid-1`: the script is PID 1,
ignoring signals it does not trap, as in a container), no new privileges, an empty
environment but the container's, and the agent sandbox's seccomp filter.

Limits per container: a control group (cgroup v1 memory/pids/cpu, or v2) with the
container's memory limit (else DEFAULT_MEMORY), PIDS processes and its CPU limit (else
DEFAULT_CPUS); without cgroups, rlimits (RLIMIT_AS for memory, RLIMIT_NPROC per pod uid).

Network applets (telnet, ping …) have no link in /bin, but busybox's ash runs its applets
before searching PATH, so a script's `ping` is the applet, which reaches nothing. `wget` and
`nslookup` are netsim's when the run has a request directory (netbridge.py: a shim asks
the node simulator, which answers as it answers `kubectl exec … wget`). `nc` and `httpd`
stay: a script may serve on a port, which netsim learns from its text (servers.py); as
clients they reach nothing.
"""

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from kubeproof.agents import seccomp
from kubeproof.agents.limits import (
    CommandGroup,
    Limits,
    agent_uid,
    cgroup_parents,
    chown_tree,
    group_name,
    tool,
)
from kubeproof.agents.netns import ApiForwarder
from kubeproof.agents.sandbox import STAGE, find_bwrap, stage, staging_prefix
from kubeproof.errors import KubeproofError
from kubeproof.nodesim import netbridge

BUSYBOX = Path("/bin/busybox")  # Debian's busybox-static
MiB = 1 << 20
DEFAULT_MEMORY = 256 * MiB  # a container without a memory limit
MAX_MEMORY = 1024 * MiB  # … and the most any container gets, whatever its limit
DEFAULT_CPUS = 0.5  # a container without a CPU limit; at most one CPU whatever its limit
PIDS = 128  # processes (threads count) per container; per pod through RLIMIT_NPROC
MAX_FILES = 512  # mounted files given to one run
MAX_FILE_BYTES = 1 * MiB  # … each (a ConfigMap holds at most 1 MiB)
LAYER_BYTES = 256 * MiB  # the writable layer's quota (watched: liveproc.py)
# applets that reach the network: left out until netsim backs them
NETWORK_APPLETS = frozenset(
    [
        "wget",
        "nslookup",
        "nc",
        "telnet",
        "telnetd",
        "ping",
        "ping6",
        "traceroute",
        "traceroute6",
        "ftpget",
        "ftpput",
        "tftp",
        "udhcpc",
        "udhcpd",
        "rdate",
        "ssl_client",
        "arping",
    ]
)
# the busybox image's users and groups (its /etc/passwd, /etc/group; trimmed)
PASSWD = "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/home:/bin/false\n"
GROUP = "root:x:0:\nnogroup:x:65534:\n"
# shells a busybox-like image may name that busybox's ash plays (busybox has no such
# applet: a two-line script execs ash)
ALIASES = ("bash", "dash")


@cache
def applets() -> frozenset[str]:
    """`busybox --list` of the host's busybox-static."""
    if not BUSYBOX.is_file():
        raise KubeproofError(
            f"{BUSYBOX} is missing: shell workloads run in Debian's busybox-static",
            hint="apt-get install -y busybox-static",
        )
    out = subprocess.run([str(BUSYBOX), "--list"], capture_output=True, text=True, check=True)
    return frozenset(out.stdout.split())


def available() -> bool:
    """Whether scripts can run for real here (busybox and bubblewrap installed)."""
    return BUSYBOX.is_file() and shutil.which("bwrap") is not None


@dataclass
class Mount:
    """A host directory the container sees (an emptyDir volume)."""

    host: Path
    inside: str
    writable: bool = True


@dataclass
class Run:
    """One process to start in a container's sandbox."""

    argv: list[str]
    env: dict[str, str]
    files: dict[str, str] = field(default_factory=dict)  # path → content, read-only
    mounts: list[Mount] = field(default_factory=list)
    workdir: str = "/"
    hostname: str = "localhost"
    termination_path: str | None = "/dev/termination-log"
    programs: list[str] | None = None  # the image's programs (None: all of busybox's)
    uid: int = 0  # inside the sandbox: securityContext runAsUser (the image's root else)
    gid: int = 0  # runAsGroup; 0 without one, as runc gives a numeric user with no group
    # the host directory of netsim's network tools (netbridge.py); None: no wget at all
    net_dir: Path | None = None
    # programs of the image the host provides (inside path → host file, bound read-only):
    # stock kubectl where the image ships kubectl (podnet.py)
    binaries: dict[str, str] = field(default_factory=dict)


def container_limits(resources: dict | None) -> Limits:
    """The sandbox's limits from a container's `resources.limits` (memory, cpu)."""
    from kubeproof.nodesim.quantity import parse

    limits = (resources or {}).get("limits") or {}
    memory = int(parse(limits["memory"])) if limits.get("memory") else DEFAULT_MEMORY
    cpus = float(parse(limits["cpu"])) if limits.get("cpu") else DEFAULT_CPUS
    memory = max(min(memory, MAX_MEMORY), 4 * MiB)
    return Limits(
        processes=PIDS,
        memory=memory,
        address_space=memory + 64 * MiB,  # RLIMIT_AS, only without a memory cgroup
        open_files=1024,
        file_size=LAYER_BYTES,
        tmp=0,
        scratch=LAYER_BYTES,
        cpus=min(max(cpus, 0.01), 1.0),
    )


class Box:
    """One container's sandbox: its host directory (`home`: rootfs/ is the writable layer,
    termination-log its terminationMessagePath), the pod's host uid, its limits, and the
    pod's network namespace if it has one (podnet.py; else each run has only a loopback of
    its own)."""

    def __init__(
        self, home: Path, uid: int, limits: Limits, network: ApiForwarder | None = None
    ) -> None:
        self.home = home
        self.uid = uid
        self.limits = limits
        self.network = network
        self.bwrap = find_bwrap()
        self.root = os.geteuid() == 0
        self.helpers = {n: tool(n) for n in ("unshare", "prlimit", "setpriv", "env", "nsenter")}
        self.cgroups = cgroup_parents()
        self.filter = seccomp.program()
        self.quota = LAYER_BYTES  # bytes it may write to the host's disk (liveproc.py)
        self.rootfs = home / "rootfs"
        self.termination = home / "termination-log"
        self.rootfs.mkdir(parents=True, exist_ok=True)
        for sub in ("tmp", "root", "etc", "var", "home"):
            (self.rootfs / sub).mkdir(exist_ok=True)
        etc = self.rootfs / "etc"
        for name, text in (("passwd", PASSWD), ("group", GROUP)):
            if not (etc / name).exists():
                (etc / name).write_text(text)
        self.termination.touch()
        if self.root:
            Path(STAGE).mkdir(parents=True, exist_ok=True)
        chown_tree(home, uid)

    def popen(
        self, run: Run, group: CommandGroup | None = None, **kwargs
    ) -> tuple[subprocess.Popen, CommandGroup | None, int]:
        """Start `run` (in `group`, the container's control group, if given: an exec joins
        its container's); (process, its control group or None, the fd bwrap writes its JSON
        info to — the sandboxed PID 1's host pid — for the caller to read and close)."""
        fds: list[int] = []
        staged: list[str] = []
        given = group
        info_r, info_w = os.pipe()
        try:
            args = self._bwrap(run, fds, staged, info_w)
            if self.cgroups and group is None:
                name = group_name("box", self.uid, id(run))
                group = CommandGroup(self.cgroups, self.limits, name)
            unshare = self.helpers["unshare"] if self.root else None
            user = [self.helpers["setpriv"], f"--reuid={self.uid}", f"--regid={self.uid}"]
            netns = [self.helpers["nsenter"], *self.network.enter(), "--"] if self.network else []
            prefix = [
                *staging_prefix(unshare, staged, group),
                *(self.helpers["prlimit"], *self.limits.prlimit_args(bool(self.cgroups)), "--"),
                *netns,
                *([*user, "--clear-groups", "--"] if self.root else []),
                *(self.helpers["env"], "-i"),
            ]
            proc = subprocess.Popen(
                [*prefix, *args],
                pass_fds=[*fds, info_w],
                env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
                cwd="/",
                start_new_session=True,
                **kwargs,
            )
        except BaseException:
            os.close(info_r)
            if group is not None and group is not given:
                group.remove()
            raise
        finally:
            for fd in [*fds, info_w]:
                os.close(fd)
        return proc, group, info_r

    def _bwrap(self, run: Run, fds: list[int], staged: list[str], info: int) -> list[str]:
        def data_fd(data: bytes) -> str:
            fds.append(os.memfd_create("kubeproof-box", os.MFD_CLOEXEC))
            os.write(fds[-1], data)
            os.lseek(fds[-1], 0, os.SEEK_SET)
            return str(fds[-1])

        args = [
            self.bwrap,
            *("--die-with-parent", "--new-session", "--unshare-all", "--unshare-user"),
            *(["--share-net"] if self.network is not None else []),  # the pod's (nsenter)
            "--as-pid-1",
            *("--disable-userns", "--uid", str(run.uid), "--gid", str(run.gid)),
            *("--cap-drop", "ALL"),
            *("--hostname", run.hostname, "--info-fd", str(info)),
            *("--bind", stage(self.rootfs, staged, self.root), "/"),
            *("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/bin"),
            *("--ro-bind", str(BUSYBOX), "/bin/busybox"),
        ]
        programs = self._programs(run.programs)
        for name in sorted(programs - set(ALIASES)):
            args += ["--symlink", "busybox", f"/bin/{name}"]
        for name in sorted(programs & set(ALIASES)):
            wrapper = b'#!/bin/sh\nexec /bin/busybox sh "$@"\n'
            args += ["--perms", "0555", "--ro-bind-data", data_fd(wrapper), f"/bin/{name}"]
        if run.net_dir is not None:  # wget, nslookup: netsim's (netbridge.py)
            for name in sorted(set(netbridge.TOOLS) & set(applets())):
                shim = netbridge.SHIM.encode()
                args += ["--perms", "0555", "--ro-bind-data", data_fd(shim), f"/bin/{name}"]
        args += ["--remount-ro", "/bin"]
        for path, text in list(run.files.items())[:MAX_FILES]:
            data = text.encode()[:MAX_FILE_BYTES]
            if path.startswith("/") and ".." not in path.split("/"):
                args += ["--perms", "0644", "--ro-bind-data", data_fd(data), path]
        for inside, host in run.binaries.items():
            if inside.startswith("/") and ".." not in inside.split("/"):
                args += ["--ro-bind", stage(Path(host), staged, self.root), inside]
        for mount in run.mounts:
            flag = "--bind" if mount.writable else "--ro-bind"
            args += [flag, stage(mount.host, staged, self.root), mount.inside]
        if run.termination_path:
            args += ["--bind", stage(self.termination, staged, self.root), run.termination_path]
        if run.net_dir is not None:
            args += ["--bind", stage(run.net_dir, staged, self.root), netbridge.NET_DIR]
        args += ["--dir", run.workdir, "--chdir", run.workdir, "--clearenv"]
        for name, value in run.env.items():
            args += ["--setenv", name, value]
        return [*args, "--seccomp", data_fd(self.filter), *run.argv]

    @staticmethod
    def _programs(listed: list[str] | None) -> set[str]:
        """The applet links /bin holds: busybox's applets the image has (all, when the model
        lists none), `bash` playing `sh` where the image has bash, no network applets."""
        have = set(applets())
        names = have if listed is None else {n for n in listed if n in have or n in ALIASES}
        return names - NETWORK_APPLETS - {"busybox"}

    def read_termination(self) -> str:
        """The last 4 KiB the process wrote to its terminationMessagePath (getTermination
        Message, kuberuntime_container.go:549-604), read without following links."""
        try:
            fd = os.open(self.termination, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return ""
        try:
            size = os.fstat(fd).st_size
            os.lseek(fd, max(size - 4096, 0), os.SEEK_SET)
            return os.read(fd, 4096).decode(errors="replace")
        finally:
            os.close(fd)

    def layer_bytes(self) -> int:
        from kubeproof.agents.limits import usage

        return usage(self.rootfs, self.quota)

    def remove(self) -> None:
        shutil.rmtree(self.home, ignore_errors=True)


def pod_uid() -> int:
    """A host uid for one pod's containers (as root: one of the agent range; else ours)."""
    return agent_uid()
