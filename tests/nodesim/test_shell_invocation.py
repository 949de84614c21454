"""Which shell command lines run for real and how (catalog.shell_invocation,
realshell.canonical): `sh -c`, clustered options (`sh -ec`), options before `-c`, and a
script file (`sh /scripts/x.sh ARGS`, as infra-bench's Jobs mount one from a ConfigMap).
The parse needs no sandbox; two runs in one check what the shell then does."""

import pytest

from kubeproof.nodesim import runbox
from kubeproof.nodesim.catalog import script_of, shell_invocation
from kubeproof.nodesim.liveproc import Live
from kubeproof.nodesim.realshell import canonical
from kubeproof.nodesim.runbox import Box, Run


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["sh", "-c", "echo hi"], ([], "c", "echo hi", [])),
        (["/bin/sh", "-ec", "x", "name", "a"], (["-e"], "c", "x", ["name", "a"])),
        (["ash", "-e", "-u", "-c", "x"], (["-e", "-u"], "c", "x", [])),
        (["bash", "-o", "pipefail", "-c", "x"], (["-o", "pipefail"], "c", "x", [])),
        (["/bin/sh", "/scripts/run.sh", "archive"], ([], "file", "/scripts/run.sh", ["archive"])),
        (["sh", "-e", "--", "run.sh"], (["-e"], "file", "run.sh", [])),
        (["sh"], None),  # reads its stdin
        (["sh", "-s", "x"], None),
        (["sh", "-c"], None),  # busybox: "-c requires an argument"
        (["nginx", "-g", "daemon off;"], None),
    ],
)
def test_shell_command_lines(argv, expected):
    assert shell_invocation(argv) == expected
    assert script_of(argv) == (expected[2] if expected and expected[1] == "c" else None)


@pytest.mark.skipif(not runbox.available(), reason="needs busybox-static and bubblewrap")
def test_a_script_file_and_clustered_options_run_as_the_shell_would(tmp_path):
    env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
    script = 'echo "running $0 with $# argument: $1"\n[ "$1" = compact ] || exit 42\n'
    limits = runbox.container_limits({})
    runs = [
        (["/bin/sh", "/scripts/maintenance.sh", "archive"], "/"),
        (["sh", "maintenance.sh", "archive"], "/scripts"),  # relative to the working dir
        (["/bin/sh", "-ec", "false; echo not reached"], "/"),
    ]
    results = []
    for n, (argv, workdir) in enumerate(runs):
        logs: list[tuple[float, str]] = []
        run = Run(
            argv=canonical(argv),
            env=env,
            files={"/scripts/maintenance.sh": script},
            workdir=workdir,
        )
        live = Live(Box(tmp_path / str(n), runbox.pod_uid(), limits), run, logs)
        assert live.wait(20)
        results.append(([line for _, line in logs], live.exit_code))
    assert results[0] == (["running /scripts/maintenance.sh with 1 argument: archive"], 42)
    assert results[1] == (["running maintenance.sh with 1 argument: archive"], 42)
    assert results[2] == ([], 1)  # -e: the first failing command ends it


def test_a_script_read_from_a_mounted_file_is_that_files_text():
    # infra-bench's stores run `/bin/sh /opt/ledger/store.sh` from a ConfigMap: the servers
    # it starts (servers.py) are read from the file, as the shell reads it
    files = {"/opt/ledger/store.sh": "httpd -f -p 8080 -h /www &\nsleep 3600\n"}
    assert script_of(["/bin/sh", "/opt/ledger/store.sh"], files) == files["/opt/ledger/store.sh"]
    assert script_of(["sh", "store.sh"], files, "/opt/ledger") == files["/opt/ledger/store.sh"]
    assert script_of(["sh", "/opt/other.sh"], files) is None  # the image's own: unknown
    assert script_of(["sh", "-c", "echo hi"], files) == "echo hi"
