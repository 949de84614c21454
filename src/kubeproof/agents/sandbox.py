"""The sandbox every agent command runs in (bubblewrap).

Inside: the system's /usr and /etc read-only, a version-matched kubectl, a private /tmp, and
a scratch home holding only the agent's kubeconfig. Not inside: the user's home (admin
kubeconfigs, cluster state directories with their PKI, caches), the repository, baselines,
verifiers, other trials, results. The environment is cleared; each command has a time limit
and its output is cut the same way for every agent.
"""

import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from kubeproof.errors import KubeproofError

OUTPUT_LIMIT = 16_384  # bytes kept per stream: the first and last halves
HOME = "/home/agent"


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


def truncate(data: bytes, limit: int = OUTPUT_LIMIT) -> tuple[str, bool]:
    if len(data) <= limit:
        return data.decode(errors="replace"), False
    half = limit // 2
    cut = len(data) - 2 * half
    text = (
        data[:half].decode(errors="replace")
        + f"\n... [{cut} bytes truncated] ...\n"
        + data[-half:].decode(errors="replace")
    )
    return text, True


def find_bwrap() -> str:
    path = shutil.which("bwrap")
    if not path:
        raise KubeproofError(
            "bubblewrap (bwrap) is not installed: agent commands run only inside it",
            hint="install it (Debian/Ubuntu: apt-get install bubblewrap)",
        )
    return path


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
    ):
        self.kubeconfig = kubeconfig
        self.scratch = scratch
        self.kubectl = kubectl
        self.timeout = timeout
        self.env = env or {}
        self.tools = tools  # extra commands (submit, decline) put beside kubectl
        self.binds = binds or []  # a CLI agent's own program, its kubectl wrapper and call log
        self.bwrap = find_bwrap()
        scratch.mkdir(parents=True, exist_ok=True)

    def argv(self, command: str) -> list[str]:
        args = [
            self.bwrap,
            "--die-with-parent",
            "--new-session",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--hostname",
            "agent",
            "--ro-bind",
            "/usr",
            "/usr",
            "--ro-bind",
            "/etc",
            "/etc",
        ]
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
            "--tmpfs",
            "/tmp",
            "--bind",
            str(self.scratch),
            HOME,
            "--ro-bind",
            str(self.kubeconfig),
            f"{HOME}/.kube/config",
            "--ro-bind",
            self.kubectl,
            "/opt/kubeproof/bin/kubectl",
            "--chdir",
            HOME,
            "--clearenv",
            "--setenv",
            "HOME",
            HOME,
            "--setenv",
            "KUBECONFIG",
            f"{HOME}/.kube/config",
            "--setenv",
            "PATH",
            "/opt/kubeproof/bin:/usr/local/bin:/usr/bin:/bin",
            "--setenv",
            "TERM",
            "dumb",
            "--setenv",
            "LANG",
            "C.UTF-8",
        ]
        for tool in sorted(self.tools.iterdir()) if self.tools else []:
            args += ["--ro-bind", str(tool), f"/opt/kubeproof/bin/{tool.name}"]
        for bind in self.binds:
            args += ["--bind" if bind.writable else "--ro-bind", str(bind.host), bind.inside]
        for name, value in self.env.items():
            args += ["--setenv", name, value]
        return [*args, "/bin/sh", "-c", command]

    def run(
        self,
        command: str,
        timeout: float | None = None,
        stdin: bytes | None = None,
        output_limit: int = OUTPUT_LIMIT,
    ) -> CommandResult:
        limit = timeout or self.timeout
        started = time.monotonic()
        proc = subprocess.Popen(
            self.argv(command),
            stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        timed_out = False
        try:
            out, err = proc.communicate(input=stdin, timeout=limit)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            out, err = proc.communicate()
        stdout, cut_out = truncate(out, output_limit)
        stderr, cut_err = truncate(err, output_limit)
        if timed_out:
            stderr += f"\nkubeproof: command timed out after {limit:g}s and was killed\n"
        return CommandResult(
            command,
            124 if timed_out else proc.returncode,
            stdout,
            stderr,
            round(time.monotonic() - started, 3),
            timed_out,
            cut_out or cut_err,
        )
