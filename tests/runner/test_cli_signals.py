"""SIGTERM ends a kubeproof command as Ctrl-C does: its cleanup runs (clusters stopped,
local model servers torn down by their atexit hooks), and it exits 143. No cluster."""

import signal
import subprocess
import sys


def test_sigterm_runs_the_commands_cleanup(tmp_path):
    marker = tmp_path / "cleaned"
    program = f"""
import atexit, time
from pathlib import Path
import kubeproof.cli as cli

atexit.register(lambda: Path({str(marker)!r}).write_text("stopped"))


def forever():
    print("ready", flush=True)
    time.sleep(60)


cli.app = forever
cli.main()
"""
    proc = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM
    finally:
        proc.kill()
    assert marker.read_text() == "stopped"


def test_a_second_sigterm_during_cleanup_does_not_cut_it_short(tmp_path):
    # a supervisor that repeats its SIGTERM (or an impatient user) must not stop the
    # cleanup half-way: the clusters it stops would be left behind
    marker = tmp_path / "cleaned"
    program = f"""
import atexit, time
from pathlib import Path
import kubeproof.cli as cli


def cleanup():
    print("cleaning", flush=True)
    time.sleep(2)
    Path({str(marker)!r}).write_text("stopped")


atexit.register(cleanup)


def forever():
    print("ready", flush=True)
    time.sleep(60)


cli.app = forever
cli.main()
"""
    proc = subprocess.Popen(
        [sys.executable, "-c", program],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGTERM)
        assert proc.stdout.readline().strip() == "cleaning"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 128 + signal.SIGTERM
        stderr = proc.stderr.read() if proc.stderr else ""
    finally:
        proc.kill()
    assert marker.read_text() == "stopped"
    assert "already stopping" in stderr
    assert "Exception ignored" not in stderr
