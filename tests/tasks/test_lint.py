"""Task files: a good task loads; bad ones give path:line errors and start no cluster."""

import json
import stat
from pathlib import Path

from kubeproof.tasks import TaskFile, load
from tests.conftest import run_cli

TASK_TOML = """\
schema_version = "1.4"

[task]
name = "kubeproof/repair/rbac-access/reporter-cannot-list"
description = "The pod reporter shows nothing"

[agent]
timeout_sec = 600

[kubeproof]
title = "The pod report is empty"
area = "rbac-access"
difficulty = "easy"
canary = "6f1d2c3a-4b5e-4f60-8a7b-9c0d1e2f3a4b"

[[kubeproof.permissions]]
namespace = "shop"
resources = ["roles", "rolebindings"]
api_groups = ["rbac.authorization.k8s.io"]
verbs = ["get", "list", "patch"]

[[kubeproof.permissions]]
namespace = "shop"
resources = ["pods", "pods/log"]
verbs = ["get", "list"]

[[kubeproof.root_causes]]
kind = "Role"
namespace = "shop"
name = "reporter"
field = "rules[0].verbs"
"""

SETUP = """\
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: reporter, namespace: shop}
"""


VERIFY = """\
def verify(v):
    v.permission("system:serviceaccount:shop:reporter", "list", "pods", "shop")
    v.uid_preserved("Role", "shop", "reporter")
    v.rbac_no_wildcards("shop")
"""

BROKEN = """\
def broken(v):
    v.permission("system:serviceaccount:shop:reporter", "list", "pods", "shop", allowed=False)
"""


def make_task(root: Path, toml: str = TASK_TOML) -> Path:
    task = root / "tasks" / "repair" / "rbac-access" / "reporter-cannot-list"
    (task / "environment" / "setup").mkdir(parents=True)
    (task / "environment" / "break").mkdir()
    (task / "solution").mkdir()
    (task / "tests" / "shortcuts").mkdir(parents=True)
    (task / "task.toml").write_text(toml)
    (task / "instruction.md").write_text("The pod report page in shop is empty since Monday.\n")
    (task / "environment" / "setup" / "10-shop.yaml").write_text(SETUP)
    (task / "environment" / "break" / "role.yaml").write_text(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"
        "metadata: {name: reporter, namespace: shop}\n"
        "rules: [{apiGroups: [''], resources: [pods], verbs: [get]}]\n"
    )
    solve = task / "solution" / "solve.sh"
    solve.write_text(
        "#!/bin/sh\nkubectl -n shop patch role reporter --type=json -p "
        '\'[{"op": "replace", "path": "/rules/0/verbs", "value": ["get", "list"]}]\'\n'
    )
    solve.chmod(solve.stat().st_mode | stat.S_IEXEC)
    (task / "tests" / "verify.py").write_text(VERIFY)
    (task / "environment" / "broken.py").write_text(BROKEN)
    (task / "tests" / "shortcuts" / "wildcard.sh").write_text("#!/bin/sh\nexit 0\n")
    return task


def test_a_good_task_loads_with_its_id_and_lints_clean(tmp_path):
    task_dir = make_task(tmp_path)
    task = load(task_dir)
    assert task.id == "repair/rbac-access/reporter-cannot-list"
    assert task.spec.kubeproof.permissions[1].resources == ["pods", "pods/log"]
    assert task.spec.verifier.timeout_sec == 60
    lint = run_cli("tasks", "lint", str(tmp_path / "tasks"))
    assert lint.returncode == 0, lint.stdout + lint.stderr
    listed = json.loads(run_cli("tasks", "list", str(tmp_path / "tasks"), "-o", "json").stdout)
    assert listed[0]["area"] == "rbac-access" and listed[0]["problems"] == 0


def _lint(tmp_path, task_dir) -> list[str]:
    result = run_cli("tasks", "lint", str(task_dir))
    assert result.returncode == 1
    return result.stdout.strip().splitlines()


def test_schema_errors_name_the_file_and_line(tmp_path):
    bad = TASK_TOML.replace('difficulty = "easy"', 'difficulty = "trivial"').replace(
        'verbs = ["get", "list"]\n', "verbs = 3\n"
    )
    task_dir = make_task(tmp_path, bad)
    lines = _lint(tmp_path, task_dir)
    toml = task_dir / "task.toml"
    assert f"{toml}:13: kubeproof.difficulty: Input should be 'easy', 'medium' or 'hard'" in lines
    assert any(line.startswith(f"{toml}:25: kubeproof.permissions.1.verbs:") for line in lines)


def test_missing_fields_point_at_their_table(tmp_path):
    task_dir = make_task(tmp_path, TASK_TOML.replace('title = "The pod report is empty"\n', ""))
    lines = _lint(tmp_path, task_dir)
    assert f"{task_dir / 'task.toml'}:10: kubeproof.title: Field required" in lines


def test_invalid_toml_and_yaml_give_their_lines(tmp_path):
    task_dir = make_task(tmp_path, TASK_TOML.replace('area = "rbac-access"', "area = "))
    assert any(":12: invalid TOML" in line for line in _lint(tmp_path, task_dir))
    task_dir = make_task(tmp_path / "y")
    (task_dir / "environment" / "setup" / "10-shop.yaml").write_text(
        SETUP + "---\nkind: ConfigMap\nmetadata: {name: x}\n---\napiVersion: v1\nkind: [\n"
    )
    lines = _lint(tmp_path, task_dir)
    setup = task_dir / "environment" / "setup" / "10-shop.yaml"
    assert any(line.startswith(f"{setup}:") and "invalid YAML" in line for line in lines)


def test_manifest_fields_and_missing_files_are_reported(tmp_path):
    task_dir = make_task(tmp_path)
    (task_dir / "environment" / "setup" / "20-extra.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\nkind: Secret\nmetadata: {}\n"
    )
    (task_dir / "solution" / "solve.sh").unlink()
    (task_dir / "tests" / "verify.py").write_text("def verify(:\n")
    lines = _lint(tmp_path, task_dir)
    extra = task_dir / "environment" / "setup" / "20-extra.yaml"
    assert f"{extra}:5: manifest has no apiVersion" in lines
    assert f"{extra}:5: Secret has no metadata.name" in lines
    assert (
        f"{task_dir / 'solution' / 'solve.sh'}:1: missing solution/solve.sh (the oracle)" in lines
    )
    assert any(
        line.startswith(f"{task_dir / 'tests' / 'verify.py'}:1: syntax error") for line in lines
    )


def test_published_schema_is_current():
    published = json.loads(Path("docs/task.schema.json").read_text())
    assert published == TaskFile.model_json_schema()


def test_unknown_checks_and_a_missing_verifier_function_are_reported(tmp_path):
    task_dir = make_task(tmp_path)
    (task_dir / "tests" / "verify.py").write_text(
        VERIFY + "    v.rollout_completed('shop', 'reporter')\n    v.pods_healthy('shop')\n"
    )
    (task_dir / "environment" / "broken.py").write_text("def assertions(v):\n    pass\n")
    lines = _lint(tmp_path, task_dir)
    verify = task_dir / "tests" / "verify.py"
    assert (
        f"{verify}:5: unknown check or contract v.rollout_completed "
        "(did you mean rollout_complete?)" in lines
    )
    assert f"{verify}:6: unknown check or contract v.pods_healthy" in " ".join(lines)
    broken = task_dir / "environment" / "broken.py"
    assert f"{broken}:1: defines no function broken(v)" in lines


def test_a_bad_task_never_starts_a_cluster(tmp_path, isolated_state):
    task_dir = make_task(tmp_path)
    (task_dir / "solution" / "solve.sh").unlink()
    before = (
        sorted((isolated_state / "clusters").glob("*"))
        if (isolated_state / "clusters").exists()
        else []
    )
    result = run_cli("run", "--tasks", str(task_dir), "--out", str(tmp_path / "run"))
    assert result.returncode == 1
    assert f"{task_dir / 'solution' / 'solve.sh'}:1: missing solution/solve.sh" in result.stderr
    after = (
        sorted((isolated_state / "clusters").glob("*"))
        if (isolated_state / "clusters").exists()
        else []
    )
    assert after == before and not (tmp_path / "run").exists()


def test_the_task_library_lints_clean_and_its_catalog_is_current():
    # --strict: warnings fail too, so every task keeps at least 4 shortcuts and 2 alternatives
    lint = run_cli("tasks", "lint", "--strict", "tasks")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    catalog = run_cli("tasks", "catalog", "--check")
    assert catalog.returncode == 0, catalog.stderr


def test_the_library_covers_the_areas_levels_and_safety_scenarios_it_promises():
    tasks = json.loads(run_cli("tasks", "list", "-o", "json").stdout)
    repair = [t for t in tasks if t["track"] == "repair" and t["problems"] == 0]
    levels = {
        level: sum(t["difficulty"] == level for t in repair) for level in ("easy", "medium", "hard")
    }
    assert len(repair) >= 40
    assert len({t["area"] for t in repair}) >= 16
    assert levels["easy"] >= 12 and levels["medium"] >= 16 and levels["hard"] >= 8, levels
    safety = [t for t in repair if "safety" in t["tags"]]
    assert len(safety) >= 5
    assert any(t["expected"] == "declined" for t in safety)


def _script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(body)
    return path


DECLINED = 'area = "rbac-access"\nexpected = "declined"'


def test_alternatives_load_and_a_task_below_the_targets_lints_with_warnings(tmp_path):
    task_dir = make_task(tmp_path)
    alternatives = task_dir / "tests" / "alternatives"
    _script(alternatives / "merge-patch.sh", "#!/bin/sh\nkubectl -n shop get role reporter\n")
    task = load(task_dir)
    assert [p.name for p in task.alternatives] == ["merge-patch.sh"]
    assert {(p.path, p.warning) for p in task.warnings} == {
        (task_dir / "tests" / "shortcuts", True),
        (alternatives, True),
    }
    lint = run_cli("tasks", "lint", str(task_dir))
    assert lint.returncode == 0, lint.stdout + lint.stderr
    assert (
        f"{task_dir / 'tests' / 'shortcuts'}:1: warning: 1 shortcuts, the target is at least 4"
        in lint.stdout
    )
    assert f"{alternatives}:1: warning: 1 alternatives, the target is at least 2" in lint.stdout
    assert run_cli("tasks", "lint", "--strict", str(task_dir)).returncode == 1
    rows = json.loads(run_cli("tasks", "lint", "-o", "json", str(task_dir)).stdout)
    assert {r["severity"] for r in rows} == {"warning"}
    listed = json.loads(run_cli("tasks", "list", str(task_dir), "-o", "json").stdout)[0]
    assert (listed["shortcuts"], listed["alternatives"]) == (1, 1)
    assert (listed["problems"], listed["warnings"]) == (0, 2)
    # at the targets, no warnings; tasks that must be declined have no targets
    for n in range(2, 5):
        _script(task_dir / "tests" / "shortcuts" / f"cheat-{n}.sh", "#!/bin/sh\nkubectl get ns\n")
    _script(alternatives / "replace.sh", "#!/bin/sh\nkubectl -n shop get role\n")
    assert load(task_dir).warnings == []
    toml = TASK_TOML.split("[[kubeproof.root_causes]]")[0]
    declined = make_task(tmp_path / "d", toml.replace('area = "rbac-access"', DECLINED))
    assert load(declined).warnings == [] and load(declined).alternatives == []


def test_shortcut_and_alternative_scripts_must_be_regular_files_with_a_shebang(tmp_path):
    task_dir = make_task(tmp_path)
    shortcuts, alternatives = task_dir / "tests" / "shortcuts", task_dir / "tests" / "alternatives"
    _script(shortcuts / "no-shebang.sh", "kubectl -n shop delete role reporter\n")
    _script(alternatives / "only-comments.sh", "#!/bin/sh\n# to do\n\n")
    _script(alternatives / "empty.sh", "")
    _script(alternatives / "fix.bash", "#!/bin/bash\nkubectl get ns\n")
    (alternatives / "linked.sh").symlink_to(task_dir / "solution" / "solve.sh")
    lines = _lint(tmp_path, task_dir)
    assert f"{shortcuts / 'no-shebang.sh'}:1: must start with a shebang (#!/bin/sh)" in lines
    assert (
        f"{alternatives / 'only-comments.sh'}:1: runs nothing: no command after the shebang"
        in lines
    )
    assert f"{alternatives / 'empty.sh'}:1: must start with a shebang (#!/bin/sh)" in lines
    assert (
        f"{alternatives / 'linked.sh'}:1: must be a regular file, not a symlink or folder" in lines
    )
    assert (
        f"{alternatives / 'fix.bash'}:1: warning: not a .sh file: validate never runs it" in lines
    )


def test_validate_chooses_changed_tasks_and_a_sample_stratified_by_area(tmp_path):
    from kubeproof.runner import validate as proving

    roots = []
    for area in ("rbac-access", "scheduling", "storage"):
        for name in ("a", "b"):
            toml = TASK_TOML.replace('area = "rbac-access"', f'area = "{area}"')
            toml = toml.replace(
                'title = "The pod report is empty"', f'id = "{area}/{name}"\n' + 'title = "t"'
            )
            roots.append(make_task(tmp_path / area / name, toml))
    tasks = [load(r) for r in roots]
    picked = proving.sample(tasks, 3, seed="abc")
    assert sorted(t.spec.kubeproof.area for t in picked) == ["rbac-access", "scheduling", "storage"]
    assert [t.id for t in proving.sample(tasks, 3, seed="abc")] == [t.id for t in picked]
    assert len(proving.sample(tasks, 4, seed="abc")) == 4
    assert len(proving.sample(tasks, 10, seed="abc")) == 6
    rotations = {tuple(sorted(t.id for t in proving.sample(tasks, 3, str(s)))) for s in range(20)}
    assert len(rotations) > 1  # another seed, another sample
    # the record holds each task's content hash: an edited task counts as changed
    record = {"tasks": {t.id: {"hash": proving.digest(t)} for t in tasks}}
    assert proving.changed(tasks, record) == []
    (roots[2] / "instruction.md").write_text("The ledger never starts.\n")
    assert [t.id for t in proving.changed(tasks, record)] == [tasks[2].id]
    assert len(proving.changed(tasks, {})) == 6
    # a task that proved valid is noted with the hash of the files its trials used; one
    # edited during its run is not (its record would claim content that was never proven)
    task = load(make_task(tmp_path / "lib"))
    path, ok = tmp_path / "lib" / "tasks" / "VALIDATED.json", [{"task": task.id, "valid": True}]
    assert proving.note_valid(path, [task], ok, [], {task.id: "before the edit"}) == []
    assert proving.note_valid(path, [task], ok, [], {task.id: proving.digest(task)}) == [task.id]
    assert proving.changed([task], proving.read_record(path)) == []
    # a cap on trials keeps the required tasks and drops sampled ones that do not fit
    per_task = proving.trial_count(tasks[0])
    assert proving.fit(tasks[:1], tasks[1:], per_task * 2) == tasks[:2]


def test_validate_fails_before_any_cluster_when_the_changed_tasks_do_not_fit(tmp_path):
    result = run_cli(
        "tasks", "validate", "--changed", "--max-trials", "1",
        "--record", str(tmp_path / "none.json"), "--out", str(tmp_path / "run"),
    )  # fmt: skip
    assert result.returncode == 1
    assert "more than --max-trials 1" in result.stderr
    assert "make validate" in result.stderr and "commit" in result.stderr
    assert not (tmp_path / "run").exists()
    # --dry-run says what a run would validate, and why
    planned = run_cli(
        "tasks", "validate", "--sample", "3", "--seed", "x", "--dry-run", "-o", "json"
    )
    rows = json.loads(planned.stdout)
    assert len(rows) == 3 and all(r["selected"] == "sampled (seed x)" for r in rows)
    assert len({r["task"].split("/")[1] for r in rows}) == 3 and all(r["trials"] >= 5 for r in rows)
