"""The evidence chain: what the recorder writes, and every kind of tampering the verifier
must catch, named by seq and segment:line. Also keys, their resolution, and the CLI verbs."""

import base64
import json
import os
import re
import stat
import threading
from pathlib import Path

import pytest
import rfc8785
from typer.testing import CliRunner

from kubeproof.cli.evidence import app, summary
from kubeproof.errors import KubeproofError
from kubeproof.evidence import (
    ChainError,
    Recorder,
    entry_hash,
    fingerprint,
    generate,
    load_public,
    load_signing_key,
    read_entries,
    verify_chain,
)
from kubeproof.evidence import keys as keyfiles
from kubeproof.evidence.entry import GENESIS, build_entry

AGENT = {"type": "agent", "id": "oracle"}
RISK = {"level": "low", "operation": "read", "environment": "test", "tags": []}


def command(step: int) -> dict:
    return {
        "step": step,
        "command": f"kubectl -n shop get deploy web-{step}",
        "exit_code": step % 3,
        "seconds": 0.25 + step / 100,
        "timed_out": False,
        "stdout_sha256": "a" * 64,
        "stderr_sha256": "b" * 64,
        "stdout": f"NAME READY\nweb-{step} 1/1\n",
        "stderr": "",
        "risk": RISK,
    }


def record(directory: Path, key, n: int = 40, *, close: bool = True, **sizes) -> Path:
    """A chain of `n` entries; by default small checkpoints and segments (>= 3 segments)."""
    sizes = {"checkpoint_every": 5, "segment_entries": 12, **sizes}
    rec = Recorder(directory, key, **sizes)
    rec.append(
        "trial_start", {"task": "t", "agent": "oracle", "trial": 1, "instruction_sha256": ""}
    )
    for step in range(1, n - 1):
        rec.append("command", command(step), actor=AGENT)
    rec.append("trial_end", {"steps": n - 2, "decision": "submit"})
    if close:
        rec.close()
    return directory


@pytest.fixture(scope="module")
def key():
    return generate()


@pytest.fixture
def chain(tmp_path, key) -> Path:
    return record(tmp_path / "evidence", key)


def segments(directory: Path) -> list[Path]:
    return sorted(directory.glob("segment-*.jsonl"))


def locate(directory: Path, seq: int) -> tuple[Path, int]:
    """The segment file and 1-based line holding entry `seq`."""
    for path in segments(directory):
        for number, line in enumerate(path.read_bytes().splitlines(), 1):
            if json.loads(line)["seq"] == seq:
                return path, number
    raise AssertionError(f"seq {seq} not found")


def edit(path: Path, change) -> None:
    lines = path.read_bytes().splitlines()
    change(lines)
    path.write_bytes(b"".join(line + b"\n" for line in lines))


def entry_at(directory: Path, seq: int) -> dict:
    path, number = locate(directory, seq)
    return json.loads(path.read_bytes().splitlines()[number - 1])


def only(report, kind: str):
    found = [p for p in report.problems if p.kind == kind]
    assert found, f"no {kind} problem in {report.problems}"
    return found[0]


def names_entry(problem, path: Path, line: int, seq: int) -> None:
    assert (problem.seq, problem.segment, problem.line) == (seq, path.name, line)
    assert f"seq {seq}" in problem.message
    assert f"{path.name}:{line}" in problem.message


# what the recorder writes


def test_an_untouched_chain_verifies(chain, key):
    report = verify_chain(chain)
    assert report.ok, report.problems
    entries = read_entries(chain)
    assert [e["seq"] for e in entries] == list(range(len(entries)))
    assert report.entries == len(entries) and report.unsealed == 0 and report.final
    assert report.fingerprint == fingerprint(key)
    assert len(segments(chain)) >= 3
    assert report.checkpoints == sum(e["type"] == "checkpoint" for e in entries)


def test_every_line_is_jcs_hash_linked_and_segments_end_sealed(chain, key):
    previous = GENESIS
    for path in segments(chain):
        lines = path.read_bytes().splitlines()
        assert len(lines) <= 12
        for line in lines:
            entry = json.loads(line)
            assert line == rfc8785.dumps(entry)
            assert entry["hash"] == entry_hash(entry)
            assert entry["prev"] == previous
            previous = entry["hash"]
        last = json.loads(lines[-1])
        assert last["type"] == "checkpoint"
        assert last["payload"]["segment"] == int(path.stem.split("-")[1])
        key.public_key().verify(base64.b64decode(last["sig"]), bytes.fromhex(last["hash"]))
    final = read_entries(chain)[-1]
    assert final["payload"] | {"key_fingerprint": None} == {
        "segment": len(segments(chain)),
        "count": final["seq"],
        "head": final["prev"],
        "final": True,
        "key_fingerprint": None,
    }
    assert fingerprint(load_public(chain / "public-key.pem")) == fingerprint(key)


def test_checkpoints_come_every_n_entries(tmp_path, key):
    directory = record(tmp_path / "ev", key, n=30, checkpoint_every=4, segment_entries=10_000)
    types = [e["type"] for e in read_entries(directory)]
    runs = "".join("c" if t == "checkpoint" else "." for t in types).split("c")
    assert all(len(run) == 4 for run in runs[:-2]) and types[-1] == "checkpoint"
    assert len(segments(directory)) == 1


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        ({"kind": "x"}, "lacks detail"),
        ({"kind": "x", "detail": float("nan")}, "canonical"),
        ({"kind": "x", "detail": 2**60}, "canonical"),
    ],
)
def test_append_rejects_what_the_format_cannot_hold(tmp_path, key, payload, why):
    with Recorder(tmp_path / "ev", key) as rec, pytest.raises(ValueError, match=why):
        rec.append("observation", payload)


def test_append_rejects_unknown_types_actors_and_checkpoints(tmp_path, key):
    with Recorder(tmp_path / "ev", key) as rec:
        with pytest.raises(ValueError, match="unknown entry type"):
            rec.append("gossip", {})
        with pytest.raises(ValueError, match="actor"):
            rec.append("observation", {"kind": "k", "detail": "d"}, actor={"type": "cat"})
        with pytest.raises(ValueError, match="seal"):
            rec.append("checkpoint", {})
    with pytest.raises(ChainError, match="closed"):
        rec.append("observation", {"kind": "k", "detail": "d"})
    rec.close()  # idempotent
    with pytest.raises(ChainError, match="already holds"):
        Recorder(tmp_path / "ev", key)


def test_numbers_where_json_writers_disagree_still_verify(tmp_path, key):
    """Integral and tiny floats, 2**53 and astral keys take the reference path."""
    with Recorder(tmp_path / "ev", key) as rec:
        for extra in [{"s": 5.0}, {"s": 1e-7}, {"s": 1e21}, {"s": 1e16}, {"😀": 1, "\ue000": 2}]:
            rec.append("observation", {"kind": "k", "detail": "é\u2028\x01", **extra})
    assert verify_chain(tmp_path / "ev").ok


def test_four_threads_appending_make_one_valid_chain(tmp_path, key):
    rec = Recorder(tmp_path / "ev", key, checkpoint_every=64, segment_entries=300)

    def work(worker: int) -> None:
        for i in range(500):
            rec.append("observation", {"kind": f"w{worker}", "detail": str(i)})

    threads = [threading.Thread(target=work, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rec.close()
    report = verify_chain(tmp_path / "ev")
    assert report.ok, report.problems[:3]
    entries = read_entries(tmp_path / "ev")
    assert [e["seq"] for e in entries] == list(range(len(entries)))
    assert sum(e["type"] == "observation" for e in entries) == 2000


def test_an_open_chain_is_truncated_unless_allowed(tmp_path, key):
    directory = record(tmp_path / "ev", key, n=23, close=False)
    entries = read_entries(directory)
    types = [e["type"] for e in entries]
    unsealed = len(types) - (len(types) - types[::-1].index("checkpoint"))
    assert unsealed > 0
    report = verify_chain(directory)
    problem = only(report, "truncated")
    assert f"truncated after seq {entries[-1]['seq']}" in problem.message
    assert f"({unsealed} entries after the last good one)" in problem.message
    allowed = verify_chain(directory, allow_open=True)
    assert allowed.ok and allowed.unsealed == unsealed and not allowed.final


# tampering: each class named by seq and segment:line


def test_modified_entry(chain):
    path, line = locate(chain, 7)

    def change(lines):
        entry = json.loads(lines[line - 1])
        entry["payload"]["exit_code"] = 0 if entry["payload"]["exit_code"] else 1
        lines[line - 1] = rfc8785.dumps(entry)  # still canonical, hash kept

    edit(path, change)
    report = verify_chain(chain)
    assert not report.ok
    assert [p.kind for p in report.problems] == ["modified"]
    names_entry(report.problems[0], path, line, 7)


def test_modified_entry_with_its_hash_recomputed_breaks_the_next_link(chain):
    path, line = locate(chain, 7)

    def change(lines):
        entry = json.loads(lines[line - 1])
        entry["payload"]["command"] = "kubectl delete ns shop"
        entry["hash"] = entry_hash(entry)
        lines[line - 1] = rfc8785.dumps(entry)

    edit(path, change)
    problem = only(verify_chain(chain), "broken_link")
    next_path, next_line = locate(chain, 8)
    names_entry(problem, next_path, next_line, 8)
    assert f"seq 7 at {path.name}:{line}" in problem.message


def test_inserted_entry(chain):
    path, line = locate(chain, 7)
    before = entry_at(chain, 6)
    _, forged_line = build_entry(
        seq=7, entry_type="command", payload=command(99), actor=AGENT, prev=before["hash"]
    )
    edit(path, lambda lines: lines.insert(line - 1, forged_line))
    report = verify_chain(chain)
    assert not report.ok
    names_entry(only(report, "inserted"), path, line, 7)


def test_duplicated_entry(chain):
    path, line = locate(chain, 3)
    copy = path.read_bytes().splitlines()[line - 1]
    last_path, last_line = locate(chain, 9)
    edit(last_path, lambda lines: lines.insert(last_line, copy))
    report = verify_chain(chain)
    names_entry(only(report, "inserted"), last_path, last_line + 1, 3)


def test_deleted_entry(chain):
    path, line = locate(chain, 7)
    edit(path, lambda lines: lines.pop(line - 1))
    report = verify_chain(chain)
    problem = only(report, "deleted")
    names_entry(problem, path, line, 8)  # seq 8 now stands where seq 7 was
    assert "expected seq 7" in problem.message and "deleted" in problem.message


def test_reordered_entries(chain):
    path, line = locate(chain, 7)
    assert locate(chain, 8) == (path, line + 1)

    def swap(lines):
        lines[line - 1], lines[line] = lines[line], lines[line - 1]

    edit(path, swap)
    report = verify_chain(chain)
    assert [p.kind for p in report.problems] == ["reordered"]
    problem = report.problems[0]
    names_entry(problem, path, line, 8)
    assert problem.message.startswith(f"entry seq 8 at {path.name}:{line}: expected seq 7 (")


def test_entry_moved_far_later(chain):
    path, line = locate(chain, 2)
    moved = path.read_bytes().splitlines()[line - 1]
    edit(path, lambda lines: lines.pop(line - 1))
    target, target_line = locate(chain, 6)
    edit(target, lambda lines: lines.insert(target_line, moved))
    report = verify_chain(chain)
    assert [p.kind for p in report.problems] == ["reordered"]
    names_entry(report.problems[0], target, target_line + 1, 2)


def test_truncated_in_the_last_segment(chain):
    last = segments(chain)[-1]
    edit(last, lambda lines: lines.__delitem__(slice(-3, None)))
    remaining = last.read_bytes().splitlines()
    seq = json.loads(remaining[-1])["seq"]
    problem = only(verify_chain(chain), "truncated")
    assert f"the chain is truncated after seq {seq} ({last.name}:{len(remaining)})" in (
        problem.message
    )
    assert (problem.seq, problem.segment, problem.line) == (seq, last.name, len(remaining))


def test_truncated_in_a_middle_segment(chain):
    middle = segments(chain)[1]
    edit(middle, lambda lines: lines.__delitem__(slice(-2, None)))
    remaining = middle.read_bytes().splitlines()
    seq = json.loads(remaining[-1])["seq"]
    report = verify_chain(chain)
    problem = only(report, "truncated")
    assert f"{middle.name} does not end with a checkpoint" in problem.message
    assert f"truncated after seq {seq} ({middle.name}:{len(remaining)})" in problem.message
    assert "expected seq" in only(report, "deleted").message


def test_whole_trailing_segments_cut_off(chain):
    files = segments(chain)
    for path in files[-2:]:
        path.unlink()
    last = files[-3]
    lines = last.read_bytes().splitlines()
    seq = json.loads(lines[-1])["seq"]
    problem = only(verify_chain(chain), "truncated")
    assert f"the chain is truncated after seq {seq} ({last.name}:{len(lines)})" in problem.message
    assert "not final" in problem.message


def test_missing_middle_segment(chain):
    files = segments(chain)
    files[1].unlink()
    lines = files[0].read_bytes().splitlines()
    seq = json.loads(lines[-1])["seq"]
    problem = only(verify_chain(chain), "truncated")
    assert problem.segment == files[1].name
    assert f"{files[1].name} is missing: the chain is truncated after seq {seq}" in (
        problem.message
    )


def test_signature_by_the_wrong_key(chain, key):
    other = generate()
    report = verify_chain(chain, other.public_key())
    problems = [p for p in report.problems if p.kind == "signature"]
    checkpoints = [e for e in read_entries(chain) if e["type"] == "checkpoint"]
    assert len(problems) == len(checkpoints) and report.checkpoints == 0
    path, line = locate(chain, checkpoints[0]["seq"])
    names_entry(problems[0], path, line, checkpoints[0]["seq"])
    assert fingerprint(other) in problems[0].message
    assert fingerprint(key) in problems[0].message  # the key the checkpoint names


def test_a_chain_rewritten_under_another_key_fails_only_the_fingerprint(tmp_path, key):
    """Whoever holds a key can write a consistent chain: trust is the fingerprint."""
    forged = record(tmp_path / "forged", generate())
    assert verify_chain(forged).ok
    report = verify_chain(forged, expect_fingerprint=fingerprint(key))
    assert [p.kind for p in report.problems] == ["fingerprint"]
    assert fingerprint(key) in report.problems[0].message
    assert verify_chain(forged, expect_fingerprint=report.fingerprint.upper()[7:]).ok


def test_checkpoint_whose_count_and_head_do_not_match(chain, key):
    seq = next(e["seq"] for e in read_entries(chain) if e["type"] == "checkpoint")
    path, line = locate(chain, seq)
    entry = json.loads(path.read_bytes().splitlines()[line - 1])
    _, bad_line = build_entry(
        seq=seq,
        entry_type="checkpoint",
        payload=entry["payload"] | {"count": 3, "head": "f" * 64},
        actor=entry["actor"],
        prev=entry["prev"],
        time=entry["time"],
        signer=key.sign,
    )

    def change(lines):
        lines[line - 1] = bad_line
        following = json.loads(lines[line])
        assert following["prev"] == entry["hash"]

    edit(path, change)
    report = verify_chain(chain)
    problem = only(report, "checkpoint")
    names_entry(problem, path, line, seq)
    assert "count 3" in problem.message and "head" in problem.message


@pytest.mark.parametrize(
    ("change", "kind"),
    [
        (lambda line: line.replace(b'"v":1', b'"v":2'), "version"),
        (lambda line: line[:-5], "malformed"),
        (lambda line: json.dumps(json.loads(line)).encode(), "not_canonical"),
        (lambda line: line.replace(b'"type":"command"', b'"type":"gossip"'), "unknown_type"),
    ],
)
def test_lines_that_are_not_entries(chain, change, kind):
    path, line = locate(chain, 7)
    edit(path, lambda lines: lines.__setitem__(line - 1, change(lines[line - 1])))
    problem = only(verify_chain(chain), kind)
    assert (problem.segment, problem.line) == (path.name, line)
    assert f"{path.name}:{line}" in problem.message
    if kind != "malformed":
        assert problem.seq == 7


def test_a_malformed_line_is_not_also_reported_as_a_deletion(chain):
    path, line = locate(chain, 7)
    edit(path, lambda lines: lines.__setitem__(line - 1, b"{not json"))
    assert [p.kind for p in verify_chain(chain).problems] == ["malformed"]


def test_entries_appended_after_the_final_checkpoint(chain, key):
    last = segments(chain)[-1]
    final = read_entries(chain)[-1]
    _, extra = build_entry(
        seq=final["seq"] + 1,
        entry_type="observation",
        payload={"kind": "k", "detail": "late"},
        actor=AGENT,
        prev=final["hash"],
    )
    edit(last, lambda lines: lines.append(extra))
    report = verify_chain(chain)
    problem = only(report, "inserted")
    assert "follows the final checkpoint" in problem.message
    assert problem.seq == final["seq"] + 1


def test_no_public_key_is_a_problem(chain):
    (chain / "public-key.pem").unlink()
    report = verify_chain(chain)
    assert not report.ok and only(report, "key") and report.checkpoints == 0


# keys


def test_keys_round_trip_with_owner_only_private_files(tmp_path):
    key = generate()
    path = keyfiles.save_private(key, tmp_path / "k" / "signing-key.pem")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert fingerprint(keyfiles.load_private(path)) == fingerprint(key)
    keyfiles.save_public(key, tmp_path / "pub.pem")
    assert fingerprint(load_public(tmp_path / "pub.pem")) == fingerprint(key)
    assert re.fullmatch(r"SHA256:[0-9a-f]{64}", fingerprint(key))


@pytest.fixture
def key_env(monkeypatch, tmp_path):
    for name in (keyfiles.KEY_ENV, keyfiles.KEY_FILE_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return monkeypatch


def test_signing_key_resolution_order(key_env, tmp_path):
    explicit, from_file = generate(), generate()
    seed = os.urandom(32)
    keyfiles.save_private(explicit, tmp_path / "explicit.pem")
    keyfiles.save_private(from_file, tmp_path / "file.pem")
    key_env.setenv(keyfiles.KEY_ENV, base64.b64encode(seed).decode())
    key_env.setenv(keyfiles.KEY_FILE_ENV, str(tmp_path / "file.pem"))
    assert fingerprint(load_signing_key(tmp_path / "explicit.pem")) == fingerprint(explicit)
    from_seed = load_signing_key()
    assert from_seed.private_bytes_raw() == seed
    # read once and held in memory: gone from the environment every child inherits
    assert keyfiles.KEY_ENV not in os.environ
    assert load_signing_key().private_bytes_raw() == seed
    keyfiles.forget_environment_key()
    assert fingerprint(load_signing_key()) == fingerprint(from_file)


def test_the_per_user_key_is_made_once_and_kept(key_env, tmp_path):
    first = load_signing_key()
    path = tmp_path / "data" / "kubeproof" / "evidence" / "signing-key.pem"
    assert path.is_file() and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert fingerprint(load_signing_key()) == fingerprint(first)


@pytest.mark.parametrize("seed", ["not base64!", base64.b64encode(b"short").decode()])
def test_a_bad_key_in_the_environment_is_an_error(key_env, seed):
    key_env.setenv(keyfiles.KEY_ENV, seed)
    with pytest.raises(KubeproofError, match=keyfiles.KEY_ENV):
        load_signing_key()


# the CLI

runner = CliRunner()


def test_keygen_writes_a_key_pair_and_refuses_to_overwrite(tmp_path):
    out = tmp_path / "keys"
    result = runner.invoke(app, ["keygen", "--out", str(out)])
    assert result.exit_code == 0, result.output
    private = out / "signing-key.pem"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    key = keyfiles.load_private(private)
    assert fingerprint(key) in result.output
    assert f"export KUBEPROOF_EVIDENCE_KEY_FILE={private.resolve()}" in result.output
    assert fingerprint(load_public(out / "public-key.pem")) == fingerprint(key)
    again = runner.invoke(app, ["keygen", "--out", str(out)])
    assert again.exit_code == 1 and "--force" in again.output
    assert fingerprint(keyfiles.load_private(private)) == fingerprint(key)
    forced = runner.invoke(app, ["keygen", "--out", str(out), "--force", "-o", "json"])
    assert forced.exit_code == 0
    assert json.loads(forced.stdout)["fingerprint"] != fingerprint(key)


def test_verify_exit_codes_and_json_shape(tmp_path, key):
    run = tmp_path / "run"
    good = record(run / "trials" / "a" / "oracle" / "1" / "evidence", key)
    bad = record(run / "trials" / "b" / "oracle" / "1" / "evidence", key)
    assert runner.invoke(app, ["verify", str(good)]).exit_code == 0
    path, line = locate(bad, 5)
    edit(path, lambda lines: lines.pop(line - 1))

    result = runner.invoke(app, ["verify", str(run), "-o", "json"])
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["ok"] is False
    assert [c["directory"] for c in data["chains"]] == [str(good), str(bad)]
    assert [c["ok"] for c in data["chains"]] == [True, False]
    problem = data["chains"][1]["problems"][0]
    assert set(problem) == {"kind", "message", "seq", "segment", "line"}
    assert (problem["kind"], problem["seq"], problem["segment"]) == ("deleted", 6, path.name)
    assert set(data["chains"][0]) >= {"entries", "checkpoints", "fingerprint", "problems"}

    text = runner.invoke(app, ["verify", str(run)])
    assert text.exit_code == 1
    assert f"✓ {good}" in text.output and f"✗ {bad}" in text.output
    assert "deleted" in text.output

    pinned = ["verify", str(good), "--fingerprint", fingerprint(generate())]
    assert runner.invoke(app, pinned).exit_code == 1
    assert (
        runner.invoke(app, ["verify", str(good), "--fingerprint", fingerprint(key)]).exit_code == 0
    )
    keyfiles.save_public(generate(), tmp_path / "other.pem")
    other = runner.invoke(app, ["verify", str(good), "--public-key", str(tmp_path / "other.pem")])
    assert other.exit_code == 1 and "signature" in other.output
    assert runner.invoke(app, ["verify", str(tmp_path / "nothing")]).exit_code == 1


def test_verify_allow_open(tmp_path, key):
    directory = record(tmp_path / "ev", key, close=False)
    assert runner.invoke(app, ["verify", str(directory)]).exit_code == 1
    assert runner.invoke(app, ["verify", str(directory), "--allow-open"]).exit_code == 0


def test_show_lists_entries_and_filters_by_type(chain):
    result = runner.invoke(app, ["show", str(chain)])
    assert result.exit_code == 0, result.output
    assert "trial_start" in result.output and "checkpoint" in result.output
    assert "agent:oracle" in result.output
    assert summary(entry_at(chain, 1)) == (
        "step 1: kubectl -n shop get deploy web-1 → exit 1 (0.26 s)"
    )

    as_json = runner.invoke(app, ["show", str(chain), "--type", "command", "-o", "json"])
    entries = json.loads(as_json.stdout)
    assert len(entries) == 38 and {e["type"] for e in entries} == {"command"}
    assert entries == [e for e in read_entries(chain) if e["type"] == "command"]

    lines = runner.invoke(app, ["show", str(chain), "-t", "trial_end", "-o", "jsonl"]).stdout
    assert [json.loads(x)["type"] for x in lines.splitlines()] == ["trial_end"]


def test_verify_finds_a_chain_whose_segments_were_all_removed(tmp_path, key):
    run = tmp_path / "run"
    gone = record(run / "trials" / "a" / "oracle" / "1" / "evidence", key)
    for path in segments(gone):
        path.unlink()
    result = runner.invoke(app, ["verify", str(run), "-o", "json"])
    assert result.exit_code == 1
    [chain] = json.loads(result.stdout)["chains"]
    assert chain["directory"] == str(gone)
    assert [p["kind"] for p in chain["problems"]] == ["truncated"]
