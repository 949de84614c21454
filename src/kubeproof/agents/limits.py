"""Resource limits of the sandbox: processes, memory, open files, file size and disk.

Each agent command runs in a control group of its own when the machine lets the harness make
one (cgroup v1 `memory` and `pids` hierarchies, or cgroup v2 with both controllers delegated
to the harness's group), capping its memory (swap included), its number of tasks and, where
the `cpu` controller is there too, its CPU time (one CPU); the group is removed when the
command ends. Always, whatever the cgroups: rlimits on processes
(counted per host uid, and as root every sandbox gets a host uid of its own), open files,
the size of one file and core dumps, and — only where no memory cgroup exists — the address
space. /tmp is a tmpfs of fixed size; the scratch home is watched by the sandbox and a
command that takes it over its quota is killed.
"""

import contextlib
import itertools
import os
import re
import shutil
import signal
import time
from dataclasses import dataclass
from pathlib import Path

MiB = 1 << 20
CPU_PERIOD = 100_000  # microseconds
CGROUP_ROOT = Path("/sys/fs/cgroup")
# as root, each sandbox's agent is a host uid of its own in this range (never a real user's):
# RLIMIT_NPROC counts per uid, and no two trials' agents share files or signals
AGENT_UID_BASE = 1_900_000_000
AGENT_UID_SPAN = 1 << 24
_serial = itertools.count()


@dataclass(frozen=True)
class Limits:
    processes: int = 256  # tasks (threads count: Go's kubectl runs ~10)
    memory: int = 1024 * MiB  # memory cgroup, swap included
    address_space: int = 8192 * MiB  # RLIMIT_AS, only where no memory cgroup exists
    open_files: int = 1024
    file_size: int = 256 * MiB  # one file, anywhere
    tmp: int = 256 * MiB  # the /tmp tmpfs
    scratch: int = 512 * MiB  # the home directory, summed over its files
    cpus: float = 1.0  # CPU time per wall second, where a cpu cgroup exists

    def prlimit_args(self, memory_cgroup: bool) -> list[str]:
        args = [
            f"--nproc={self.processes}",
            f"--nofile={self.open_files}",
            f"--fsize={self.file_size}",
            "--core=0",
        ]
        if not memory_cgroup:
            args.append(f"--as={self.address_space}")
        return args


def agent_uid() -> int:
    """A host uid for one sandbox's agent (as root; otherwise the caller's own)."""
    if os.geteuid() != 0:
        return os.getuid()
    slot = (os.getpid() * 4096 + next(_serial)) % AGENT_UID_SPAN
    return AGENT_UID_BASE + slot


def _own_group(controller: str | None) -> str | None:
    """This process's group in a v1 hierarchy (`controller`) or the v2 one (None)."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if (controller is None and names == "") or controller in names.split(","):
            return path
    return None


def _writable(directory: Path) -> bool:
    return directory.is_dir() and os.access(directory, os.W_OK)


def cgroup_parents() -> dict[str, Path]:
    """Where per-command groups can be made: {"memory": dir, "pids": dir} and, where they
    can be had, "cpu" and (v1) "cpuacct"; empty if nowhere. One dir for memory and pids
    means cgroup v2. The first call in a process sweeps what killed harnesses left there."""
    global _swept
    found = _find_parents()
    if found and not _swept:
        _swept = True
        sweep_stale(found)
    return found


STALE_SECONDS = 600.0  # an empty group of ours this old belongs to no live command
GROUP_PREFIX = "kubeproof-"  # every per-command group's name (sandbox.py, runbox.py)
_swept = False


# a group's name when it says which process made it: kubeproof-[box-]UID-PID-N
_OWNED = re.compile(r"kubeproof-(?:box-)?\d+-(\d+)-\d+")


def group_name(kind: str, uid: int, serial: object) -> str:
    """The name of a per-command group, carrying the pid of the process that makes it so a
    sweep can tell when that process is gone (kind "" for an agent's command)."""
    return f"{GROUP_PREFIX}{kind + '-' if kind else ''}{uid}-{os.getpid()}-{serial}"


def _maker_gone(name: str) -> bool:
    found = _OWNED.fullmatch(name)
    if found is None:
        return False
    try:
        os.kill(int(found.group(1)), 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):
        return False  # alive (another user's, or reused): left alone
    return False


def _kill_members(group: str) -> int:
    """SIGKILL what is still in a group whose maker is gone. bwrap's sandboxed child waits
    on an eventfd for its parent bwrap to map its ids; a bwrap killed in that window (its
    node simulator killed as it started an exec probe) leaves the child waiting forever,
    reparented to init, where --die-with-parent cannot reach it."""
    try:
        members = Path(group, "cgroup.procs").read_text().split()
    except OSError:
        return 0
    for pid in members:
        with contextlib.suppress(OSError, ValueError):
            os.kill(int(pid), signal.SIGKILL)
    return len(members)


def sweep_stale(parents: dict[str, Path], now: float | None = None) -> int:
    """Remove our per-command groups that no process is in and that were made more than
    STALE_SECONDS ago: a harness killed mid-command (a timeout's SIGKILL) never ran its
    `remove`, and each such group stayed for the machine's life. A group in use holds its
    command's processes; one emptied a moment ago is young. A group whose maker is gone
    (its name says which process made it) is emptied first, whatever its age: what is left
    in it is stranded. Returns how many went."""
    now = time.time() if now is None else now
    removed = 0
    for parent in set(parents.values()):
        try:
            entries = [e for e in os.scandir(parent) if e.name.startswith(GROUP_PREFIX)]
        except OSError:
            continue
        for entry in entries:
            try:
                if not entry.is_dir(follow_symlinks=False):
                    continue
                if _maker_gone(entry.name):
                    killed = _kill_members(entry.path)
                    if _removed(entry.path, tries=50 if killed else 1):
                        removed += 1
                    continue
                if now - entry.stat(follow_symlinks=False).st_mtime < STALE_SECONDS:
                    continue
                if Path(entry.path, "cgroup.procs").read_text().strip():
                    continue
                os.rmdir(entry.path)
                removed += 1
            except OSError:
                continue  # in use after all, or gone already
    return removed


def _removed(group: str, tries: int) -> bool:
    for _ in range(tries):  # the killed take a moment to be reaped
        try:
            os.rmdir(group)
            return True
        except FileNotFoundError:
            return False
        except OSError:
            time.sleep(0.02)
    return False


def _find_parents() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for controller in ("memory", "pids", "cpu", "cpuacct"):
        own = _own_group(controller)
        base = CGROUP_ROOT / controller
        if own is not None and _writable(base / own.lstrip("/")):
            found[controller] = base / own.lstrip("/")
    if {"memory", "pids"} <= found.keys():
        return found
    own = _own_group(None)  # cgroup v2: the controllers delegated to our group's children
    for base in (CGROUP_ROOT, CGROUP_ROOT / "unified"):
        if own is None or not (base / "cgroup.controllers").exists():
            continue
        group = base / own.lstrip("/")
        try:
            enabled = set((group / "cgroup.subtree_control").read_text().split())
        except OSError:
            continue
        if {"memory", "pids"} <= enabled and _writable(group):
            return {c: group for c in ("memory", "pids", "cpu") if c in enabled}
    return {}


class CommandGroup:
    """The control group(s) of one command: made before it starts, removed after."""

    def __init__(self, parents: dict[str, Path], limits: Limits, name: str):
        self.dirs: list[Path] = []
        quota = int(limits.cpus * CPU_PERIOD)
        try:
            if parents["memory"] == parents["pids"]:  # cgroup v2
                d = self._make(parents["memory"] / name)
                (d / "memory.max").write_text(str(limits.memory))
                if (d / "memory.swap.max").exists():
                    (d / "memory.swap.max").write_text("0")
                (d / "pids.max").write_text(str(limits.processes))
                if "cpu" in parents:
                    (d / "cpu.max").write_text(f"{quota} {CPU_PERIOD}")
                return
            m = self._make(parents["memory"] / name)
            (m / "memory.limit_in_bytes").write_text(str(limits.memory))
            if (m / "memory.memsw.limit_in_bytes").exists():
                (m / "memory.memsw.limit_in_bytes").write_text(str(limits.memory))
            p = self._make(parents["pids"] / name)
            (p / "pids.max").write_text(str(limits.processes))
            if "cpu" in parents:
                c = self._make(parents["cpu"] / name)
                (c / "cpu.cfs_period_us").write_text(str(CPU_PERIOD))
                (c / "cpu.cfs_quota_us").write_text(str(quota))
            if "cpuacct" in parents and parents["cpuacct"] != parents.get("cpu"):
                self._make(parents["cpuacct"] / name)  # where the CPU used is counted
        except OSError:
            self.remove()
            raise

    def _make(self, d: Path) -> Path:
        d.mkdir()
        self.dirs.append(d)
        return d

    def join_script(self) -> str:
        """Shell that moves itself into the group(s), then runs its arguments."""
        moves = "".join(f"echo $$ > '{d}/cgroup.procs' && " for d in self.dirs)
        return f'{moves}exec "$@"'

    def cpu_seconds(self) -> float | None:
        """CPU time its processes have used, dead ones included: v2's cpu.stat usage_usec,
        or v1's cpuacct.usage (nanoseconds; in the cpu group where cpu and cpuacct share a
        hierarchy); None where neither is there."""
        for d in self.dirs:
            try:
                return int((d / "cpuacct.usage").read_text()) / 1e9
            except (OSError, ValueError):
                pass
            try:
                for line in (d / "cpu.stat").read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "usage_usec":
                        return int(value) / 1e6
            except (OSError, ValueError):
                pass
        return None

    def oom_killed(self) -> bool:
        for d in self.dirs:
            for name in ("memory.events", "memory.oom_control"):
                try:
                    text = (d / name).read_text()
                except OSError:
                    continue
                for line in text.splitlines():
                    key, _, value = line.partition(" ")
                    if key == "oom_kill" and value.strip() not in ("", "0"):
                        return True
        return False

    def remove(self) -> None:
        for d in reversed(self.dirs):
            _removed(str(d), tries=50)
        self.dirs = []


def usage(directory: Path, cap: int) -> int:
    """Bytes under `directory` (allocated blocks, symlinks not followed); stops counting past
    `cap`. A directory of very many entries counts as over the cap."""
    total, entries, stack = 0, 0, [str(directory)]
    while stack and total <= cap:
        try:
            with os.scandir(stack.pop()) as it:
                for entry in it:
                    entries += 1
                    if entries > 200_000:
                        return cap + 1
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    total += st.st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            continue
    return total


def chown_tree(path: Path, uid: int) -> None:
    """Hand a directory the harness made (and what the harness put in it) to the agent's uid."""
    if os.geteuid() != 0 or not path.exists():
        return
    os.lchown(path, uid, uid)
    if path.is_dir() and not path.is_symlink():
        for root, dirs, files in os.walk(path):
            for name in dirs + files:
                os.lchown(os.path.join(root, name), uid, uid)


def tool(name: str) -> str:
    path = shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin")
    if not path:
        from kubeproof.errors import KubeproofError

        raise KubeproofError(
            f"{name} is not installed: the sandbox needs it",
            hint="install util-linux (Debian/Ubuntu: apt-get install util-linux)",
        )
    return path
