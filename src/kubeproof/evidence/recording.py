"""Recording an agent's session into an evidence chain: what it was asked, every command it ran
(with its risk), every API request the apiserver logged for it, protocol entries, the verdict.
Used by trials and by the MCP server.

Audit entries are the ground truth: each is attributed to the command whose time window holds
it. A successful mutating request that no recorded command explains — a CLI agent calling
the API without its kubectl, say — is flagged with an `unrecorded_mutation` observation.

Every request in the audit log that the harness, the control plane or a workload from its
pod did not make is the agent's (`cluster.audit.Attribution`), whatever identity made it:
an entry names the identity that made it (`user`), whom it impersonated, and, when it
acted as another identity, minted a credential, wrote RBAC for itself or for everyone, or
impersonated, the risk tags of `risk.assess_audit`.
"""

import hashlib
import json
from datetime import datetime
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from kubeproof.agents.session import Session, Step
from kubeproof.cluster.audit import (
    HARNESS_USERS,
    Attribution,
    impersonated,
    username,
)
from kubeproof.evidence import signals
from kubeproof.evidence.chain import Recorder, read_entries
from kubeproof.evidence.risk import assess_audit, assess_command
from kubeproof.evidence.verify import verify_chain

MUTATING = frozenset({"create", "update", "patch", "delete", "deletecollection"})
SLACK = 0.5  # seconds: an audit timestamp may trail the command's end a little
AUDIT_ACTOR = {"type": "apiserver", "id": "audit-log"}


def _epoch(timestamp: str) -> float:
    try:
        return datetime.fromisoformat(timestamp).timestamp()
    except ValueError:
        return 0.0


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class TrialRecording:
    def __init__(
        self,
        directory: Path,
        key: Ed25519PrivateKey,
        agent_user: str,
        audit_log: Path | None,
        agent_name: str,
        harness: frozenset[str] = HARNESS_USERS,
    ):
        self.directory = directory
        # whoever is recorded as the agent is never the harness (`kubeproof mcp` may record
        # a session made with the admin's credentials)
        self.harness = frozenset(harness) - {agent_user}
        self.attribution = Attribution(self.harness)  # read in the log's order
        # the audit log's size when a verifier began acting as the agent: read no further
        self.audit_until: int | None = None
        self.recorder = Recorder(directory, key)
        self.agent_user = agent_user
        self.audit_log = audit_log
        self.offset = audit_log.stat().st_size if audit_log and audit_log.exists() else 0
        self.actor = {"type": "agent", "id": agent_name}
        self.seen = 0  # session steps recorded so far
        # step, start, end, origin, whether it could have written (not a lone kubectl read)
        self.windows: list[tuple[int, float, float, str, bool]] = []
        self.audit: list[dict] = []

    def start(self, task: str, agent: str, trial: str, cluster: str | None, instruction: str):
        self.recorder.append(
            "trial_start",
            {
                "task": task,
                "agent": agent,
                "trial": trial,
                "cluster": cluster,
                "instruction_sha256": _sha(instruction),
            },
        )

    def after_step(self, session: Session) -> None:
        """Record the steps not yet recorded, then the audit events so far."""
        self.record_steps(session.steps)

    def record_steps(self, steps: list[Step]) -> None:
        for step in steps[self.seen :]:
            self._command(step)
        self.seen = len(steps)
        self.drain_audit()

    def _command(self, step: Step) -> None:
        assessment = assess_command(step.command) if step.origin != "cli" else None
        risk = assessment.to_dict() if assessment else None
        lone_read = (
            assessment is not None
            and assessment.operation == "read"
            and step.command.lstrip().startswith("kubectl ")
            and not any(c in step.command for c in "|;&`$")
        )
        payload = {
            "step": step.index,
            "command": step.command,
            "exit_code": step.exit_code,
            "seconds": step.seconds,
            "timed_out": step.timed_out,
            "stdout_sha256": _sha(step.stdout),
            "stderr_sha256": _sha(step.stderr),
            "stdout": step.stdout,
            "stderr": step.stderr,
            "risk": risk or assess_command("").to_dict(),
            "origin": step.origin,
        }
        self.recorder.append("command", payload, actor=self.actor)
        end = step.started + step.seconds
        self.windows.append((step.index, step.started, end, step.origin, not lone_read))
        if step.safety:
            self.recorder.append(
                "observation",
                {"kind": "collateral", "detail": "; ".join(step.safety), "step": step.index},
            )

    def _step_of(self, at: float, mutating: bool) -> tuple[int | None, str | None]:
        """The command an API request falls in: a specific command (the agent's own or a CLI
        agent's kubectl call) before the CLI process as a whole. A write is never credited to
        a command that only reads with kubectl."""

        def distance(start: float, end: float) -> float:
            return max(start - at, at - end, 0.0)

        near = [w for w in self.windows if distance(w[1], w[2]) <= SLACK and (w[4] or not mutating)]
        if not near:
            return None, None
        # a specific command before the CLI process; then the nearest window
        index, _, _, origin, _ = min(near, key=lambda w: (w[3] == "cli", distance(w[1], w[2])))
        return index, origin

    def _new_events(self) -> list[dict]:
        if not self.audit_log or not self.audit_log.exists():
            return []
        with self.audit_log.open("rb") as fh:
            fh.seek(self.offset)
            data = (
                fh.read() if self.audit_until is None else fh.read(self.audit_until - self.offset)
            )
        end = data.rfind(b"\n") + 1  # a torn last line waits for the next read
        self.offset += end
        events = []
        for line in data[:end].splitlines():
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
        return events

    def drain_audit(self) -> None:
        for event in self.attribution.agents(self._new_events()):
            ref = event.get("objectRef") or {}
            at = _epoch(event.get("requestReceivedTimestamp", ""))
            step, origin = self._step_of(at, event.get("verb") in MUTATING)
            payload = {
                "audit_id": event.get("auditID", ""),
                "step": step,
                "verb": event.get("verb", ""),
                "resource": ref.get("resource", ""),
                "api_group": ref.get("apiGroup", ""),
                "namespace": ref.get("namespace"),
                "name": ref.get("name"),
                "subresource": ref.get("subresource"),
                "code": int((event.get("responseStatus") or {}).get("code", 0)),
                "user": username(event),
                "mutating": event.get("verb") in MUTATING,
                "uri": event.get("requestURI", ""),
                "at": event.get("requestReceivedTimestamp", ""),
            }
            if (as_whom := impersonated(event)) is not None:
                payload["impersonated"] = as_whom
            risk = assess_audit(event, self.agent_user)
            if risk.tags:
                payload["risk"] = risk.to_dict()
            entry = self.recorder.append("audit", payload, actor=AUDIT_ACTOR)
            self.audit.append({**payload, "seq": entry["seq"], "origin": origin})

    def flag_unrecorded(self) -> int:
        """Observations for successful mutations no recorded command explains."""
        flagged = 0
        for a in self.audit:
            if a["mutating"] and a["code"] < 400 and a["origin"] in (None, "cli"):
                target = f"{a['resource']}/{a['namespace'] or ''}/{a['name'] or ''}"
                self.recorder.append(
                    "observation",
                    {
                        "kind": "unrecorded_mutation",
                        "detail": f"{a['verb']} {target}: no recorded command made this request",
                        "refs": [a["seq"]],
                    },
                )
                flagged += 1
        return flagged

    def finish(self, record: dict, steps: int, protocol: bool) -> dict:
        """The verdict and the end, sealed; a summary of the chain for trial.json."""
        self.drain_audit()
        unrecorded = self.flag_unrecorded()
        if "verdict" in record:  # a trial's; a recorded MCP session has none
            self.recorder.append(
                "verdict",
                {
                    "verdict": record.get("verdict"),
                    "score": record.get("score", 0),
                    "safe": record.get("safe"),
                    "reason": record.get("reason", ""),
                },
            )
        self.recorder.append("trial_end", {"steps": steps, "decision": record.get("decision")})
        self.recorder.close()
        entries = read_entries(self.directory)
        report = verify_chain(self.directory)
        fired = {s.name: s.count for s in signals.detect(entries) if s.fired}
        return {
            "dir": "evidence",
            "entries": len(entries),
            "fingerprint": self.recorder.fingerprint,
            "verified": report.ok,
            "unrecorded_mutations": unrecorded,
            "signals": fired,
            "compliance": signals.compliance(entries) if protocol else None,
        }

    def abandon(self) -> None:
        """Seal what was recorded when the trial failed half-way."""
        if not self.recorder.closed:
            self.recorder.close()
