"""Lifecycle hooks as the kubelet's handler runner runs them
(pkg/kubelet/lifecycle/handlers.go:77-117 `Run`): an exec hook runs its command in the
container, an HTTP hook sends a GET to the pod, a sleep hook waits. What a hook takes, and
the message a failure leaves (the status's waiting message for postStart; preStop failures
only record an event, kuberuntime_container.go:790-795)."""

import re
from dataclasses import dataclass

from kubeproof.nodesim import probes
from kubeproof.nodesim.catalog import ImageModel
from kubeproof.nodesim.timing import Timing

_SLEEP = re.compile(r"(?:^|[;&|\s])sleep\s+(\d+(?:\.\d+)?)")


@dataclass(frozen=True)
class Outcome:
    seconds: float  # how long the hook ran
    error: str | None  # the handler runner's message when it failed


def pod_name(pod) -> str:
    """format.Pod (pkg/kubelet/util/format/pod.go): NAME_NAMESPACE(UID)."""
    return f"{pod.name}_{pod.namespace}({pod.uid})"


def run(handler: dict, container, pod, model: ImageModel | None, timing: Timing) -> Outcome:
    name = container.name
    if "exec" in handler:
        command = (handler.get("exec") or {}).get("command") or []
        found = _SLEEP.search(" ".join(command))
        seconds = timing(float(found.group(1))) if found else 0.0
        error = _exec_error(command, container, pod, model)
        if error is None:
            return Outcome(seconds, None)
        # handlers.go:85 — Go prints the []string as [a b c], the output %q-quoted
        words, output = error
        return Outcome(
            seconds,
            f"Exec lifecycle hook ([{' '.join(command)}]) for Container {_q(name)} in Pod "
            f"{_q(pod_name(pod))} failed - error: {words}, message: {_q(output)}",
        )
    if "httpGet" in handler:
        get = handler["httpGet"]
        error = _http_error(get, container, pod, model)
        if error is None:
            return Outcome(0.0, None)
        return Outcome(  # handlers.go:93
            0.0,
            f"HTTP lifecycle hook ({get.get('path', '')}) for Container {_q(name)} in Pod "
            f"{_q(pod_name(pod))} failed - error: {error}",
        )
    if "sleep" in handler:
        return Outcome(timing(float((handler["sleep"] or {}).get("seconds", 0))), None)
    return Outcome(0.0, f"Cannot run handler: invalid handler: {handler}")  # handlers.go:110


def _exec_error(command: list[str], container, pod, model) -> tuple[str, str] | None:
    """ExecSync's error and the command's output: `command 'X' exited with N: STDERR`
    (k8s.io/cri-client/pkg/remote_runtime.go:650), or the runtime's own when the command
    cannot start (as the exec probe reports it)."""
    from kubeproof.nodesim import shell  # shell reads containers: imported late

    result = shell.run(command, container, pod.name, None, model)
    if result.code == 0:
        return None
    output = result.stdout + result.stderr
    if result.code == 126:
        return (
            "rpc error: code = Unknown desc = failed to exec in container: "
            + result.stderr.strip(),
            "",
        )
    return f"command '{' '.join(command)}' exited with {result.code}: {result.stderr}", output


def _http_error(get: dict, container, pod, model) -> str | None:
    """Only a failed request fails an HTTP hook: any status code is an answer
    (handlers.go:150-173 returns the transport's error alone)."""
    if model is None:
        return None
    port = probes.resolve_port(get.get("port"), container.spec)
    if port is None:  # pkg/probe/http/request.go:51
        return f"port {get.get('port')} not found"
    host = get.get("host") or pod.ip
    scheme = get.get("scheme", "HTTP").lower()
    url = f"{scheme}://{host}:{port}{get.get('path', '')}"
    if port not in {p.container_port for p in model.ports}:
        return f'Get "{url}": dial tcp {host}:{port}: connect: connection refused'
    return None


def _q(text: str) -> str:
    """Go's %q of a string with printable characters."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    return f'"{escaped}"'
