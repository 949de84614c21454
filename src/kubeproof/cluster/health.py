"""Probing components: is each process alive, and does its health endpoint say `ok`."""

import http.client
import ssl
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from kubeproof.cluster.components import Component
from kubeproof.cluster.record import ClusterRecord


def ssl_context(ca: Path | None, cert: tuple[Path, Path] | None) -> ssl.SSLContext:
    ctx = ssl.create_default_context(cafile=str(ca) if ca else None)
    if ca is None:
        # controller-manager and scheduler serve with self-signed certificates of their own
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if cert:
        ctx.load_cert_chain(str(cert[0]), str(cert[1]))
    return ctx


def https_request(
    url: str,
    ctx: ssl.SSLContext,
    method: str = "GET",
    body: bytes | None = None,
    timeout: float = 2.0,
) -> tuple[int, bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPSConnection(parts.hostname, parts.port, context=ctx, timeout=timeout)
    try:
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        conn.request(method, target, body=body)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def probe(component: Component, ca: Path) -> tuple[bool, str]:
    """(healthy, detail) for one component's health endpoint."""
    verify_ca = ca if component.health_cert else None
    url = component.health_url + ("?verbose" if component.required_checks else "")
    try:
        status, body = https_request(url, ssl_context(verify_ca, component.health_cert))
    except (OSError, http.client.HTTPException) as exc:
        return False, f"{type(exc).__name__}: {exc}"
    text = body.decode(errors="replace").strip()
    if status != 200:
        return False, f"HTTP {status}: {text[-300:]}"
    pending = [c for c in component.required_checks if f"[+]{c} ok" not in text]
    if pending:
        return False, f"not started yet: {', '.join(pending)}"
    return True, "ok"


@dataclass
class ComponentStatus:
    name: str
    pid: int | None
    running: bool
    healthy: bool
    detail: str


def component_status(record: ClusterRecord, component: Component) -> ComponentStatus:
    entry = record.components.get(component.name)
    running = bool(entry and entry.ref().alive())
    if not running:
        return ComponentStatus(
            component.name,
            entry.pid if entry else None,
            False,
            False,
            f"not running (log: {record.layout.log(component.name)})",
        )
    healthy, detail = probe(component, record.layout.cert("ca"))
    return ComponentStatus(component.name, entry.pid, True, healthy, detail)


def tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
