"""One run of the hostile-file attacks, shared by the adversarial test modules: every attack
script played as an agent (script and CLI agents, protocol mode on) against a real embedded
cluster through the real sandbox, on a task each of them fixes — so every verdict below would
be `resolved` if the harness took the agent's files at their word."""

import json
from pathlib import Path

import pytest

from kubeproof.evidence.chain import read_entries
from tests.conftest import run_cli

TASK = "tasks/repair/rbac-access/pod-report-empty"
SLUG = "repair__rbac-access__pod-report-empty"
HOSTILE = Path(__file__).with_name("hostile")
# script or cli, per attack
ATTACKS = {
    "planted_links": "script",
    "call_log": "cli",
    "risk_bombs": "script",
    "huge_decision": "script",
}
SECRET = "HOST-SECRET-7f3a9c"
AGENT_WRITABLE = {"home", "protocol", "cli-log"}  # bound writable into the sandbox


class AttackRun:
    def __init__(self, out: Path, host: Path, result: dict):
        self.out, self.host, self.result = out, host, result

    def dir(self, attack: str) -> Path:
        return self.out / "trials" / SLUG / f"{ATTACKS[attack]}-{attack}" / "1"

    def record(self, attack: str) -> dict:
        return json.loads((self.dir(attack) / "trial.json").read_text())

    def chain(self, attack: str) -> list[dict]:
        return read_entries(self.dir(attack) / "evidence")

    def chain_commands(self, attack: str) -> str:
        """The text of every command entry of a trial's chain: what ran and what it printed."""
        return "\n".join(
            f"{e['payload']['command']}\n{e['payload']['stdout']}\n{e['payload']['stderr']}"
            for e in self.chain(attack)
            if e["type"] == "command"
        )

    def everything_written(self) -> str:
        """Every result file of the run, as text: trial.json, trajectories, transcripts,
        chains, run.json (not the agent's own directories, whose planted symlinks point at
        the host files)."""
        return "\n".join(
            p.read_bytes().decode(errors="replace")
            for p in self.out.rglob("*")
            if not p.is_symlink()
            and p.is_file()
            and not AGENT_WRITABLE & set(p.relative_to(self.out).parts)
        )


@pytest.fixture(scope="session")
def hostile_run(tmp_path_factory, binaries_built) -> AttackRun:
    host = tmp_path_factory.mktemp("host")
    (host / "secret").write_text(f"submitted\n{SECRET}\n")
    (host / "victim").write_text("untouched\n")
    out = tmp_path_factory.mktemp("attacks")
    scripts = tmp_path_factory.mktemp("scripts")
    agents = []
    for name, kind in ATTACKS.items():
        text = (HOSTILE / f"{name}.sh").read_text()
        script = scripts / f"{name}.sh"
        script.write_text(text.replace("@HOST@", str(host)).replace("@RUN@", str(out)))
        script.chmod(0o755)
        agents += ["--agent", f"{kind}:{script}"]
    result = run_cli(
        "run", "--tasks", TASK, *agents, "--protocol",
        "-j", "2", "--retries", "0", "--out", str(out), "-o", "json",
        timeout=900,
    )  # fmt: skip
    # exit 1 would mean a trial ended in `error`: the tests say which
    run = json.loads(result.stdout) if result.stdout.strip() else {}
    assert run, result.stderr[-3000:]
    return AttackRun(out, host, run)
