"""`kubeproof tasks prove --journal`: every judgement is appended as it is made, and a proof
run again with the same journal judges only the tasks it does not hold whole, so a proof of
hours that is stopped loses nothing. The reading is tested without a cluster; the resume on
the shared embedded cluster."""

import json

import pytest

from kubeproof.errors import KubeproofError
from kubeproof.generate.live.judge import LiveJudgement
from kubeproof.generate.live.prove import prove, read_journal, work
from kubeproof.generate.model import Tier
from kubeproof.generate.task import generate
from tests.conftest import run_cli


def _tasks():
    return [generate("configmap", Tier.easy, 21), generate("role", Tier.easy, 22)]


def _line(task_id: str, label: str, error: str | None = None) -> str:
    j = LiveJudgement(
        stages=[], failed_at=None, task_id=task_id, label=label, identity="t", error=error
    )
    return j.model_dump_json(exclude={"strict_pass"}) + "\n"


def _whole(task, error_on: str | None = None) -> str:
    labels = [label for label, _ in work(task).answers]
    return "".join(
        _line(task.id, label, "timeout" if label == error_on else None) for label in labels
    )


def test_a_task_held_whole_is_kept_and_a_partial_or_errored_one_is_judged_again(tmp_path):
    whole, partial = _tasks()
    journal = tmp_path / "proof.jsonl"
    first_label = work(partial).answers[0][0]
    journal.write_text(_whole(whole) + _line(partial.id, first_label))
    kept = read_journal(journal, {t.id: t for t in (whole, partial)})
    assert {j.task_id for j in kept} == {whole.id}
    assert [j.label for j in kept] == [label for label, _ in work(whole).answers]

    journal.write_text(_whole(whole, error_on="empty"))
    assert read_journal(journal, {whole.id: whole}) == []
    # a later judgement of the errored answer (the re-run's) makes the task whole again
    journal.write_text(_whole(whole, error_on="empty") + _line(whole.id, "empty"))
    assert len(read_journal(journal, {whole.id: whole})) == len(work(whole).answers)


def test_judgements_of_tasks_not_in_this_proof_are_left_alone(tmp_path):
    whole, other = _tasks()
    journal = tmp_path / "proof.jsonl"
    journal.write_text(_whole(whole) + _whole(other))
    assert {j.task_id for j in read_journal(journal, {other.id: other})} == {other.id}
    assert read_journal(tmp_path / "absent.jsonl", {other.id: other}) == []


def test_a_line_that_is_not_a_judgement_names_the_file_and_line(tmp_path):
    whole, _ = _tasks()
    journal = tmp_path / "proof.jsonl"
    journal.write_text(_line(whole.id, "reference") + "\n" + '{"task_id": "x"}\n')
    with pytest.raises(KubeproofError, match=r"proof\.jsonl:3: not a judgement"):
        read_journal(journal, {whole.id: whole})


def test_a_stopped_proof_resumes_from_its_journal(cluster, tmp_path):
    first, second = _tasks()
    journal = tmp_path / "proof.jsonl"
    one = prove([first], cluster=cluster, journal=journal)
    assert one.valid and one.answers == len(work(first).answers)
    lines = journal.read_text().splitlines()
    assert len(lines) == one.answers

    both = prove([first, second], cluster=cluster, journal=journal)
    # only the second task was judged now: the first came from the journal
    grown = journal.read_text().splitlines()
    assert grown[: len(lines)] == lines
    assert len(grown) == len(lines) + len(work(second).answers)
    assert both.valid and both.tasks == 2
    assert both.answers == len(work(first).answers) + len(work(second).answers)
    assert both.references_passed == 2 and both.empties_failed_s0 == 2


def test_progress_goes_to_stderr_with_json_on_stdout(cluster, tmp_path):
    # a proof of hours run as `-o json > file 2> log` showed nothing in the log before
    done = run_cli(
        "tasks", "prove", "--suite", "kubebench-810", "--limit", "16",
        "--cluster", f"kubeconfig:{cluster.admin_kubeconfig}",
        "--journal", str(tmp_path / "proof.jsonl"), "-o", "json",
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    proof = json.loads(done.stdout)
    assert proof["valid"] and proof["tasks"] == 16
    assert proof["answers"] >= 100
    assert "100 answers judged" in done.stderr
