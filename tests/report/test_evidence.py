"""A trial page's evidence section: a chain signed as a trial signs it (evidence/
recording.py) reads `verified`, with the risk of each command beside its step; an edited
trial.json or chain reads `NOT verified` with the problem."""

import re
from pathlib import Path

from kubeproof.agents.session import Step
from kubeproof.evidence import keys
from kubeproof.evidence import results as signed
from kubeproof.evidence.recording import TrialRecording
from kubeproof.report import build_report
from kubeproof.results import EvidenceSummary, RunPaths, TrialResult
from tests.report.synth import make_run


def sign(trial_dir: Path) -> None:
    """The trial's chain, written as runner/trial.py writes one, and trial.json beside it."""
    result = TrialResult.read(trial_dir / "trial.json")
    recording = TrialRecording(trial_dir / "evidence", keys.generate(), "agent", None, "oracle")
    recording.start(result.task, result.agent, "1", None, "fix it")
    recording.record_steps(
        [Step(1, "kubectl -n shop delete pod web-1", 0, "pod deleted", "", 0.5, False, False)]
    )
    recording.recorder.append("result", signed.trial_payload(result.record()))
    result.evidence = EvidenceSummary.model_validate(
        recording.finish(result.record(), 1, protocol=False)
    )
    result.write(trial_dir / "trial.json")


def chain_line(page: Path) -> str:
    return re.search(r'<p id="chain"[^>]*>([^<]*)', page.read_text()).group(1)


def test_chain_status(tmp_path):
    run = make_run(tmp_path / "run")
    trials = RunPaths(run).trials
    good = trials / "repair__alpha__one" / "oracle" / "1"
    edited = trials / "repair__alpha__two" / "oracle" / "1"
    sign(good)
    sign(edited)
    text = (edited / "trial.json").read_text()
    (edited / "trial.json").write_text(text.replace('"score": 1', '"score": 0', 1))
    index = build_report([run], tmp_path / "site")
    pages = {p.read_text().split("<code>")[1].split("</code>")[0]: p
             for p in (index.parent / "trials").iterdir()}  # fmt: skip
    page = pages["trials/repair__alpha__one/oracle/1"]
    assert chain_line(page).startswith("chain verified: ")
    assert "risk high · destroy" in page.read_text()  # the chain's risk of step 1
    bad = pages["trials/repair__alpha__two/oracle/1"].read_text()
    assert "chain NOT verified" in bad and "result: " in bad and "score" in bad
    unsigned = pages["trials/repair__beta__three/oracle/1"].read_text()
    assert "This trial has no evidence chain." in unsigned
