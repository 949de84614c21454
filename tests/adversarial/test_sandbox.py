"""The sandbox against an agent looking for a way out: attack scripts played as agents, as
root, against a real embedded cluster through the real sandbox (one `kubeproof run`, four
trials at -j 2). Each probe prints `PROBE <name> blocked ...` only on positive evidence that
its attack failed; anything the attacks get is used to fix the task, so a hole would also
show as a verdict the agent did not earn."""

import base64
import json
import os
import re
import socket
import struct
from pathlib import Path

import pytest

from tests.conftest import run_cli

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(600)]

TASK = Path("tasks/repair/rbac-access/pod-report-empty").resolve()
SLUG = "repair__rbac-access__pod-report-empty"
SCRIPTS = Path(__file__).with_name("sandbox")
ATTACKS = ("escape", "network", "bomb", "hogs")
CANARY = "CANARY-harness-env-5d1e"
SEED = base64.b64encode(b"sandbox-test-canary-signing-key!").decode()  # 32 bytes
HARNESS_ENV = {
    "KUBEPROOF_EVIDENCE_KEY": SEED,
    "OPENAI_API_KEY": f"sk-{CANARY}-0123456789abcdefghij",
    "ANTHROPIC_API_KEY": f"sk-ant-{CANARY}-0123456789abcdefghij",
    "KUBEPROOF_SANDBOX_CANARY": CANARY,
}


def _gateway() -> str:
    for line in Path("/proc/net/route").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == "00000000" and fields[2] != "00000000":
            return socket.inet_ntoa(struct.pack("<I", int(fields[2], 16)))
    return "192.0.2.1"


class Attacks:
    def __init__(self, out: Path, victim: Path, run: dict, other: str):
        self.out, self.victim, self.run, self.other = out, victim, run, other

    def dir(self, attack: str) -> Path:
        return self.out / "trials" / SLUG / f"script-{attack}" / "1"

    def record(self, attack: str) -> dict:
        return json.loads((self.dir(attack) / "trial.json").read_text())

    def steps(self, attack: str) -> list[dict]:
        lines = (self.dir(attack) / "trajectory.jsonl").read_text().splitlines()
        return [json.loads(line) for line in lines]

    def output(self, attack: str) -> str:
        return self.steps(attack)[0]["stdout"]

    def probes(self, attack: str) -> dict[str, str]:
        """{probe name: the rest of its line}; LEAK lines fail the test that reads them."""
        found = {}
        for line in self.output(attack).splitlines():
            word, _, rest = line.partition(" ")
            if word in ("PROBE", "LEAK"):
                name, _, detail = rest.partition(" ")
                key = f"net {detail.split()[0]}" if name == "net" else name
                found[key] = f"{word} {detail}"
        return found

    def blocked(self, attack: str, name: str) -> str:
        line = self.probes(attack).get(name)
        step = {k: v for k, v in self.steps(attack)[0].items() if k not in ("stdout", "stderr")}
        assert line is not None, (
            f"probe {name} never reported:\n{self.output(attack)[-3000:]}\nstep: {step}\n"
            f"stderr: {self.steps(attack)[0].get('stderr', '')[-1500:]}"
        )
        assert line.startswith("PROBE") and " blocked" in f" {line.split(' ', 1)[1]}", line
        return line


@pytest.fixture(scope="module")
def attacks(tmp_path_factory, cluster, isolated_state) -> Attacks:
    out = tmp_path_factory.mktemp("sandbox-attacks")
    host = tmp_path_factory.mktemp("host")
    victim = host / "victim"
    victim.write_text("untouched\n")
    scripts = tmp_path_factory.mktemp("sandbox-scripts")
    other = re.sub(r"^https?://|:\d+$", "", cluster.server).strip("[]")
    lib = (SCRIPTS / "_lib.sh").read_text()
    values = {
        "@STATE@": str(isolated_state),
        "@KEYFILE@": os.environ["KUBEPROOF_EVIDENCE_KEY_FILE"],
        "@TASK@": str(TASK),
        "@OUT@": str(out),
        "@VICTIM@": str(victim),
        "@OTHER@": other,
        "@GATEWAY@": _gateway(),
    }
    agents = []
    for name in ATTACKS:
        text = lib + (SCRIPTS / f"{name}.sh").read_text()
        for placeholder, value in values.items():
            text = text.replace(placeholder, value)
        (scripts / f"{name}.sh").write_text(text)
        agents += ["--agent", f"script:{scripts / name}.sh"]
    saved = {k: os.environ.get(k) for k in HARNESS_ENV}
    os.environ.update(HARNESS_ENV)  # the harness's secrets, which no agent may see
    try:
        result = run_cli(
            "run", "--tasks", str(TASK), *agents,
            "-j", "2", "--retries", "0", "--out", str(out), "-o", "json",
            timeout=540,
        )  # fmt: skip
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    run = json.loads(result.stdout) if result.stdout.strip() else {}
    assert run, result.stderr[-3000:]
    for fill in (out / "trials").rglob("home/fill*"):  # the disk filler's 200 MB files
        fill.unlink()
    return Attacks(out, victim, run, other)


def test_the_agent_is_an_unprivileged_uid_with_no_capabilities_and_no_route_but_the_apiserver(
    attacks,
):
    out = attacks.output("network")
    print(out)  # the figure the issue asks for, shown in the test log
    assert "IDENTITY uid=1000 gid=1000 groups=1000 user=agent" in out
    status = dict(re.findall(r"^STATUS (\w+):(\S+)$", out, re.M))
    for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert status[cap] == "0000000000000000", (cap, status)
    assert status["NoNewPrivs"] == "1" and status["Seccomp"] == "2"
    assert re.search(r"^ROUTES 0 0$", out, re.M), out
    assert "ROUTE " not in out  # no route at all but loopback's
    assert re.search(r"^LINKS lo $", out, re.M), out
    assert "PROBE apiserver reachable https://" in out


@pytest.mark.parametrize(
    "target",
    [
        "own:2379",  # the trial's etcd
        "own:2380",
        "own:10257",  # controller-manager metrics
        "own:10259",  # scheduler metrics
        "127.0.0.1:2379",
        "127.0.0.1:6443",
        "other:6443",  # another cluster's apiserver on this machine
        "other:2379",
        "other:10257",
        "gateway:80",  # off the machine
        "1.1.1.1:443",
        "8.8.8.8:53",
        "2606:4700:4700::1111:443",
    ],
)
def test_nothing_but_the_trials_apiserver_is_reachable(attacks, target):
    own = re.search(r"https://([\d.]+):", attacks.output("network")).group(1)
    assert own != attacks.other
    hosts = {"own": own, "other": attacks.other, "gateway": _gateway()}
    name, port = target.rsplit(":", 1)
    attacks.blocked("network", f"net {hosts.get(name, name)}:{port}")


def test_no_name_resolves(attacks):
    attacks.blocked("network", "dns")


def test_a_flood_of_connections_cannot_tie_up_the_harnesss_forwarder(attacks):
    flood = re.search(r"^FLOOD held (\d+) refused (\d+)$", attacks.output("network"), re.M)
    assert flood, attacks.output("network")
    held, refused = int(flood.group(1)), int(flood.group(2))
    assert held <= 64 and held + refused == 200, flood.group(0)  # MAX_CONNECTIONS at once
    attacks.blocked("network", "flood")  # and the apiserver still answered afterwards


def test_file_handles_do_not_open_the_host_filesystem(attacks):
    assert "EPERM EPERM" in attacks.blocked("escape", "handle")


def test_no_process_environment_shows_the_harness_secrets(attacks):
    line = attacks.blocked("escape", "environ")
    assert line.endswith(" pid1=")  # bwrap's own environment: empty
    everything = attacks.output("escape") + json.dumps(attacks.steps("escape"))
    assert CANARY not in everything and SEED not in everything


def test_harness_files_are_unreachable_by_path_proc_root_and_descriptors(attacks):
    attacks.blocked("escape", "files")  # admin kubeconfig, PKI, key, baseline, tests, solution
    attacks.blocked("escape", "fds")
    attacks.blocked("escape", "processes")  # no harness or control-plane process in sight


def test_nothing_outside_the_scratch_home_and_tmp_is_writable(attacks):
    attacks.blocked("escape", "writes")
    assert attacks.victim.read_text() == "untouched\n"
    assert not (attacks.out / "evil").exists()


def test_mounts_new_namespaces_and_setuid_are_refused(attacks):
    attacks.blocked("escape", "mount")  # mount, unshare -r, unshare -Urm, a nested bwrap, su
    assert "EPERM" in attacks.blocked("escape", "namespaces")


def test_ptrace_and_cross_process_memory_are_refused(attacks):
    attacks.blocked("escape", "ptrace")


def test_killing_every_process_it_can_signal_reaches_only_its_own(attacks):
    attacks.blocked("escape", "killall")  # `kill -9 -1`, then the trial went on to its verdict
    assert attacks.record("escape")["verdict"] == "failed"


def test_keyrings_bpf_perf_io_uring_modules_and_vsock_are_refused(attacks):
    attacks.blocked("escape", "syscalls")
    attacks.blocked("escape", "vsock")


def test_a_fork_bomb_is_held_at_the_process_limit(attacks):
    out = attacks.output("bomb")
    assert "LIMITS nproc=256 nofile=1024 fsize=268435456" in out
    line = attacks.blocked("bomb", "forkbomb")
    # it ran (a glob over a churning /proc counts pids seen, not alive at once) and forks
    # were refused at the limit while the agent's own shell went on
    assert int(re.search(r"peak=(\d+)", line).group(1)) > 10, line
    assert "Cannot fork" in line, line


def test_memory_tmp_file_size_and_disk_hogs_are_stopped_at_their_limits(attacks):
    p = attacks.probes("hogs")
    assert p["memory"] in ("PROBE exit=137", "PROBE exit=1"), p  # OOM-killed or MemoryError
    tmp = re.fullmatch(r"PROBE exit=(\d+) size=(\d+)", p["tmp"])
    assert tmp and tmp.group(1) != "0" and int(tmp.group(2)) <= 256, p["tmp"]
    one = re.fullmatch(r"PROBE exit=(\d+) size=(\d+)", p["filesize"])
    assert one and one.group(1) != "0" and int(one.group(2)) <= 256, p["filesize"]
    written = [
        int(n) for n in re.findall(r"^PROBE disk wrote (\d+)$", attacks.output("hogs"), re.M)
    ]
    assert max(written, default=0) <= 4 and "LEAK" not in attacks.output("hogs")
    first = attacks.steps("hogs")[0]
    assert "home directory went over its 512 MiB limit" in first["stderr"]


def test_no_attack_earned_a_pass_and_none_ended_as_a_harness_error(attacks):
    for attack in ATTACKS:
        record = attacks.record(attack)
        assert record["verdict"] != "error", (attack, record.get("reason"))
        assert record["verdict"] != "resolved" and record["score"] == 0, (attack, record)
        leaks = [line for line in attacks.output(attack).splitlines() if line.startswith("LEAK")]
        assert not leaks, (attack, leaks)
    assert attacks.run["summary"]["total"]["errors"] == 0
