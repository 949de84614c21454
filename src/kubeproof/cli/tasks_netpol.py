"""`kubeproof tasks validate --suite netpol|netarena-k8s`: a seeded, stratified sample of
generated netpol tasks proven valid on one embedded cluster (netpol/validate.py)."""

import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from kubeproof.cli.output import Format, console, emit, stderr
from kubeproof.errors import KubeproofError

if TYPE_CHECKING:
    from kubeproof.netpol.validate import Validation


def validate_suite(suite: str, sample: int, seed: str, out: Path | None, output: Format) -> None:
    from kubeproof.cli.run import default_out
    from kubeproof.netpol import run, validate
    from kubeproof.netpol import sample as sampling
    from kubeproof.runner.run import write_run

    if suite not in sampling.SUITES:
        hint = f"netpol suites: {', '.join(sampling.SUITES)}; the generate track's are proven "
        raise KubeproofError(f"--suite {suite!r}", hint=hint + "by `kubeproof tasks prove`")
    if sample < 1:
        raise KubeproofError("a suite is sampled", hint="give --sample N")
    quiet = output is not Format.text
    began = time.monotonic()
    chosen = sampling.sample(suite, sample, seed)
    if not quiet:
        stderr.print(
            f"sampled {len(chosen)} task(s) of {suite} (seed {seed}) in "
            f"{time.monotonic() - began:.0f} s; 3 trials each (oracle, noop, allow-all)",
            highlight=False,
            soft_wrap=True,
        )
    out = out or default_out("validate-")
    out.mkdir(parents=True, exist_ok=True)
    # a validation stopped half-way goes on where it stopped (validation.json keeps it)
    verdicts, earlier, wall = validate.resumed(out, suite, seed, chosen)
    if verdicts and not quiet:
        stderr.print(f"going on: {len(verdicts)} of {len(chosen)} task(s) judged in {out}")
    began = time.monotonic() - wall
    judged = {v.task for v in verdicts}

    def write() -> validate.Validation:
        doc = validate.summarize(suite, seed, len(chosen), verdicts, time.monotonic() - began)
        (out / "validation.json").write_text(doc.model_dump_json(indent=1) + "\n")
        return doc

    def done(v: validate.TaskVerdict) -> None:
        verdicts.append(v)
        write()  # a run stopped half-way keeps every task judged
        if quiet:
            return
        failed = [c for c in v.checks if not c.ok]
        word = (
            "valid"
            if v.valid
            else "NOT VALID: " + "; ".join(f"{c.check} ({c.detail})" for c in failed)
        )
        line = f"[{len(verdicts)}/{len(chosen)}] {v.task}: {word} ({v.seconds:.1f} s)"
        stderr.print(line, highlight=False, markup=False, soft_wrap=True)  # one line: grep

    todo = [t for t in chosen if t.id not in judged]
    _, records = validate.validate(todo, out, on_task=done) if todo else ([], [])
    doc = write()
    meta = run.meta([t.id for t in chosen], list(validate.AGENTS), out, "embedded")
    write_run(out, meta | {"validate": [t.id for t in chosen]}, earlier + records)
    if not emit(doc.model_dump(mode="json"), output):
        _print(doc)
        console.print(f"run directory: {out}", highlight=False)
    if doc.not_valid:
        raise typer.Exit(1)


def _print(doc: "Validation") -> None:
    for title, group in (
        ("topology", doc.by_topology),
        ("variant/profile", doc.by_variant),
        ("fault kind", doc.by_fault_kind),
        ("check", doc.by_check),
    ):
        rows = ", ".join(f"{escape(k)} {t.valid}/{t.tasks}" for k, t in group.items())
        console.print(f"[bold]by {title}[/]: {rows}", highlight=False)
    console.print(
        f"{doc.valid} of {doc.judged} task(s) valid, {doc.not_valid} not valid; "
        f"{doc.wall_seconds / 60:.1f} min, {doc.seconds_per_task:.1f} s per task",
        highlight=False,
    )
