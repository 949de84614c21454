"""`kubeproof netpol` without a cluster: a task shown from its id (text and JSON), and a
run refused before any cluster starts when its mode, suite or task id is wrong."""

import json

from typer.testing import CliRunner

from kubeproof.cli import app
from kubeproof.netpol import tasks

TASK = "netpol/v1/online-boutique/ingress/netarena/remove-ingress+change-port/0"


def test_task_shows_faults_intent_report_and_oracle():
    shown = CliRunner().invoke(app, ["netpol", "task", TASK, "-o", "json"])
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output) == json.loads(tasks.generate(TASK).model_dump_json())
    text = CliRunner().invoke(app, ["netpol", "task", TASK])
    assert text.exit_code == 0, text.output
    assert "root cause: NetworkPolicy/default/shippingservice" in text.output
    assert "Mismatch: default/checkoutservice" in text.output and "kubectl patch" in text.output


def test_run_refuses_a_bad_mode_suite_or_id_before_any_cluster(tmp_path):
    for args, words in (
        (["--mode", "fast"], "--mode 'fast'"),
        (["--suite", "nope"], "no suite 'nope'"),
        (["--id", "netpol/v1/online-boutique/ingress/full/no-such-fault/0"], "no-such-fault"),
    ):
        done = CliRunner().invoke(app, ["netpol", "run", *args, "--out", str(tmp_path / "r")])
        assert done.exit_code != 0 and words in f"{done.output}{done.exception}", done.output
        assert not (tmp_path / "r").exists()
