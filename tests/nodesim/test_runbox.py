"""The sandbox container scripts really run in (nodesim/runbox.py, liveproc.py): Debian's
busybox-static in bubblewrap, run directly — no cluster."""

import os
import subprocess
import time
from pathlib import Path

import pytest

from kubeproof.agents.limits import (
    CommandGroup,
    Limits,
    cgroup_parents,
    group_name,
    sweep_stale,
)
from kubeproof.nodesim import runbox
from kubeproof.nodesim.liveproc import Live
from kubeproof.nodesim.runbox import Box, Mount, Run

pytestmark = pytest.mark.skipif(
    not runbox.available(), reason="needs busybox-static and bubblewrap"
)
ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root"}


def _box(tmp_path: Path, memory: str = "64Mi", name: str = "c") -> Box:
    limits = runbox.container_limits({"limits": {"memory": memory}})
    return Box(tmp_path / name, runbox.pod_uid(), limits)


def _script(text: str, **fields) -> Run:
    return Run(argv=["sh", "-c", text], env=ENV | fields.pop("env", {}), **fields)


def _finished(live: Live, seconds: float = 20) -> Live:
    assert live.wait(seconds), "the script did not exit"
    return live


def test_a_script_loops_expands_its_variables_and_exits_with_its_code(tmp_path):
    logs: list[tuple[float, str]] = []
    script = 'for i in 1 2 3; do echo "${GREETING}, round $i"; done; echo oops >&2; exit 3'
    run = _script(script, env={"GREETING": "hello"}, hostname="web-0")
    live = _finished(Live(_box(tmp_path), run, logs))
    assert [line for _, line in logs] == [
        "hello, round 1",
        "hello, round 2",
        "hello, round 3",
        "oops",
    ]
    assert (live.exit_code, live.reason) == (3, "Error")
    assert all(abs(t - time.time()) < 30 for t, _ in logs)


def test_lines_arrive_as_they_are_written(tmp_path):
    logs: list[tuple[float, str]] = []
    live = Live(_box(tmp_path), _script("echo first; sleep 1.5; echo second"), logs)
    deadline = time.time() + 10
    while not logs and time.time() < deadline:
        time.sleep(0.05)
    assert [line for _, line in logs] == ["first"] and live.alive
    _finished(live)
    assert [line for _, line in logs] == ["first", "second"]
    assert logs[1][0] - logs[0][0] >= 1.0  # stamped when they arrived
    assert (live.exit_code, live.reason) == (0, "Completed")


def test_exec_runs_in_the_same_container_and_sees_its_files(tmp_path):
    box = _box(tmp_path)
    live = Live(box, _script("sleep 1; touch /tmp/ready; echo data > /root/note; sleep 30"), [])
    try:
        assert live.exec(_script("test -f /tmp/ready"), timeout=5).code == 1
        time.sleep(1.5)
        assert live.exec(_script("test -f /tmp/ready"), timeout=5).code == 0
        assert live.exec(Run(["cat", "/root/note"], ENV), timeout=5).stdout == "data\n"
        late = live.exec(_script("sleep 5"), timeout=0.5)
        assert late.timed_out
    finally:
        live.kill()
        _finished(live)
    assert live.exit_code == 137


def test_the_pods_files_env_and_hostname_are_there_and_read_only(tmp_path):
    files = {"/etc/config/app.conf": "mode=fast\n", "/etc/hostname": "web-0\n"}
    shared = tmp_path / "shared"
    shared.mkdir()
    run = _script(
        "cat /etc/config/app.conf; hostname; echo $MODE; echo x > /etc/config/app.conf "
        "|| echo refused; echo written > /cache/out",
        env={"MODE": "blue"},
        files=files,
        hostname="web-0",
        mounts=[Mount(shared, "/cache")],
    )
    box = _box(tmp_path)
    runbox.chown_tree(shared, box.uid)  # as the Runner hands an emptyDir to the pod's uid
    logs: list[tuple[float, str]] = []
    _finished(Live(box, run, logs))
    lines = [line for _, line in logs]
    assert lines[:3] == ["mode=fast", "web-0", "blue"]
    assert lines[-1] == "refused"
    assert (shared / "out").read_text() == "written\n"  # an emptyDir, shared by the pod


def test_nothing_of_the_host_is_reachable(tmp_path):
    secret = tmp_path / "host-secret"
    secret.write_text("s3cret")
    script = (
        f"cat {secret} 2>/dev/null || echo no-host-file; ls /usr 2>/dev/null || echo no-usr; "
        "touch /bin/x 2>/dev/null || echo ro-bin; wget -q -O- http://1.1.1.1 2>/dev/null "
        "|| echo no-network; id -u"
    )
    logs: list[tuple[float, str]] = []
    _finished(Live(_box(tmp_path), _script(script), logs))
    assert [line for _, line in logs] == ["no-host-file", "no-usr", "ro-bin", "no-network", "0"]


def test_pid_1_ignores_sigterm_unless_the_script_traps_it(tmp_path):
    plain = Live(_box(tmp_path, name="a"), _script("while true; do sleep 0.1; done"), [])
    trapped = Live(
        _box(tmp_path, name="b"),
        _script("trap 'echo bye; exit 0' TERM; while true; do sleep 0.1; done"),
        logs := [],
    )
    time.sleep(0.5)
    plain.terminate()
    trapped.terminate()
    assert trapped.wait(5) and trapped.exit_code == 0 and logs[-1][1] == "bye"
    assert not plain.wait(1)  # PID 1 without a handler: SIGTERM does nothing
    plain.kill()
    assert _finished(plain).exit_code == 137


def test_the_termination_message_is_read_without_following_links(tmp_path):
    box = _box(tmp_path)
    _finished(Live(box, _script("echo done > /dev/termination-log"), []))
    assert box.read_termination() == "done\n"
    box.termination.unlink()
    os.symlink("/etc/passwd", box.termination)
    assert box.read_termination() == ""


def test_a_fork_bomb_is_contained(tmp_path):
    # busybox ash refuses `:` as a function name; the same bomb under a name it takes
    started = time.monotonic()
    run = _script("bomb(){ bomb | bomb & }; bomb; sleep 3; echo still-here")
    logs: list[tuple[float, str]] = []
    live = _finished(Live(_box(tmp_path), run, logs), 30)
    assert time.monotonic() - started < 20
    assert any("can't fork" in line for _, line in logs)  # the pids limit held it
    # PID 1 either got past the bomb (0), or its own fork failed, which ends a
    # non-interactive ash with an error; either way the rest of its namespace goes with it
    lines = [line for _, line in logs]
    # busybox writes "sh: " and the error text apart, so a dying bomb process's prefix can
    # land in front of PID 1's own line in the shared log ("sh: still-here")
    survived = any(line.endswith("still-here") for line in lines)
    assert (live.exit_code == 0) == survived, (live.exit_code, lines[-5:])
    probe = Live(_box(tmp_path, name="after"), _script("echo responsive"), got := [])
    assert _finished(probe, 10).exit_code == 0, got
    assert got[0][1] == "responsive"


@pytest.mark.skipif("memory" not in cgroup_parents(), reason="needs a memory cgroup")
def test_an_unbounded_allocation_is_oom_killed(tmp_path):
    started = time.monotonic()
    run = _script('echo start; x=a; while true; do x="$x$x"; done')
    live = _finished(Live(_box(tmp_path, memory="32Mi"), run, logs := []), 30)
    assert time.monotonic() - started < 20
    # the kernel's OOM kill of PID 1: SIGKILL (137), containerd's oomExitReason
    assert (live.exit_code, live.reason) == (137, "OOMKilled")
    assert [line for _, line in logs] == ["start"]


def test_the_script_runs_as_its_security_contexts_user(tmp_path):
    # runAsUser without runAsGroup: gid 0, as runc sets a numeric user with no group
    logs: list[tuple[float, str]] = []
    run = _script("id -u; id -g; touch /tmp/mine && echo wrote", uid=1000, gid=0)
    _finished(Live(_box(tmp_path), run, logs))
    assert [line for _, line in logs] == ["1000", "0", "wrote"]


def test_a_line_without_end_is_kept_to_a_bound(tmp_path):
    # `yes | tr -d '\n'` never ends its line: the node simulator keeps 256 KiB of it
    run = _script("head -c 2000000 /dev/zero | tr '\\0' x; echo; echo next")
    logs: list[tuple[float, str]] = []
    _finished(Live(_box(tmp_path), run, logs))
    assert [len(line) for _, line in logs] == [256 << 10, 4]
    assert logs[0][1] == "x" * (256 << 10)


def test_a_container_writing_past_its_disk_quota_is_killed(tmp_path):
    box = _box(tmp_path)
    box.quota = 8 << 20  # 256 MiB in use; small here to keep the test light
    run = _script("dd if=/dev/zero of=/tmp/fill bs=1M count=20 2>/dev/null; sleep 30")
    live = _finished(Live(box, run, []), 20)
    assert live.over_quota and live.exit_code == 137


def _counts_cpu() -> bool:
    """cgroup v2 (one group for memory and pids: cpu.stat), or a v1 cpuacct hierarchy."""
    parents = cgroup_parents()
    v2 = bool(parents) and parents["memory"] == parents["pids"]
    return v2 or "cpuacct" in parents or (parents.get("cpu", Path("/-")) / "cpuacct.usage").exists()


@pytest.mark.skipif(not _counts_cpu(), reason="needs a cgroup that counts CPU")
def test_the_cpu_a_script_burns_is_counted_within_its_limit(tmp_path):
    # a busy loop under a 200m limit for 2.5 s: at most 0.5 CPU seconds (the quota), and on
    # a loaded 2-core machine still some
    limits = runbox.container_limits({"limits": {"cpu": "200m"}})
    live = Live(Box(tmp_path / "c", runbox.pod_uid(), limits), _script("while :; do :; done"), [])
    assert live.group is not None and live.cpu is not None
    time.sleep(2.5)
    used = live.group.cpu_seconds()
    live.kill()
    assert used is not None and 0.05 < used <= 0.2 * 2.5 + 0.15, used
    _finished(live, 20)


@pytest.mark.skipif(not cgroup_parents(), reason="needs cgroups")
def test_groups_a_killed_harness_left_are_swept_but_none_in_use():
    parents = cgroup_parents()
    stale = CommandGroup(parents, Limits(), f"kubeproof-test-stale-{os.getpid()}")
    young = CommandGroup(parents, Limits(), f"kubeproof-test-young-{os.getpid()}")
    busy = CommandGroup(parents, Limits(), f"kubeproof-test-busy-{os.getpid()}")
    # a process in `busy`, as a command's are (join_script moves the shell, then execs)
    sleeper = subprocess.Popen(["sh", "-c", busy.join_script(), "sh", "sleep", "30"])
    try:
        time.sleep(0.3)
        hour_ago = time.time() - 3600
        for d in stale.dirs + busy.dirs:
            os.utime(d, (hour_ago, hour_ago))
        assert sweep_stale(parents) >= len(stale.dirs)
        assert not any(d.exists() for d in stale.dirs)
        assert all(d.exists() for d in young.dirs + busy.dirs)
    finally:
        sleeper.kill()
        sleeper.wait()
        young.remove()
        busy.remove()


@pytest.mark.skipif(not cgroup_parents(), reason="needs cgroups")
def test_what_a_dead_node_simulator_left_in_its_groups_is_killed_and_swept():
    # bwrap's child waits on an eventfd for its parent to map its ids: a node simulator
    # killed as it starts a probe leaves that child waiting forever under init (seen: 3
    # after 15 kills). Its group's name says which process made it; that one is gone.
    parents = cgroup_parents()
    gone = subprocess.Popen(["true"])
    gone.wait()
    stranded = CommandGroup(parents, Limits(), f"kubeproof-box-{os.getuid()}-{gone.pid}-1")
    ours = CommandGroup(parents, Limits(), group_name("box", os.getuid(), "sweep-test"))
    left = subprocess.Popen(["sh", "-c", stranded.join_script(), "sh", "sleep", "60"])
    kept = subprocess.Popen(["sh", "-c", ours.join_script(), "sh", "sleep", "60"])
    try:
        time.sleep(0.3)
        assert sweep_stale(parents) >= len(stranded.dirs)
        assert left.wait(5) == -9  # SIGKILLed
        assert not any(d.exists() for d in stranded.dirs)
        assert kept.poll() is None and all(d.exists() for d in ours.dirs)  # its maker lives
    finally:
        for proc in (left, kept):
            proc.kill()
            proc.wait()
        stranded.remove()
        ours.remove()
