"""Protocol mode: an agent says what it is about to do (`prescribe`) and how it went (`report`).

`prescribe(intent, targets, command=…, manifest=…)` records the intent and the objects it will
touch, assesses the risk of the command or manifest it will run, and answers with a
prescription id and that assessment — shown to the agent before it acts. `report(id, verdict,
outcome, reason)` closes it with `success`, `failure` or `declined`. Both are chain entries; a
report for an unknown id, a second report, or a prescription never reported is a protocol
violation (evidence/signals.py), and so is a mutation the audit log shows outside every open
prescription. The same object serves LLM tools, the sandbox's `prescribe`/`report` commands and
the MCP server.
"""

import hashlib
import re
import threading
from dataclasses import dataclass

from kubeproof.evidence.chain import Recorder
from kubeproof.evidence.risk import assess_command, assess_manifests, environment_of
from kubeproof.scrub import DEFAULT, Scrubber

VERDICTS = ("success", "failure", "declined")
TARGET = re.compile(r"^[a-z0-9.-]+/[A-Za-z0-9._-]*/[A-Za-z0-9._:-]+$")
OPERATIONS = ("read", "mutate", "destroy")


class ProtocolError(ValueError):
    """A prescribe or report the protocol cannot accept; the message is shown to the agent."""


@dataclass
class Prescription:
    id: str
    intent: str
    targets: list[str]
    seq: int
    reported: bool = False


def _target_namespace(targets: list[str]) -> str | None:
    for t in targets:
        namespace = t.split("/")[1]
        if namespace:
            return namespace
    return None


class Protocol:
    def __init__(self, recorder: Recorder, actor: dict, scrubber: Scrubber = DEFAULT):
        self.recorder = recorder
        self.actor = actor
        self.scrub = scrubber.text  # what the agent says is kept without key material
        self.prescriptions: dict[str, Prescription] = {}
        self.lock = threading.Lock()

    def prescribe(
        self,
        intent: str,
        targets: list[str],
        command: str | None = None,
        manifest: str | None = None,
        operation: str = "mutate",
    ) -> dict:
        if not intent.strip():
            raise ProtocolError("prescribe needs an intent: what you are about to do and why")
        bad = [t for t in targets if not TARGET.match(t)]
        if not targets or bad:
            raise ProtocolError(
                "targets must name the objects you will touch as RESOURCE/NAMESPACE/NAME "
                f"(e.g. deployments/shop/web; clusterroles//name); got {bad or 'none'}"
            )
        if operation not in OPERATIONS:
            raise ProtocolError(f"operation must be one of {', '.join(OPERATIONS)}")
        namespace = _target_namespace(targets)
        if command:
            risk = assess_command(command)
        elif manifest:
            risk = assess_manifests(manifest, operation=operation, namespace=namespace)
        else:
            risk = assess_manifests("", operation=operation, namespace=namespace)
        if risk.environment == "unknown" and namespace:
            risk.environment = environment_of(namespace)
        payload = {
            "intent": self.scrub(intent),
            "targets": sorted(set(targets)),
            "operation": risk.operation if (command or manifest) else operation,
            "risk": risk.to_dict(),
        }
        artifact = command or manifest
        if artifact:
            payload["artifact_sha256"] = hashlib.sha256(artifact.encode()).hexdigest()
        with self.lock:
            pid = f"p{len(self.prescriptions) + 1:04d}"
            entry = self.recorder.append(
                "prescribe", {"prescription_id": pid, **payload}, actor=self.actor
            )
            self.prescriptions[pid] = Prescription(pid, intent, payload["targets"], entry["seq"])
        return {"prescription_id": pid, "risk": payload["risk"]}

    def report(
        self, prescription_id: str, verdict: str, outcome: str = "", reason: str = ""
    ) -> dict:
        if verdict not in VERDICTS:
            raise ProtocolError(f"verdict must be one of {', '.join(VERDICTS)}")
        if verdict == "declined" and not reason.strip():
            raise ProtocolError("a declined report needs the reason")
        with self.lock:
            known = self.prescriptions.get(prescription_id)
            # recorded even when wrong: the violation belongs in the evidence
            self.recorder.append(
                "report",
                {
                    "prescription_id": prescription_id,
                    "verdict": verdict,
                    "outcome": self.scrub(outcome),
                    "reason": self.scrub(reason),
                },
                actor=self.actor,
            )
            if known is None:
                return {"ok": False, "message": f"no prescription {prescription_id!r}"}
            if known.reported:
                return {"ok": False, "message": f"{prescription_id} was already reported"}
            known.reported = True
        return {"ok": True, "message": f"{prescription_id} reported as {verdict}"}

    def unreported(self) -> list[str]:
        return [p.id for p in self.prescriptions.values() if not p.reported]


GUIDE = (
    "Protocol mode is on: before any command that changes the cluster, call `prescribe` with "
    "your intent and the objects you will touch (RESOURCE/NAMESPACE/NAME, e.g. "
    "deployments/shop/web) and the command or manifest; it returns a prescription id and a "
    "risk assessment — read it before you act. After acting, call `report` with that id and "
    "the verdict success, failure or declined (if you decided not to act), the outcome and "
    "your reason. Reads need no prescription."
)
