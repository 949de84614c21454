"""The sandbox every agent command runs in (bubblewrap), built to hold against an agent that
looks for a way out, with kubeproof running as root.

Inside: the system's /usr and /etc read-only, a version-matched kubectl, a /tmp tmpfs of fixed
size, and a scratch home holding only the agent's kubeconfig. Not inside: the user's home
(admin kubeconfigs, cluster state directories with their PKI, caches), the repository,
baselines, verifiers, other trials, results, the harness's environment.

Each command: a user namespace of its own where the agent is uid 1000 with no capability (and,
as root, a host uid of its own that owns nothing of the host), no_new_privs, no further user
namespaces, the seccomp filter of `agents/seccomp.py`, its own pid, ipc, uts and cgroup
namespaces with a fresh /proc, the network namespace of `agents/netns.py` (only the trial's
apiserver, through a forwarder the harness owns), and the limits of `agents/limits.py`. bwrap
starts with an empty environment, so not even the sandbox's pid 1 holds the harness's. What
the sandbox cannot have, it refuses: `kubeproof doctor` says what is missing.
Each command has a time limit and its output is cut the same way for every agent.
"""

import itertools
import os
import shlex
import shutil
import signal
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import yaml

from kubeproof.agents import preflight, seccomp
from kubeproof.agents.capture import OUTPUT_LIMIT, Capture, truncate
from kubeproof.agents.limits import (
    CommandGroup,
    Limits,
    agent_uid,
    cgroup_parents,
    chown_tree,
    group_name,
    tool,
    usage,
)
from kubeproof.agents.netns import HOST_PATH, ApiForwarder
from kubeproof.errors import KubeproofError
from kubeproof.hostile import HostileInput

__all__ = [
    "HOME",
    "OUTPUT_LIMIT",
    "STAGE",
    "Bind",
    "CommandResult",
    "Sandbox",
    "find_bwrap",
    "stage",
    "staging_prefix",
    "truncate",
]

HOME = "/home/agent"
UID = 1000  # the agent, inside
_serial = itertools.count()
STAGE = "/run/kubeproof-sandbox"  # an empty directory; a tmpfs in each command's mount namespace
PASSWD = (
    "root:x:0:0:root:/root:/usr/sbin/nologin\n"
    f"agent:x:{UID}:{UID}:agent:{HOME}:/bin/sh\n"
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
)
GROUP = f"root:x:0:\nagent:x:{UID}:\nnogroup:x:65534:\n"
# what a command may run under: POSIX sh, or bash for scripts written for it (a Harbor
# task's solve.sh and test.sh), both from the host's read-only /usr
SHELLS = ("/bin/sh", "/bin/bash")


@dataclass(frozen=True)
class Bind:
    host: Path
    inside: str
    writable: bool = False


@dataclass
class CommandResult:
    command: str
    exit_code: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    truncated: bool = False


def find_bwrap() -> str:
    path = shutil.which("bwrap")
    if not path:
        raise KubeproofError(
            "bubblewrap (bwrap) is not installed: agent commands run only inside it",
            hint="install it (Debian/Ubuntu: apt-get install bubblewrap)",
        )
    return path


def _server(kubeconfig: Path) -> str | None:
    """The apiserver the agent's kubeconfig names (None: a kubeconfig naming none)."""
    try:
        config = yaml.safe_load(Path(kubeconfig).read_text()) or {}
        if not config.get("clusters"):
            return None
        current = config.get("current-context")
        context = next(c for c in config.get("contexts") or [] if c["name"] == current)
        name = context["context"]["cluster"]
        return next(c for c in config["clusters"] if c["name"] == name)["cluster"]["server"]
    except (OSError, yaml.YAMLError, KeyError, StopIteration, TypeError) as exc:
        raise KubeproofError(f"cannot find the apiserver in {kubeconfig}: {exc}") from exc


def stage(path: Path | str, staged: list[str], root: bool) -> str:
    """Where `path` is staged for bwrap as root (see staging_prefix); else itself. Absolute
    either way: the helpers run from another directory (a run given as `--out run`)."""
    path = os.path.abspath(path)
    if not root:
        return path
    staged.append(path)
    return f"{STAGE}/{len(staged) - 1}"


def staging_prefix(unshare: str | None, staged: list[str], group: CommandGroup | None) -> list[str]:
    """The shell that starts a sandboxed command: it joins the command's control groups and,
    as root (`unshare` given), makes a private mount namespace in which each bind source is
    staged under STAGE, so that an unprivileged uid (which cannot search /root or a state
    directory) can reach it; then execs its arguments."""
    lines = ["set -e"]
    if group is not None:
        lines += [f"echo $$ > {shlex.quote(f'{d}/cgroup.procs')}" for d in group.dirs]
    head: list[str] = []
    if unshare:
        head = [unshare, "--mount", "--propagation", "private", "--"]
        lines.append(f"mount -t tmpfs -o mode=0755,size=64k kubeproof-stage {STAGE}")
    for i, source in enumerate(staged):
        point = f"{STAGE}/{i}"
        make = "mkdir" if Path(source).is_dir() else "touch"
        lines.append(f"{make} {point} && mount --bind {shlex.quote(source)} {point}")
    lines.append('exec "$@"')
    return [*head, "/bin/sh", "-c", "\n".join(lines), "sh"]


class Sandbox:
    def __init__(
        self,
        kubeconfig: Path,
        scratch: Path,
        kubectl: str,
        *,
        timeout: float = 60.0,
        env: dict[str, str] | None = None,
        tools: Path | None = None,
        binds: list[Bind] | None = None,
        limits: Limits | None = None,
        checked: bool = False,
        endpoints: list[str] | tuple[str, ...] = (),
        workdir: str = HOME,
    ):
        self.kubeconfig = kubeconfig
        self.workdir = workdir  # where commands start: the home, or a task's workspace
        self.scratch = scratch
        self.kubectl = kubectl
        self.timeout = timeout
        self.env = env or {}
        self.tools = tools  # extra commands (submit, decline) put beside kubectl
        self.binds = binds or []  # a CLI agent's own program, its kubectl wrapper and call log
        self.limits = limits or Limits()
        self.bwrap = find_bwrap()
        if not checked:  # the machine gives what the sandbox needs, or nothing runs
            preflight.require()
        self.root = os.geteuid() == 0
        self.helpers = {
            n: tool(n) for n in ("unshare", "prlimit", "nsenter", "setpriv", "mount", "env")
        }
        if self.root:
            Path(STAGE).mkdir(parents=True, exist_ok=True)
        self.uid = agent_uid()
        self.cgroups = cgroup_parents()
        self.filter = seccomp.program()  # refuses an architecture without a filter
        scratch.mkdir(parents=True, exist_ok=True)
        chown_tree(scratch, self.uid)
        # the apiserver, and the model endpoints a CLI agent's config declares: nothing else
        self.network = ApiForwarder(_server(kubeconfig), endpoints)

    def close(self) -> None:
        self.network.close()

    def _bwrap_args(
        self, command: str, fds: list[int], staged: list[str], shell: str = SHELLS[0]
    ) -> list[str]:
        def staged_path(path: Path | str) -> str:
            return stage(path, staged, self.root)

        def data_fd(data: bytes) -> str:
            fds.append(os.memfd_create("kubeproof-sandbox", os.MFD_CLOEXEC))
            os.write(fds[-1], data)
            os.lseek(fds[-1], 0, os.SEEK_SET)
            return str(fds[-1])

        hosts = self.network.hosts.encode() + Path("/etc/hosts").read_bytes()  # ours first
        args = [
            self.bwrap,
            "--die-with-parent",
            "--new-session",
            "--unshare-user",
            "--disable-userns",
            "--uid",
            str(UID),
            "--gid",
            str(UID),
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--cap-drop",
            "ALL",
            "--hostname",
            "agent",
            "--ro-bind",
            "/usr",
            "/usr",
            "--ro-bind",
            "/etc",
            "/etc",
        ]
        for name, text in (("passwd", PASSWD), ("group", GROUP), ("hosts", hosts)):
            data = text if isinstance(text, bytes) else text.encode()
            args += ["--perms", "0444", "--ro-bind-data", data_fd(data), f"/etc/{name}"]
        for link in ("bin", "sbin", "lib", "lib64"):
            target = Path("/") / link
            if target.is_symlink():
                args += ["--symlink", os.readlink(target), f"/{link}"]
            elif target.exists():
                args += ["--ro-bind", str(target), f"/{link}"]
        args += [
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--size",
            str(self.limits.tmp),
            "--tmpfs",
            "/tmp",
            "--bind",
            staged_path(self.scratch),
            HOME,
            "--perms",
            "0400",
            "--ro-bind-data",
            data_fd(Path(self.kubeconfig).read_bytes()),
            f"{HOME}/.kube/config",
            "--ro-bind",
            staged_path(self.kubectl),
            "/opt/kubeproof/bin/kubectl",
            "--chdir",
            self.workdir,
            "--clearenv",
        ]
        env = {
            "HOME": HOME,
            "USER": "agent",
            "KUBECONFIG": f"{HOME}/.kube/config",
            "PATH": "/opt/kubeproof/bin:/usr/local/bin:/usr/bin:/bin",
            "TERM": "dumb",
            "LANG": "C.UTF-8",
        }
        for name, value in {**env, **self.env}.items():
            args += ["--setenv", name, value]
        for t in sorted(self.tools.iterdir()) if self.tools else []:
            args += ["--ro-bind", staged_path(t), f"/opt/kubeproof/bin/{t.name}"]
        for bind in self.binds:
            # a bind source in reach of the agent (a workspace under its home) may have been
            # swapped for a symlink between commands: mounting it would follow it
            if Path(bind.host).is_symlink():
                raise HostileInput(
                    f"{bind.inside}: its folder was replaced by a symlink", planted=True
                )
            if bind.writable:
                chown_tree(bind.host, self.uid)
            flag = "--bind" if bind.writable else "--ro-bind"
            args += [flag, staged_path(bind.host), bind.inside]
        filter_fd = data_fd(self.filter)
        args += ["--remount-ro", "/"]  # the sandbox's own root too: only home and /tmp take writes
        if shell not in SHELLS:
            raise KubeproofError(f"no such sandbox shell: {shell}")
        return [*args, "--seccomp", filter_fd, shell, "-c", command]

    def _prefix(self, staged: list[str], group: CommandGroup | None) -> list[str]:
        """The helpers before bwrap. As root: a private mount namespace in which each bind
        source is staged under STAGE (so the agent's uid, which cannot search /root or a
        trial directory, can reach it), the command's control groups, the rlimits, the
        network namespace and the agent's host uid. As another user, the agent is that user:
        the control groups (if delegated), rlimits, and the holder's namespaces."""
        limits = self.limits.prlimit_args(bool(self.cgroups))
        user = [self.helpers["setpriv"], f"--reuid={self.uid}", f"--regid={self.uid}"]
        unshare = self.helpers["unshare"] if self.root else None
        return [
            *staging_prefix(unshare, staged, group),
            *(self.helpers["prlimit"], *limits, "--"),
            *(self.helpers["nsenter"], *self.network.enter(), "--"),
            *([*user, "--clear-groups", "--"] if self.root else []),
            *(self.helpers["env"], "-i"),  # bwrap's own environment: empty
        ]

    @contextmanager
    def popen(self, command: str, shell: str = "/bin/sh", **kwargs):
        """The command running in the sandbox (a subprocess.Popen), cleaned up on exit."""
        fds: list[int] = []
        staged: list[str] = []
        group = None
        try:
            if self.scratch.stat().st_uid != self.uid:
                os.chown(self.scratch, self.uid, self.uid)
            bwrap = self._bwrap_args(command, fds, staged, shell)
            if self.cgroups:
                name = group_name("", self.uid, next(_serial))
                group = CommandGroup(self.cgroups, self.limits, name)
            ours, theirs = self._pipes(kwargs)
            proc = subprocess.Popen(
                [*self._prefix(staged, group), *bwrap],
                pass_fds=fds,
                env={"PATH": HOST_PATH},
                cwd="/",
                start_new_session=True,
                **kwargs,
            )
            for fd in fds + theirs:
                os.close(fd)
            fds = []
            for name, pipe in ours.items():
                setattr(proc, name, pipe)
            proc.group = group  # type: ignore[attr-defined]
            try:
                yield proc
            finally:
                if proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        finally:
            for fd in fds:
                os.close(fd)
            if group is not None:
                group.remove()

    def _pipes(self, kwargs: dict) -> tuple[dict, list[int]]:
        """Pipes for the streams asked as subprocess.PIPE, owned by the agent's uid so that
        `/dev/stdin`, `/dev/stdout` and `/dev/stderr` open inside (they reopen the pipe)."""
        ours, theirs = {}, []
        for name in ("stdin", "stdout", "stderr"):
            if kwargs.get(name) is not subprocess.PIPE:
                continue
            r, w = os.pipe()
            os.fchown(r, self.uid, self.uid)
            child, parent = (r, w) if name == "stdin" else (w, r)
            kwargs[name] = child
            theirs.append(child)
            ours[name] = os.fdopen(parent, "wb" if name == "stdin" else "rb")
        return ours, theirs

    def interactive(self, command: str, stdin=None) -> int:
        """Run `command` attached to the terminal (or `stdin`); its exit code."""
        with self.popen(command, stdin=stdin) as proc:
            return proc.wait()

    def run(
        self,
        command: str,
        timeout: float | None = None,
        stdin: bytes | None = None,
        output_limit: int = OUTPUT_LIMIT,
        shell: str = "/bin/sh",
    ) -> CommandResult:
        limit = timeout or self.timeout
        started = time.monotonic()
        notes = []
        pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
        with self.popen(
            command,
            shell,
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            **pipes,
        ) as proc:
            capture = Capture(proc, stdin, output_limit)
            timed_out = False
            while not capture.wait(0.25):
                if time.monotonic() - started > limit:
                    timed_out = True
                    notes.append(f"command timed out after {limit:g}s and was killed")
                    break
                if usage(self.scratch, self.limits.scratch) > self.limits.scratch:
                    notes.append(
                        f"the home directory went over its {self.limits.scratch >> 20} MiB "
                        "limit; the command was killed"
                    )
                    break
            if notes:
                os.killpg(proc.pid, signal.SIGKILL)
            code = proc.wait()
            stdout, stderr, cut = capture.finish()
            if proc.group is not None and proc.group.oom_killed():
                notes.append(
                    f"the command went over its {self.limits.memory >> 20} MiB memory limit: "
                    "the kernel killed a process of it"
                )
        for note in notes:
            stderr += f"\nkubeproof: {note}\n"
        return CommandResult(
            command,
            124 if timed_out else (128 - code if code < 0 else code),
            stdout,
            stderr,
            round(time.monotonic() - started, 3),
            timed_out,
            cut,
        )
