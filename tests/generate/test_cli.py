"""`kubeproof tasks generate` and `kubeproof tasks suites`: the layout a runner loads."""

import json

from typer.testing import CliRunner

from kubeproof.cli import app
from kubeproof.generate import store
from kubeproof.generate.task import generate


def test_cli_writes_a_loadable_layout(tmp_path):
    result = CliRunner().invoke(
        app,
        ["tasks", "generate", "--limit", "24", "--seed", "2", "--out", str(tmp_path), "-o", "json"],
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["count"] == 24
    index = json.loads((tmp_path / store.SUITE_FILE).read_text())
    assert index["tasks"] == summary["tasks"]
    loaded = [store.load(tmp_path / i) for i in index["tasks"]]
    assert len({(t.resource_type, t.tier) for t in loaded}) == 24
    first = loaded[0]
    assert first == generate(first.resource_type, first.tier, first.seed)
    assert (tmp_path / first.id / store.REFERENCE_FILE).read_text().endswith(first.reference)


def test_cli_lists_suites_and_refuses_unknown_ones(tmp_path):
    listed = CliRunner().invoke(app, ["tasks", "suites", "-o", "json"])
    assert listed.exit_code == 0
    assert {s["name"]: s["tasks"] for s in json.loads(listed.stdout)} == {
        "kubebench-810": 810,
        "everyday-810": 810,
        "generate-10k": 10200,
    }
    bad = CliRunner().invoke(app, ["tasks", "generate", "--suite", "nope", "--out", str(tmp_path)])
    assert bad.exit_code != 0
