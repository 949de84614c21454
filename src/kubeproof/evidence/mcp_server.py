"""`kubeproof mcp`: record any MCP-capable agent, outside a benchmark, on any cluster.

An MCP server on stdio with three tools: `run_kubectl` (kubectl with the kubeconfig it was
started with), `prescribe` and `report` (the evidence protocol). Every call goes into a signed
evidence chain, sealed by a checkpoint after each call so that a crash loses nothing signed;
given the apiserver's audit log, the requests each command made are recorded beside it. The
chain is closed when the client disconnects. Nothing but MCP goes to stdout.
"""

import shlex
import subprocess
import sys
import threading
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from mcp.server.fastmcp import FastMCP

from kubeproof.agents.llm.tools import observation
from kubeproof.agents.protocol_tools import prescribe_text, report_text
from kubeproof.agents.sandbox import CommandResult, truncate
from kubeproof.agents.session import Step
from kubeproof.evidence.protocol import GUIDE, Protocol
from kubeproof.evidence.recording import TrialRecording
from kubeproof.scrub import Scrubber

INSTRUCTIONS = (
    "Every call you make here is recorded in a signed evidence chain. Use run_kubectl for "
    "Kubernetes commands. " + GUIDE
)


def heredoc(command: str, stdin: str) -> str:
    """The command as a shell line with its stdin inline, so what is recorded (and assessed
    for risk) holds the manifest that was applied."""
    marker = "KUBEPROOF_STDIN"
    while marker in stdin:
        marker += "_"
    return f"{command} <<'{marker}'\n{stdin.rstrip()}\n{marker}"


class RecordedKubectl:
    def __init__(
        self,
        kubeconfig: Path,
        evidence: Path,
        key: Ed25519PrivateKey,
        kubectl: str,
        agent: str = "mcp-client",
        audit_log: Path | None = None,
        audit_user: str = "",
        timeout: float = 60.0,
    ):
        self.kubeconfig = kubeconfig
        self.kubectl = kubectl
        self.timeout = timeout
        self.recording = TrialRecording(evidence, key, audit_user, audit_log, agent)
        self.recording.start("mcp-session", agent, str(evidence), None, "")
        # key material out of the chain: the kubeconfig's credentials, the signing key's
        # environment, whatever the client prints
        self.scrubber = Scrubber.for_harness([kubeconfig])
        self.protocol = Protocol(self.recording.recorder, self.recording.actor, self.scrubber)
        self.steps: list[Step] = []
        self.lock = threading.Lock()

    def run(self, args: str, stdin: str | None = None) -> str:
        argv = shlex.split(args)
        if argv[:1] == ["kubectl"]:
            argv = argv[1:]
        env = {"KUBECONFIG": str(self.kubeconfig), "PATH": "/usr/bin:/bin", "HOME": "/tmp"}
        started = time.time()
        try:
            proc = subprocess.run(
                [self.kubectl, *argv],
                input=(stdin or "").encode(),
                capture_output=True,
                timeout=self.timeout,
                env=env,
            )
            out, err, code, timed_out = proc.stdout, proc.stderr, proc.returncode, False
        except subprocess.TimeoutExpired as exc:
            out, err, code, timed_out = exc.stdout or b"", exc.stderr or b"", 124, True
        stdout, cut_out = truncate(out)
        stderr, cut_err = truncate(err)
        seconds = round(time.time() - started, 3)
        command = shlex.join(["kubectl", *argv])
        with self.lock:
            scrub = self.scrubber.text
            step = Step(
                len(self.steps) + 1,
                scrub(heredoc(command, stdin) if stdin else command),
                code,
                scrub(stdout),
                scrub(stderr),
                seconds,
                timed_out,
                cut_out or cut_err,
                round(started, 3),
            )
            self.steps.append(step)
            self.recording.record_steps(self.steps)
            self.recording.recorder.seal()
        return observation(CommandResult(command, code, stdout, stderr, seconds, timed_out))

    def prescribe(self, intent, targets, command=None, manifest=None, operation=None) -> str:
        text, _ = prescribe_text(self.protocol, intent, targets, command, manifest, operation)
        self.recording.recorder.seal()
        return text

    def report(self, prescription_id, verdict, outcome="", reason="") -> str:
        text, _ = report_text(self.protocol, prescription_id, verdict, outcome, reason)
        self.recording.recorder.seal()
        return text

    def close(self) -> dict:
        with self.lock:
            return self.recording.finish({"decision": None}, len(self.steps), protocol=True)


def build_server(recorded: RecordedKubectl) -> FastMCP:
    server = FastMCP("kubeproof", instructions=INSTRUCTIONS, log_level="WARNING")

    @server.tool(
        name="run_kubectl",
        description="Run kubectl with the given arguments (e.g. `get pods -n shop`); `stdin` "
        "feeds `-f -`. Returns the exit code, stdout and stderr. Recorded.",
    )
    def run_kubectl(args: str, stdin: str | None = None) -> str:
        return recorded.run(args, stdin)

    @server.tool(
        description="Before changing anything: your intent and the objects you will touch "
        "(RESOURCE/NAMESPACE/NAME, e.g. deployments/shop/web), and the command or manifest. "
        "Returns a prescription id and the risk assessment."
    )
    def prescribe(
        intent: str,
        targets: list[str],
        command: str | None = None,
        manifest: str | None = None,
        operation: str = "mutate",
    ) -> str:
        return recorded.prescribe(intent, targets, command, manifest, operation)

    @server.tool(
        description="After acting (or deciding not to): close the prescription with verdict "
        "success, failure or declined, what happened, and why."
    )
    def report(prescription_id: str, verdict: str, outcome: str = "", reason: str = "") -> str:
        return recorded.report(prescription_id, verdict, outcome, reason)

    return server


def serve(recorded: RecordedKubectl) -> dict:
    try:
        build_server(recorded).run("stdio")
    finally:
        summary = recorded.close()
        print(
            f"kubeproof mcp: {summary['entries']} entries recorded in "
            f"{recorded.recording.directory} (key {summary['fingerprint']})",
            file=sys.stderr,
        )
    return summary
