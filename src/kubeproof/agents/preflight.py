"""Does this machine give the sandbox what it needs? `kubeproof doctor` prints the answer; every
Sandbox asks once per process and refuses to run agent commands when the answer is no, rather
than run them in a weaker sandbox.

The end-to-end probe runs one command in a real sandbox and reads back, from inside, what the
agent would be: uid, capabilities, no_new_privs, seccomp mode, routes.
"""

import functools
import os
import platform
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from kubeproof.errors import KubeproofError

PROBE = (
    "id -u; grep -E '^(CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/self/status; "
    "tail -n +2 /proc/net/route | wc -l; unshare -U true 2>/dev/null && echo userns-open; exit 0"
)
EXPECTED = {"uid": "1000", "CapEff": "0000000000000000", "NoNewPrivs": "1", "Seccomp": "2"}


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    required: bool = True


def _tools() -> Check:
    from kubeproof.agents.sandbox import HOST_PATH

    names = ("bwrap", "unshare", "nsenter", "setpriv", "prlimit", "mount")
    missing = [n for n in names if not shutil.which(n, path=f"{HOST_PATH}:{os.environ['PATH']}")]
    if missing:
        return Check(
            "programs",
            False,
            f"missing {', '.join(missing)} (Debian/Ubuntu: apt-get install bubblewrap util-linux)",
        )
    return Check("programs", True, "bwrap and util-linux's unshare, nsenter, setpriv, prlimit")


def _user_namespaces() -> Check:
    try:
        limit = int(Path("/proc/sys/user/max_user_namespaces").read_text())
    except (OSError, ValueError):
        return Check("user namespaces", False, "the kernel has no user namespaces")
    knobs = ("kernel/unprivileged_userns_clone", "kernel/apparmor_restrict_unprivileged_userns")
    for knob in knobs:
        try:
            value = Path(f"/proc/sys/{knob}").read_text().strip()
        except OSError:
            continue
        bad = value == "0" if knob.endswith("clone") else value == "1"
        if bad:
            return Check("user namespaces", False, f"disabled for unprivileged users ({knob})")
    if limit == 0:
        return Check("user namespaces", False, "user.max_user_namespaces is 0")
    return Check("user namespaces", True, f"up to {limit}")


def _seccomp() -> Check:
    from kubeproof.agents import seccomp

    try:
        size = len(seccomp.program()) // 8
    except seccomp.Unsupported as exc:
        return Check("seccomp", False, str(exc))
    status = Path("/proc/self/status").read_text()
    if "Seccomp:" not in status:
        return Check("seccomp", False, "the kernel was built without seccomp")
    return Check("seccomp", True, f"{size}-instruction filter for {platform.machine()}")


def _cgroups() -> Check:
    from kubeproof.agents.limits import cgroup_parents

    parents = cgroup_parents()
    if parents:
        where = ", ".join(sorted({str(p) for p in parents.values()}))
        kinds = "memory, pids and cpu" if "cpu" in parents else "memory and pids (no cpu)"
        return Check("cgroups", True, f"{kinds} per command under {where}", False)
    return Check(
        "cgroups",
        False,
        "no writable memory+pids cgroup: limits fall back to rlimits (processes per uid, "
        "address space)",
        required=False,
    )


def _probe() -> Check:
    from kubeproof.agents.sandbox import Sandbox

    with tempfile.TemporaryDirectory(prefix="kubeproof-doctor-") as tmp:
        kubeconfig = Path(tmp) / "kubeconfig"
        kubeconfig.write_text("apiVersion: v1\nkind: Config\n")
        try:
            # the probe never runs kubectl: any executable stands in
            box = Sandbox(kubeconfig, Path(tmp) / "home", "/bin/true", timeout=20, checked=True)
            result = box.run(PROBE)
            box.close()
        except KubeproofError as exc:
            return Check("sandbox", False, str(exc))
    lines = result.stdout.splitlines()
    seen = {"uid": lines[0].strip() if lines else "?"}
    for line in lines[1:]:
        key, sep, value = line.partition(":")
        if sep:
            seen[key] = value.strip()
    wrong = [f"{k}={seen.get(k)} (want {v})" for k, v in EXPECTED.items() if seen.get(k) != v]
    if "userns-open" in result.stdout:
        wrong.append("a nested user namespace could be made")
    if result.exit_code != 0 or wrong:
        why = "; ".join(wrong) or result.stderr.strip()[-300:]
        return Check("sandbox", False, f"the probe command saw: {why}")
    routes = lines[-1].strip() if lines else "?"
    return Check(
        "sandbox",
        True,
        f"agent uid 1000, no capabilities, no_new_privs, seccomp filter, {routes} routes",
    )


def checks() -> list[Check]:
    found = [
        Check(
            "root",
            os.geteuid() == 0,
            "running as root: each agent is a host uid of its own, and the harness makes the "
            "network namespaces itself"
            if os.geteuid() == 0
            else "not root: the agent runs as your uid (in a user namespace of its own) and a "
            "holder process of yours keeps its network namespace",
            required=False,
        ),
        _tools(),
        _user_namespaces(),
        _seccomp(),
        _cgroups(),
        _busybox(),
    ]
    if all(c.ok for c in found if c.required):
        found.append(_probe())
    return found


def _busybox() -> Check:
    """Not the agent's: busybox pods' shell scripts run for real in the same kind of sandbox
    (nodesim/runbox.py) when Debian's busybox-static is there; else they are read."""
    there = os.path.isfile("/bin/busybox")
    return Check(
        "busybox-static",
        there,
        "busybox pods' shell scripts run for real in a sandbox"
        if there
        else "missing: busybox pods' shell scripts are read from their text, not run "
        "(apt-get install -y busybox-static)",
        required=False,
    )


@functools.cache
def _verdict() -> str | None:
    failed = [c for c in checks() if c.required and not c.ok]
    return "; ".join(f"{c.name}: {c.detail}" for c in failed) or None


def require() -> None:
    """Raise unless the sandbox can be what it says (asked once per process)."""
    problem = _verdict()
    if problem:
        raise KubeproofError(
            f"this machine cannot give agents a safe sandbox, so no agent runs: {problem}",
            hint="`kubeproof doctor` lists what the sandbox needs and what is missing",
        )
