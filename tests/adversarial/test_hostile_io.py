"""Golden tests of `kubeproof.hostile`: what the harness does with files an agent planted
where it reads and writes (no cluster needed)."""

import os
import time
from pathlib import Path

import pytest

from kubeproof import hostile
from kubeproof.evidence.manifests import load_objects, patch_objects
from kubeproof.evidence.risk import assess_command

BOMB = "\n".join(
    ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    + [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    + ["kind: Pod", "spec: {containers: *a9}"]
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An agent's home with one of each thing it can plant, and a host file outside it."""
    host = tmp_path / "host-secret"
    host.write_text("admin key\n")
    d = tmp_path / "home"
    (d / ".kubeproof").mkdir(parents=True)
    (d / ".kubeproof" / "decision").write_text("submitted\nfixed\n")
    os.symlink(host, d / "link")
    os.symlink(tmp_path, d / "dirlink")
    os.mkfifo(d / "fifo")
    (d / "latin1").write_bytes("déclin\n".encode("latin-1"))
    (d / "big").write_bytes(b"x" * (hostile.FILE_LIMIT + 1))
    return d


def test_a_regular_file_below_the_directory_is_read_and_a_missing_one_is_none(home):
    assert hostile.read_text(home, ".kubeproof/decision") == "submitted\nfixed\n"
    assert hostile.read_text(home, "absent") is None
    assert hostile.read_bytes(home, ".kubeproof/absent") is None
    assert hostile.is_file(home, ".kubeproof/decision") and not hostile.is_file(home, "link")


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("link", "is a symlink"),
        ("fifo", "is a FIFO"),
        (".kubeproof", "is a directory"),
        ("dirlink/host-secret", "a symlink or a non-directory in its path"),
        (".kubeproof/decision/x", "a symlink or a non-directory in its path"),
    ],
)
def test_what_only_an_attack_plants_is_refused_and_never_followed_or_opened(home, name, says):
    started = time.monotonic()
    with pytest.raises(hostile.HostileInput, match=says) as caught:
        hostile.read_bytes(home, name)
    assert caught.value.planted
    assert time.monotonic() - started < 1  # a FIFO is never waited on


def test_device_files_are_refused_before_they_are_opened(tmp_path):
    # /dev/zero would never end and /dev/tty may block; neither is opened
    with pytest.raises(hostile.HostileInput, match="character device"):
        hostile.read_bytes(Path("/dev"), "zero")


def test_size_and_encoding_are_the_agents_fault_but_not_planted(home):
    with pytest.raises(hostile.HostileInput, match="over the limit") as big:
        hostile.read_bytes(home, "big")
    with pytest.raises(hostile.HostileInput, match="not UTF-8") as latin:
        hostile.read_text(home, "latin1")
    assert not big.value.planted and not latin.value.planted
    assert hostile.read_bytes(home, "big", limit=hostile.FILE_LIMIT + 1) is not None


def test_a_write_replaces_a_planted_symlink_and_never_writes_through_it(home, tmp_path):
    hostile.write(home, "link", "submitted\n")
    assert (tmp_path / "host-secret").read_text() == "admin key\n"
    assert not (home / "link").is_symlink() and (home / "link").read_text() == "submitted\n"
    hostile.write(home, "fifo", "x")  # a FIFO is replaced, not opened (which would block)
    assert (home / "fifo").read_text() == "x"
    hostile.write(home, "new/deep/file", "y")  # missing directories are made
    assert (home / "new/deep/file").read_text() == "y"
    with pytest.raises(hostile.HostileInput, match="symlink"):
        hostile.write(home, "dirlink/host-secret", "owned")
    assert (tmp_path / "host-secret").read_text() == "admin key\n"
    assert not [p for p in home.rglob(".*kubeproof-*")]  # no temporary file left behind


def test_touch_and_unlink_leave_a_symlinks_target_alone(home, tmp_path):
    os.symlink(tmp_path / "created-on-host", home / "seen")
    hostile.touch(home, "seen")
    assert not (tmp_path / "created-on-host").exists()
    hostile.unlink(home, "link")
    assert not (home / "link").exists() and (tmp_path / "host-secret").exists()
    assert hostile.lexists(home, "seen") and not hostile.lexists(home, "link")


def test_listing_refuses_a_symlinked_directory_and_too_many_entries(home):
    assert "fifo" in hostile.list_dir(home)
    with pytest.raises(hostile.HostileInput, match="symlink"):
        hostile.list_dir(home, "dirlink")
    with pytest.raises(hostile.HostileInput, match="over the limit"):
        hostile.list_dir(home, ".", limit=2)


def test_read_ends_keeps_the_head_and_tail_of_a_large_file(home):
    head, tail, size = hostile.read_ends(home, "big", 1000)
    assert (len(head), len(tail), size) == (500, 500, hostile.FILE_LIMIT + 1)
    with pytest.raises(hostile.HostileInput):
        hostile.read_ends(home, "fifo", 1000)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"outcome": "submitted", "outcome": "declined"}', "duplicate key"),
        ('{"score": NaN}', "NaN is not JSON"),
        ("[Infinity]", "Infinity is not JSON"),
        ("[" * 10_000 + "]" * 10_000, "nested deeper"),
        ("{'single': 1}", "not strict JSON"),
        (b'{"a": "\xff"}', "not UTF-8"),
    ],
)
def test_strict_json(text, says):
    with pytest.raises(hostile.HostileInput, match=says):
        hostile.loads_json(text)


def test_strict_json_accepts_json():
    assert hostile.loads_json('{"a": [1, 2.5, "x", null, true]}') == {
        "a": [1, 2.5, "x", None, True]
    }


def test_yaml_is_safe_loaded_with_a_bounded_alias_expansion_and_depth():
    started = time.monotonic()
    with pytest.raises(hostile.HostileInput, match="excessive aliasing"):
        hostile.load_yaml_all(BOMB)
    assert time.monotonic() - started < 1
    with pytest.raises(hostile.HostileInput, match="nested"):
        hostile.load_yaml_all("a: " + "[" * 5000 + "]" * 5000)
    with pytest.raises(hostile.HostileInput, match="nested"):
        hostile.load_yaml_all("a:\n" + "".join(" " * i + "b:\n" for i in range(1, 600)))
    with pytest.raises(hostile.HostileInput, match=r"recursive alias|does not parse"):
        hostile.load_yaml_all("a: &a [*a]")
    with pytest.raises(hostile.HostileInput, match="does not parse"):
        hostile.load_yaml_all("!!python/object/apply:os.system ['id']")
    with pytest.raises(hostile.HostileInput, match="over the limit"):
        hostile.load_yaml_all("a: b\n" * 1_000_000)
    # anchors used as manifests use them are fine
    docs = hostile.load_yaml_all("base: &b {app: web}\nlabels: *b\n---\nkind: Pod\n")
    assert docs == [{"base": {"app": "web"}, "labels": {"app": "web"}}, {"kind": "Pod"}]


def test_the_risk_assessor_survives_an_alias_bomb_and_deep_nesting_in_command_text():
    started = time.monotonic()
    for body in (BOMB, "[" * 20_000 + "]" * 20_000, "{" * 20_000):
        command = f"kubectl apply -f - <<'EOF'\n{body}\nEOF"
        assert assess_command(command).operation == "mutate"
        patch = f"kubectl -n shop patch deploy web -p '{body}'"
        assert assess_command(patch).operation == "mutate"
    assert time.monotonic() - started < 30  # shlex reads 40 kB of brackets in a second or two
    assert load_objects(BOMB) == [] and patch_objects("[" * 100_000, "pods") == []
    # what is not an attack still reads, anchors and all
    pod = "spec: &s {containers: [{name: c, securityContext: {privileged: true}}]}\nkind: Pod"
    assert "privileged" in str(assess_command(f"kubectl apply -f - <<EOF\n{pod}\nEOF").to_dict())
