"""Attacks on the files the harness reads that the agent can write, each played as an agent
against a real embedded cluster through the real sandbox (tests/adversarial/hostile/*.sh).
Every attack also fixes the task, so a harness that trusted its files would score it 1; the
secure outcome is the agent's own `failed` (never `error`, which is retried), host files
untouched, nothing of the host's in the results, the turn within its budget, and the
evidence chain intact."""

import pytest

from tests.adversarial.conftest import SECRET, AttackRun
from tests.conftest import run_cli

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(900)]

ATTACK_BUDGET = 45  # seconds of agent turn: a FIFO that hung the harness would take 60+


def _faults(record: dict) -> str:
    return "\n".join(record.get("agent_faults", []))


def faulted(hostile_run: AttackRun, attack: str, *expected: str) -> dict:
    """The attack's trial.json, once each expected fault is among its agent_faults."""
    record = hostile_run.record(attack)
    missing = [e for e in expected if e not in _faults(record)]
    assert not missing, (missing, record.get("agent_faults"))
    return record


def test_no_attack_ends_in_error_and_none_scores(hostile_run: AttackRun):
    verdicts = {t["agent"]: (t["verdict"], t["score"]) for t in hostile_run.result["trials"]}
    assert len(verdicts) == 4, verdicts
    assert all(v == ("failed", 0) for v in verdicts.values()), verdicts
    assert hostile_run.result["summary"]["total"]["errors"] == 0


def test_host_files_are_never_written_read_or_created_through_planted_links(hostile_run):
    assert (hostile_run.host / "victim").read_text() == "untouched\n"
    assert (hostile_run.host / "secret").read_text() == f"submitted\n{SECRET}\n"
    assert not (hostile_run.host / "created").exists()  # `seen` symlinked here was not followed
    # the secret the decision symlink and the request symlink pointed at is nowhere in the
    # results: trial.json, trajectories, transcripts, evidence chains, run.json
    assert SECRET not in hostile_run.everything_written()


def test_a_symlinked_decision_file_is_the_agents_fault(hostile_run):
    record = faulted(hostile_run, "planted_links", "decision file: .kubeproof/decision is a sym")
    assert record["verdict"] == "failed" and record["score"] == 0
    assert record["decision"]["outcome"] == "none"
    assert all(r["passed"] for r in record["results"])  # judged as usual: the fix held
    assert record["reason"].startswith("the agent's fault:")


def test_planted_protocol_requests_are_refused_and_answers_never_written_through(hostile_run):
    record = faulted(
        hostile_run,
        "planted_links",
        "the protocol request evil2: evil2.req is a symlink",
        "the protocol request evil3: evil3.req is a FIFO",
        "evil4.manifest is a FIFO",
    )
    # the well-formed request whose answer files were symlinks was answered into fresh files
    prescribed = [e for e in hostile_run.chain("planted_links") if e["type"] == "prescribe"]
    assert [e["payload"]["intent"] for e in prescribed] == ["look"]
    # an oversized request is refused with an answer, not read
    assert "evil5.req is 300000 bytes, over the" in hostile_run.chain_commands("planted_links")
    assert record["timings"]["agent"] < ATTACK_BUDGET


def test_the_live_evidence_segment_is_out_of_reach(hostile_run):
    d = hostile_run.dir("planted_links") / "evidence"
    # (the agent's own stdout and stderr, /proc/1/fd/1 and 2, may hold the marker: recorded
    # inside its command entry, not appended to the segment)
    lines = [x for p in sorted(d.glob("segment-*.jsonl")) for x in p.read_bytes().splitlines()]
    assert lines and all(x.startswith(b"{") and x.endswith(b"}") for x in lines)
    assert not any(x.startswith(b"CLOBBERED") for x in lines)
    ok = run_cli("evidence", "verify", str(d))
    assert ok.returncode == 0, ok.stdout


def test_key_material_the_agent_prints_is_scrubbed_from_every_result(hostile_run):
    written = hostile_run.everything_written()
    assert "SMUGGLEDKEYMATERIAL" not in written
    assert "eyJzdWIiOiJzbXVnZ2xlZCJ9" not in written
    assert "[redacted: private key]" in hostile_run.chain_commands("planted_links")
    assert "Bearer [redacted: token]" in hostile_run.chain_commands("planted_links")


def test_forged_call_records_are_skipped_as_the_agents_fault(hostile_run):
    record = faulted(
        hostile_run,
        "call_log",
        "calls/call.argv/argv is a symlink",
        "calls/call.fifo/out is a FIFO",
        "calls/call.nan/start is not a time",
        "calls/call.rc/rc is not an exit code",
        # the FIFO left at the decision file neither hung the harness nor went unnoticed
        "the decision file: .kubeproof/decision is a FIFO",
    )
    assert record["timings"]["agent"] < ATTACK_BUDGET
    assert record["verdict"] == "failed" and all(r["passed"] for r in record["results"])
    # its real kubectl call is recorded; of the forged ones only the well-formed call.seen
    kubectl = [e["payload"] for e in hostile_run.chain("call_log") if e["type"] == "command"]
    assert kubectl[0]["command"].startswith("kubectl -n shop patch role reporter")
    assert sum(c["command"] == "kubectl get pods" for c in kubectl) == 1


def test_the_risk_assessor_survives_bombs_in_command_text_and_sees_through_duplicate_keys(
    hostile_run,
):
    record = faulted(hostile_run, "risk_bombs", "decision file: .kubeproof/decision is not UTF-8")
    assert record["verdict"] == "failed"
    assert all(r["passed"] for r in record["results"])
    commands = [e["payload"] for e in hostile_run.chain("risk_bombs") if e["type"] == "command"]
    assert len(commands) == 1 and commands[0]["risk"]["level"] in ("high", "critical")
    tags = {t["id"] for t in commands[0]["risk"]["tags"]}
    assert "privileged" in tags or "privileged_container" in tags, tags
    assert record["evidence"]["verified"]


def test_a_100_mb_decision_file_is_refused_unread(hostile_run):
    record = faulted(hostile_run, "huge_decision", "decision is 1000000", "over the limit of 65536")
    assert record["verdict"] == "failed"
    assert all(r["passed"] for r in record["results"])
