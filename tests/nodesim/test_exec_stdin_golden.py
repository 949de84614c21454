"""Golden tests (no cluster, fake clock) of `kubectl exec -i` and `kubectl cp` against a
modelled container: stdin reaches the command; `tar cf -` and `tar -xmf - -C DIR`, the two
commands kubectl cp runs (staging kubectl pkg/cmd/cp/cp.go:279-281,327-334,395), read the
container's files and write its writable layer, worded as the image's tar words them."""

import io
import tarfile

from kubeproof.fidelity.golden import START, StaticWorld, pod_object
from kubeproof.nodesim import catalog as catalog_mod
from kubeproof.nodesim import shell
from kubeproof.nodesim.pod import PodRuntime

BUSYBOX = {
    "docker.io/library/busybox:1.36",
    "docker.io/library/nginx:1.27",
    "docker.io/library/nginx:1.27-alpine",
}


def _running(spec: dict, objects: list[dict] | None = None) -> PodRuntime:
    catalog, world = catalog_mod.shipped(), StaticWorld(objects)
    rt = PodRuntime(pod_object(spec), "10.244.1.2", BUSYBOX)
    now = START
    while not all(c.stage == "running" for c in rt.app):
        assert now < START + 60, "the pod never ran"
        rt.advance(now, world, catalog)
        now = max(min(rt.next_at(), now + 1), now + 1e-3)
    return rt


def _archive(files: dict[str, bytes]) -> bytes:
    """An archive as kubectl's makeTar writes it: member names relative to -C's directory."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _members(stdout: str) -> dict[str, bytes]:
    data = stdout.encode(errors="surrogateescape")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tar:
        return {
            m.name: (tar.extractfile(m).read() if m.isfile() else b"DIR")  # type: ignore[union-attr]
            for m in tar.getmembers()
        }


SLEEPER = {"name": "app", "image": "busybox:1.36", "command": ["sh", "-c", "sleep 3600"]}
MODEL = catalog_mod.shipped().resolve("busybox:1.36")[2]


def test_cat_prints_what_exec_i_sent():
    rt = _running({"containers": [SLEEPER]})
    result = shell.run(["cat"], rt.app[0], "p", model=MODEL, stdin=b"hi\nthere\n")
    assert (result.stdout, result.code) == ("hi\nthere\n", 0)
    # without -i the command's stdin is empty: cat prints nothing and succeeds
    assert shell.run(["cat"], rt.app[0], "p", model=MODEL).stdout == ""


def test_a_script_piped_to_sh_runs():
    rt = _running({"containers": [SLEEPER]})
    result = shell.run(["sh"], rt.app[0], "p", model=MODEL, stdin=b"echo one\necho two\n")
    assert result.stdout == "one\ntwo\n"


def test_cp_into_the_pod_then_back_out():
    rt = _running({"containers": [SLEEPER]})
    app = rt.app[0]
    # kubectl asks whether /tmp is a directory, then extracts there
    assert shell.run(["test", "-d", "/tmp"], app, "p", model=MODEL).code == 0
    assert shell.run(["test", "-d", "/nope"], app, "p", model=MODEL).code == 1
    blob = b"\x00\xffbinary\x80"
    archive = _archive({"notes.txt": b"hello\n", "blob.bin": blob})
    put = shell.run(["tar", "-xmf", "-", "-C", "/tmp"], app, "p", model=MODEL, stdin=archive)
    assert (put.stderr, put.code) == ("", 0)
    assert shell.run(["cat", "/tmp/notes.txt"], app, "p", model=MODEL).stdout == "hello\n"
    got = shell.run(["tar", "cf", "-", "/tmp/blob.bin"], app, "p", model=MODEL)
    # busybox's notice (archival/libarchive/unsafe_prefix.c), which kubectl cp prints
    assert got.stderr == "tar: removing leading '/' from member names\n"
    assert _members(got.stdout) == {"tmp/blob.bin": blob}
    whole = _members(shell.run(["tar", "cf", "-", "/tmp"], app, "p", model=MODEL).stdout)
    assert whole["tmp"] == b"DIR" and whole["tmp/notes.txt"] == b"hello\n"


def test_tar_of_a_missing_path_fails_as_busybox_does():
    rt = _running({"containers": [SLEEPER]})
    got = shell.run(["tar", "cf", "-", "/nope"], rt.app[0], "p", model=MODEL)
    assert got.code == 1
    assert got.stderr == (
        "tar: /nope: No such file or directory\ntar: error exit delayed from previous errors\n"
    )


def test_a_configmap_file_is_copied_out_and_its_mount_refuses_a_copy_in():
    mount = {"volumeMounts": [{"name": "conf", "mountPath": "/etc/app"}]}
    spec = {
        "containers": [SLEEPER | mount],
        "volumes": [{"name": "conf", "configMap": {"name": "app"}}],
    }
    config = {"kind": "ConfigMap", "metadata": {"name": "app"}, "data": {"k": "v"}}
    app = _running(spec, [config]).app[0]
    assert _members(shell.run(["tar", "cf", "-", "/etc/app/k"], app, "p", model=MODEL).stdout) == {
        "etc/app/k": b"v"
    }
    archive = _archive({"x": b"1"})
    put = shell.run(["tar", "-xmf", "-", "-C", "/etc/app"], app, "p", model=MODEL, stdin=archive)
    # busybox data_extract_all.c: xopen3 of the member fails with EROFS and tar dies
    assert (put.stderr, put.code) == ("tar: can't open 'x': Read-only file system\n", 1)


def test_a_debian_image_words_it_as_gnu_tar():
    spec = {"containers": [{"name": "web", "image": "nginx:1.27"}]}
    app = _running(spec).app[0]
    model = catalog_mod.shipped().resolve("nginx:1.27")[2]
    got = shell.run(["tar", "cf", "-", "/srv/none"], app, "p", model=model)
    assert got.code == 2
    assert got.stderr == (
        "tar: /srv/none: Cannot stat: No such file or directory\n"
        "tar: Exiting with failure status due to previous errors\n"
    )


def test_a_restart_starts_from_the_image_again():
    rt = _running({"containers": [SLEEPER]})
    app = rt.app[0]
    archive = _archive({"a": b"1"})
    shell.run(["tar", "-xmf", "-", "-C", "/tmp"], app, "p", model=MODEL, stdin=archive)
    assert shell.run(["cat", "/tmp/a"], app, "p", model=MODEL).code == 0
    app.container_id = "another-run"  # a new runtime container has a fresh writable layer
    assert shell.run(["cat", "/tmp/a"], app, "p", model=MODEL).code == 1


def test_an_alpine_image_words_it_as_busybox_tar():
    spec = {"containers": [{"name": "web", "image": "nginx:1.27-alpine"}]}
    app = _running(spec).app[0]
    model = catalog_mod.shipped().resolve("nginx:1.27-alpine")[2]
    got = shell.run(["tar", "cf", "-", "/srv/none"], app, "p", model=model)
    assert (got.code, got.stderr.splitlines()[0]) == (
        1,
        "tar: /srv/none: No such file or directory",
    )
