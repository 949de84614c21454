"""Stopping a cluster's process group never reaches beyond it."""

import subprocess
import sys


def test_a_record_without_a_group_stops_nothing_and_spares_the_caller():
    # pgid 0 is what a record holds when its start died before the first process;
    # os.killpg(0, ...) would signal the caller's own group (the user's shell, this test)
    code = (
        "from kubeproof.cluster.process import group_members, stop_group\n"
        "assert group_members(0) == [] and group_members(-1) == []\n"
        "stop_group(0, [], timeout=0.1)\n"
        "print('survived')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
    )
    assert (done.returncode, done.stdout) == (0, "survived\n"), done.stderr
