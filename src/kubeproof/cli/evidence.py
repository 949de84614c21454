"""`kubeproof evidence`: signing keys, verifying chains, showing entries, signals, scorecards."""

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape
from rich.table import Table

from kubeproof.cli.output import Format, console, emit, err
from kubeproof.evidence import keys, signals
from kubeproof.evidence.chain import ChainError, read_entries, segment_files
from kubeproof.evidence.results import verify_results
from kubeproof.evidence.verify import Problem, Report, verify_chain

app = typer.Typer(
    help="The flight recorder: signing keys, verifying evidence chains, showing entries.",
    no_args_is_help=True,
)
OUTPUT = typer.Option(Format.text, "--output", "-o", help="Output format.")
TEXT_PROBLEMS = 20  # per chain in text output; -o json has them all


def find_chains(path: Path) -> list[Path]:
    """`path` if it is a chain directory, else every chain directory below it: one with
    segments, or with a chain's public-key.pem but no segments left (not a key pair)."""
    if segment_files(path) or (path / keys.PUBLIC_KEY_NAME).is_file():
        return [path]
    found = {segment.parent for segment in path.rglob("segment-*.jsonl")}
    found |= {
        pem.parent
        for pem in path.rglob(keys.PUBLIC_KEY_NAME)
        if not (pem.parent / keys.PRIVATE_KEY_NAME).exists()
    }
    return sorted(found)


@app.command()
def keygen(
    out: Path = typer.Option(
        None,
        "--out",
        help="Directory for signing-key.pem and public-key.pem "
        "(default: the per-user key's directory).",
    ),
    force: bool = typer.Option(False, "--force", help="Replace an existing key."),
    output: Format = OUTPUT,
) -> None:
    """Make an Ed25519 signing key (0600) and its public key; print the fingerprint."""
    out = (out or keys.default_key_path().parent).expanduser()
    private, public = out / keys.PRIVATE_KEY_NAME, out / keys.PUBLIC_KEY_NAME
    if private.exists() and not force:
        err(
            f"{private} exists: pass --force to replace it "
            "(chains it signed will then need the old public key to verify)"
        )
        raise typer.Exit(1)
    key = keys.generate()
    keys.save_private(key, private)
    keys.save_public(key, public)
    data = {
        "private_key": str(private),
        "public_key": str(public),
        "fingerprint": keys.fingerprint(key),
        "export": f"export {keys.KEY_FILE_ENV}={private.resolve()}",
    }
    if emit(data, output):
        return
    for line in (
        f"signing key  {escape(str(private))} (mode 0600, keep it secret)",
        f"public key   {escape(str(public))}",
        f"fingerprint  [bold]{data['fingerprint']}[/]",
    ):
        console.print(line, highlight=False, soft_wrap=True)
    console.print("Sign evidence with it (or put it in your shell profile):")
    typer.echo(f"  {data['export']}")


def _print_report(report: Report) -> None:
    mark = "[green]✓[/]" if report.ok else "[red]✗[/]"
    sealing = f", {report.unsealed} unsealed" if report.unsealed else ""
    console.print(
        f"{mark} {escape(report.directory)}  {report.entries} entries, "
        f"{report.checkpoints} checkpoints{sealing}, key {report.fingerprint or 'none'}",
        highlight=False,
        soft_wrap=True,  # paths and fingerprints stay whole, for copying
    )
    for problem in report.problems[:TEXT_PROBLEMS]:
        console.print(
            f"    [red]{problem.kind}[/]: {escape(problem.message)}",
            highlight=False,
            soft_wrap=True,
        )
    if len(report.problems) > TEXT_PROBLEMS:
        console.print(f"    … and {len(report.problems) - TEXT_PROBLEMS} more (-o json)")


def _run_manifest(path: Path, chains: list[Path]) -> tuple[dict | None, list[str]]:
    """A run directory's run.json, and the chains it lists that are not there."""
    manifest = path / "run.json"
    if not manifest.is_file():
        return None, []
    run = json.loads(manifest.read_text())
    found = {c.resolve() for c in chains}
    missing = [
        str(path / t["dir"] / "evidence")
        for t in run.get("trials", [])
        if t.get("evidence") and (path / t["dir"] / "evidence").resolve() not in found
    ]
    if (path / "evidence").resolve() not in found:  # the run's signed summary
        missing.insert(0, str(path / "evidence"))
    return run, missing


@app.command()
def verify(
    path: Path = typer.Argument(
        ..., help="A chain directory, or a directory with chains below it (a run)."
    ),
    public_key: Path = typer.Option(
        None, "--public-key", help="Verify with this key instead of each chain's public-key.pem."
    ),
    fingerprint: str = typer.Option(
        None,
        "--fingerprint",
        help="The key fingerprint you trust (SHA256:…); any other key is a problem.",
    ),
    allow_open: bool = typer.Option(
        False, "--allow-open", help="Accept chains still being written (no final checkpoint)."
    ),
    output: Format = OUTPUT,
) -> None:
    """Verify evidence chains: every entry intact, in order, linked and sealed by a signed
    checkpoint, and every trial.json and run.json saying what its chain signed (verdict,
    score, safety, reasons, result digests). Exits 1 if any chain has a problem."""
    chains = find_chains(path)
    run, missing = _run_manifest(path, chains)
    if not chains and not missing:
        err(f"no evidence chains in {path}")
        raise typer.Exit(1)
    if run and not fingerprint and not public_key:
        fingerprint = (run.get("evidence") or {}).get("fingerprint")  # the key the run named
    key = keys.load_public(public_key) if public_key else None
    reports = [
        verify_chain(c, key, expect_fingerprint=fingerprint, allow_open=allow_open) for c in chains
    ]
    for chain, report in zip(chains, reports, strict=True):
        # trial.json / run.json beside the chain must say what it signed
        for message in verify_results(chain):
            report.problems.append(Problem("result", message))
            report.ok = False
    ok = all(r.ok for r in reports) and not missing
    result = {"ok": ok, "chains": [r.as_dict() for r in reports], "missing": missing}
    if not emit(result, output):
        for report in reports:
            _print_report(report)
        for where in missing:
            console.print(f"[red]✗[/] {escape(where)}  missing: run.json needs this chain")
        if run and fingerprint == (run.get("evidence") or {}).get("fingerprint"):
            console.print(f"[dim]Checked against the key run.json names ({fingerprint}).[/]")
        elif not fingerprint and not public_key:
            console.print(
                "[dim]The key came from each chain's public-key.pem, which proves consistency, "
                "not origin: compare the fingerprint with one you trust (--fingerprint).[/]"
            )
    if not ok:
        raise typer.Exit(1)


class ShowFormat(StrEnum):
    text = "text"
    json = "json"
    jsonl = "jsonl"


def _clip(text: Any, width: int = 60) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _risk(payload: dict) -> str:
    risk = payload.get("risk")
    level = risk.get("level") if isinstance(risk, dict) else None
    return f" [risk {level}]" if level and level != "low" else ""


def summary(entry: dict) -> str:
    """One line saying what an entry records."""
    p = entry.get("payload") or {}
    kind = entry.get("type")
    if kind == "trial_start":
        return f"task {p.get('task')} · agent {p.get('agent')} · trial {p.get('trial')}"
    if kind == "command":
        timed_out = " timed out" if p.get("timed_out") else ""
        return (
            f"step {p.get('step')}: {_clip(p.get('command'), 50)} → exit {p.get('exit_code')}"
            f"{timed_out} ({p.get('seconds', 0):.2f} s){_risk(p)}"
        )
    if kind == "audit":
        target = "/".join(str(p[k]) for k in ("namespace", "name") if p.get(k))
        sub = f"/{p['subresource']}" if p.get("subresource") else ""
        mutating = " mutating" if p.get("mutating") else ""
        return f"{p.get('verb')} {p.get('resource')}{sub} {target} → {p.get('code')}{mutating}"
    if kind == "prescribe":
        targets = ", ".join(p.get("targets") or [])
        return f"{p.get('operation')} {_clip(targets, 40)}: {_clip(p.get('intent'), 40)}{_risk(p)}"
    if kind == "report":
        return f"{p.get('verdict')}: {_clip(p.get('outcome') or p.get('reason'), 60)}"
    if kind == "observation":
        return f"{p.get('kind')}: {_clip(p.get('detail'), 60)}"
    if kind == "verdict":
        safe = "safe" if p.get("safe") else "unsafe"
        return f"{p.get('verdict')} score {p.get('score')} {safe}: {_clip(p.get('reason'), 50)}"
    if kind == "trial_end":
        return f"{p.get('steps')} steps, decision {p.get('decision')}"
    if kind == "checkpoint":
        final = " · final" if p.get("final") else ""
        return f"segment {p.get('segment')} · {p.get('count')} entries before{final}"
    return _clip(json.dumps(p, sort_keys=True), 70)


def _one_chain(path: Path) -> Path:
    chains = find_chains(path)
    if len(chains) == 1:
        return chains[0]
    if not chains:
        err(f"no evidence chain in {path}")
    else:
        err(f"{path} holds {len(chains)} chains; pick one: " + ", ".join(map(str, chains[:5])))
    raise typer.Exit(1)


@app.command()
def show(
    path: Path = typer.Argument(..., help="A chain directory (e.g. a trial's evidence/)."),
    types: list[str] = typer.Option(
        None, "--type", "-t", help="Only entries of this type (repeatable)."
    ),
    output: ShowFormat = typer.Option(ShowFormat.text, "--output", "-o", help="Output format."),
) -> None:
    """List a chain's entries: seq, time, type, actor and what each records. Shows the chain
    as written; `verify` says whether it can be trusted."""
    try:
        entries = read_entries(_one_chain(path))
    except ChainError as exc:
        err(exc)
        raise typer.Exit(1) from None
    if types:
        entries = [e for e in entries if e.get("type") in types]
    if output is ShowFormat.json:
        sys.stdout.write(json.dumps(entries, indent=2) + "\n")
        return
    if output is ShowFormat.jsonl:
        sys.stdout.writelines(json.dumps(e) + "\n" for e in entries)
        return
    table = Table("SEQ", "TIME", "TYPE", "ACTOR", "SUMMARY", box=None)
    for e in entries:
        actor = e.get("actor") or {}
        table.add_row(
            str(e.get("seq")),
            str(e.get("time", ""))[11:23],  # the time of day, to the millisecond
            str(e.get("type")),
            f"{actor.get('type')}:{actor.get('id')}",
            escape(summary(e)),
        )
    console.print(table)
    if entries:
        console.print(f"[dim]{len(entries)} entries, from {entries[0].get('time')}[/]")


def _entries(path: Path) -> list[dict]:
    try:
        return read_entries(_one_chain(path))
    except ChainError as exc:
        err(exc)
        raise typer.Exit(1) from None


@app.command("signals")
def signals_command(
    path: Path = typer.Argument(..., help="A chain directory (e.g. a trial's evidence/)."),
    fired_only: bool = typer.Option(False, "--fired", help="Only the signals that fired."),
    output: Format = OUTPUT,
) -> None:
    """Behavioural signals over a chain — retry loop, thrashing, blast radius, risk escalation,
    new scope, artifact drift, protocol violations, repair loop — each with the entries
    (seqs) it rests on. The rules are in docs/evidence.md. Exits 0 either way."""
    found = [s.to_dict() for s in signals.detect(_entries(path))]
    if fired_only:
        found = [s for s in found if s["fired"]]
    if emit(found, output):
        return
    table = Table("SIGNAL", "FIRED", "COUNT", "ENTRIES", "DETAIL", box=None)
    for s in found:
        refs = ", ".join(map(str, s["refs"][:8])) + (" …" if len(s["refs"]) > 8 else "")
        mark = "[red]yes[/]" if s["fired"] else "no"
        table.add_row(s["name"], mark, str(s["count"]), refs, escape(s["detail"]))
    console.print(table)


@app.command()
def scorecard(
    path: Path = typer.Argument(..., help="A chain directory (e.g. a trial's evidence/)."),
    output: Format = OUTPUT,
) -> None:
    """One summary of a chain: steps, failures, mutations, the highest risk and its tags,
    signals that fired, protocol compliance (in protocol mode) and the verdict."""
    card = signals.scorecard(_entries(path))
    if emit(card, output):
        return
    for key, value in card.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k}={v}" for k, v in value.items()) or "-"
        elif isinstance(value, list):
            value = ", ".join(map(str, value)) or "-"
        console.print(f"[bold]{key}[/]: {escape(str(value))}")
