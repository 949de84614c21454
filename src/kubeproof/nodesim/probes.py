"""Readiness, liveness and startup probes against what the behaviour model serves."""

from collections.abc import Callable
from typing import Any

from kubeproof.nodesim.catalog import ImageModel
from kubeproof.nodesim.timing import go_duration


class ProbeError(Exception):
    """The probe could not run: the kubelet records "errored and resulted in unknown state"
    (pkg/kubelet/prober/prober.go:104-108), a failure all the same."""


def resolve_port(port: int | str, container: dict) -> int | None:
    if isinstance(port, int) or str(port).isdigit():
        return int(port)
    for p in container.get("ports") or []:
        if p.get("name") == port:
            return p["containerPort"]
    return None


def check(
    probe: dict,
    container: dict,
    model: ImageModel,
    pod_ip: str,
    serving: bool,
    page: Callable[[int, str], Any] | None = None,
) -> str | None:
    """None when the probe succeeds, else the kubelet's failure output. `page(port, path)`,
    when given, is what the container's server answers (nodesim/pages.py) or None when it
    does not know: a static file server's 404 for a file not under its root."""
    served = {p.container_port for p in model.ports}
    if "httpGet" in probe:
        get = probe["httpGet"]
        port = resolve_port(get.get("port"), container)
        scheme = get.get("scheme", "HTTP").lower()
        path = get.get("path", "/")
        host = get.get("host") or pod_ip  # the probe's host, else the pod IP (request.go)
        url = f"{scheme}://{host}:{port}{path}"
        if port is None:  # pkg/probe/http/request.go:51, pkg/probe/util.go:50-57
            raise ProbeError(f"port {get.get('port')} not found")
        if not serving or port not in served:
            return f'Get "{url}": dial tcp {host}:{port}: connect: connection refused'
        answer = page(port, path) if page is not None else None
        if answer is not None:  # pkg/probe/http/http.go DoHTTPProbe: 2xx and 3xx succeed
            if 200 <= answer.status < 400:
                return None
            return f"HTTP probe failed with statuscode: {answer.status}"
        healthy = set(model.health) or {"/"}
        if path.split("?")[0] not in healthy:
            return "HTTP probe failed with statuscode: 404"
        return None
    if "tcpSocket" in probe:
        port = resolve_port(probe["tcpSocket"].get("port"), container)
        if port is None:
            raise ProbeError(f"port {probe['tcpSocket'].get('port')} not found")
        if not serving or port not in served:
            return f"dial tcp {pod_ip}:{port}: connect: connection refused"
        return None
    if "grpc" in probe:
        port = probe["grpc"].get("port")
        if not serving or port not in served:
            # pkg/probe/grpc/grpc.go:69-75: a blocking dial retries a refused connection until
            # the probe's timeout, then fails with the context's error
            timeout = go_duration(float(probe.get("timeoutSeconds", 1)))
            return (
                f'timeout: failed to connect service "{pod_ip}:{port}" within {timeout}: '
                "context deadline exceeded"
            )
        return None
    return None  # exec probes succeed: the model does not say otherwise


def timing(probe: dict) -> tuple[float, float, int, int]:
    """(initial delay, period, failure threshold, success threshold) with API defaults."""
    return (
        float(probe.get("initialDelaySeconds", 0)),
        float(probe.get("periodSeconds", 10)),
        int(probe.get("failureThreshold", 3)),
        int(probe.get("successThreshold", 1)),
    )
