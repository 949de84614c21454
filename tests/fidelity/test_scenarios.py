"""The scenario format and `kubeproof fidelity`'s command line."""

import json

import pytest

from kubeproof.fidelity.judge import Observed, ObservedEvent, judge
from kubeproof.fidelity.scenario import ScenarioError, load, parse
from kubeproof.nodesim.timing import REAL
from tests.conftest import run_cli

GOOD = """
scenarios:
  - name: one
    source: pkg/kubelet/kubelet_pods.go:1653
    pod: {spec: {containers: [{name: a, image: "busybox:1.36"}]}}
    until: 5
    expect:
      events:
        - {reason: Started, message: Container started, at: 1}
"""


def test_a_scenario_without_source_is_rejected_naming_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(GOOD.replace("    source: pkg/kubelet/kubelet_pods.go:1653\n", ""))
    with pytest.raises(ScenarioError) as caught:
        load([bad])
    text = str(caught.value)
    assert str(bad) in text and "source" in text and "Field required" in text
    assert f"{bad}:3:" in text  # the scenario's line


def test_errors_name_the_field_and_its_line():
    text = GOOD.replace("reason: Started,", "reason: Started, colour: red,")
    with pytest.raises(ScenarioError) as caught:
        parse(text, "x.yaml")
    (problem,) = caught.value.problems
    assert problem.file == "x.yaml" and problem.line == 9
    assert "expect.events.0.colour" in problem.where


def test_a_source_must_be_a_path_and_line():
    with pytest.raises(ScenarioError, match="not an upstream path:line"):
        parse(GOOD.replace("kubelet_pods.go:1653", "kubelet_pods.go"), "x.yaml")


def test_names_are_unique_across_files(tmp_path):
    (tmp_path / "a.yaml").write_text(GOOD)
    (tmp_path / "b.yaml").write_text(GOOD)
    with pytest.raises(ScenarioError, match="name also used in"):
        load([tmp_path / "a.yaml", tmp_path / "b.yaml"])


def test_live_times_are_judged_in_a_window_golden_times_exactly():
    (scenario,) = parse(GOOD, "x.yaml")

    def observed(at: float) -> Observed:
        event = ObservedEvent(at, "Normal", "Started", "Container started", None)
        return Observed([event], [], None, {})

    assert judge(scenario, observed(1.0), live=False, timing=REAL).ok
    assert not judge(scenario, observed(1.5), live=False, timing=REAL).ok
    assert judge(scenario, observed(3.1), live=True, timing=REAL).ok  # ±(2 s + 20 %)
    assert not judge(scenario, observed(3.3), live=True, timing=REAL).ok


def test_the_help_documents_modes_and_exit_codes():
    done = run_cli("fidelity", "--help")
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    for needed in ("--kubeconfig", "--embedded", "--scenario", "--timing", "Exit codes",
                   "0: every observable matched", "1: some observable differs",
                   "2: bad input"):  # fmt: skip
        assert needed in text, needed


def test_the_cli_runs_golden_and_reports_json():
    done = run_cli("fidelity", "-s", "pull-create-start", "-s", "env-secret-missing", "-o", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["mode"] == "golden" and report["scenarios"] == 2
    assert report["share"] == 1.0 and report["differ"] == []


def test_the_cli_exits_1_when_a_scenario_differs_and_2_on_bad_input(tmp_path):
    differs = tmp_path / "differs.yaml"
    differs.write_text(GOOD.replace("message: Container started", "message: Container began"))
    done = run_cli("fidelity", "-f", str(differs))
    assert done.returncode == 1
    assert "Container began" in done.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text(GOOD.replace("until: 5", "until: -1"))
    done = run_cli("fidelity", "-f", str(bad))
    assert done.returncode == 2 and "bad.yaml" in done.stderr
    assert run_cli("fidelity", "-s", "no-such-scenario").returncode == 2


WITH_LOGS = """
scenarios:
  - name: two
    source: pkg/kubelet/kubelet_pods.go:1653
    objects: [{kind: ConfigMap, metadata: {name: cfg}, data: {k: v1}}]
    updates: [{at: 5, object: {kind: ConfigMap, metadata: {name: cfg}, data: {k: v2}}}]
    pod: {spec: {containers: [{name: a, image: "busybox:1.36"}]}}
    until: 10
    expect:
      logs:
        - {container: a, message: first}
        - {container: a, match: "sec.*"}
"""


def test_log_lines_are_an_ordered_subsequence_per_container():
    (scenario,) = parse(WITH_LOGS, "x.yaml")
    assert scenario.updates[0].at == 5

    def observed(lines: list[str]) -> Observed:
        return Observed([], [], None, {}, logs={"a": lines})

    assert judge(scenario, observed(["first", "x", "second"]), live=False, timing=REAL).ok
    result = judge(scenario, observed(["second", "first"]), live=False, timing=REAL)
    assert [c.matched for c in result.checks] == [True, False]


def test_an_update_must_replace_one_of_the_objects():
    other = WITH_LOGS.replace("metadata: {name: cfg}, data: {k: v2}", "metadata: {name: other}")
    with pytest.raises(ScenarioError, match="not one of the objects"):
        parse(other, "x.yaml")
