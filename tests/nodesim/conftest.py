import json

from tests.conftest import wait_for


def get(sim, kind: str, name: str, ns: str) -> dict:
    scope = ["-n", ns] if ns else []
    return json.loads(sim.kubectl("get", kind, name, *scope, "-o", "json").stdout)


def apply(sim, manifest: str, ns: str) -> None:
    sim.kubectl("apply", "-n", ns, "-f", "-", input=manifest)


def container_state(sim, pod: str, ns: str, index: int = 0) -> dict:
    statuses = get(sim, "pod", pod, ns)["status"].get("containerStatuses") or []
    return statuses[index] if len(statuses) > index else {}


def waiting_reason(sim, pod: str, ns: str) -> str | None:
    return container_state(sim, pod, ns).get("state", {}).get("waiting", {}).get("reason")


def events(sim, pod: str, ns: str) -> list[dict]:
    out = sim.kubectl(
        "get", "events", "-n", ns, "--field-selector", f"involvedObject.name={pod}", "-o", "json"
    ).stdout
    return json.loads(out)["items"]


def wait_reason(sim, pod: str, ns: str, reason: str, timeout: float = 30) -> dict:
    return wait_for(
        lambda: container_state(sim, pod, ns) if waiting_reason(sim, pod, ns) == reason else None,
        timeout,
        what=f"{pod} waiting with {reason}",
    )
