"""The task-format pieces a Harbor-style task is made of (issue 16 item 6), as lint sees
them: a setup script instead of manifests, no break step with broken_by_setup, a shell
verifier instead of verify.py, an agent account of the task's own instead of
permissions, a command time limit, and what each refuses."""

import shutil
from pathlib import Path

import pytest

from kubeproof.tasks import inspect
from tests.tasks.test_lint import TASK_TOML, make_task

HARBORISH = TASK_TOML.split("[[kubeproof.permissions]]")[0] + (
    'broken_by_setup = true\nagent_service_account = "shop/shop-agent"\n'
    "command_timeout_sec = 300\n"
    'setup_mounts = { "/bootstrap" = "manifests", "/kube" = "scratch" }\n'
    'workdir = "/app"\n'
)


def harborish(tmp_path: Path, toml: str = HARBORISH) -> Path:
    """make_task's task, turned into one set up by a script and judged by test.sh."""
    task = make_task(tmp_path, toml)
    env = task / "environment"
    shutil.rmtree(env / "setup")
    shutil.rmtree(env / "break")
    (env / "broken.py").unlink()
    (task / "tests" / "verify.py").unlink()
    shutil.rmtree(task / "tests" / "shortcuts")
    (env / "manifests").mkdir()
    (env / "setup.sh").write_text("#!/usr/bin/env bash\nkubectl apply -f /bootstrap/\n")
    (env / "workspace").mkdir()
    (env / "bin").mkdir()
    (task / "tests" / "test.sh").write_text(
        "#!/usr/bin/env bash\necho 1 > /logs/verifier/reward.txt\n"
    )
    return task


def _messages(task: Path) -> tuple[list[str], list[str]]:
    loaded, problems = inspect(task)
    warnings = [p.message for p in loaded.warnings] if loaded else []
    return [p.message for p in problems], warnings


def test_a_task_set_up_by_a_script_and_judged_by_a_shell_verifier_lints(tmp_path):
    task = harborish(tmp_path)
    loaded, problems = inspect(task)
    assert problems == []
    assert loaded.setup_script.name == "setup.sh" and loaded.shell_verifier.name == "test.sh"
    assert loaded.verifier is None and loaded.breaks == [] and loaded.broken is None
    spec = loaded.spec.kubeproof
    assert spec.command_timeout_sec == 300 and spec.permissions == []
    # no shortcuts: a shortfall, not a problem, since no contract could catch one
    assert "0 shortcuts, the target is at least 4 (cheats that must score 0)" in [
        p.message for p in loaded.warnings
    ]


@pytest.mark.parametrize(
    ("toml", "edit", "problem"),
    [
        (HARBORISH.replace("broken_by_setup = true\n", ""), None, "no break step"),
        (HARBORISH, lambda t: (t / "environment/break").mkdir(), None),
        (
            HARBORISH,
            lambda t: (t / "environment/break.sh").write_text("#!/bin/sh\ntrue\n"),
            "broken_by_setup: a task with it has no break step",
        ),
        (
            HARBORISH.replace('agent_service_account = "shop/shop-agent"\n', ""),
            None,
            "the agent needs at least one rule",
        ),
        (HARBORISH.replace('"/app"', '"/tmp"'), None, "a path the sandbox keeps for itself"),
        (HARBORISH.replace('"/kube" = "scratch"', '"kube" = "scratch"'), None, "not an absolute"),
        (HARBORISH.replace("= 300", "= 7200"), None, "less than or equal to 3600"),
        (
            HARBORISH,
            lambda t: (t / "tests/test.sh").unlink(),
            "missing tests/verify.py or tests/test.sh (the verifier)",
        ),
        (
            HARBORISH,
            lambda t: (t / "environment/setup.sh").unlink(),
            "no manifests in environment/setup/ and no setup.sh",
        ),
        (
            HARBORISH,
            lambda t: (
                (t / "environment/setup.sh").unlink(),
                (t / "environment/setup.sh").symlink_to("/etc/passwd"),
            ),
            "must be a regular file, not a symlink or folder",
        ),
        (
            HARBORISH,
            lambda t: (
                shutil.rmtree(t / "environment/workspace"),
                (t / "environment/workspace").symlink_to("/etc"),
            ),
            "must be a folder, not a symlink or file",
        ),
    ],
)
def test_what_lint_refuses(tmp_path, toml, edit, problem):
    task = harborish(tmp_path, toml)
    if edit:
        edit(task)
    problems, _ = _messages(task)
    if problem is None:
        assert problems == []
    else:
        assert any(problem in p for p in problems), problems
