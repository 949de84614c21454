"""The kubelet's HTTPS endpoint, which the apiserver calls for `kubectl logs`.

Served for every node of the cluster on the cluster's address, port 10250 (each Node
reports that address as its InternalIP). Runs in a thread beside the asyncio loop; it only
reads the pod runtimes.
"""

import datetime as dt
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from kubeproof.nodesim.container import Container

FOLLOW_POLL_SECONDS = 0.2


def _rfc3339(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _waiting_message(container: Container, pod: str) -> str:
    reason = container.reason or "ContainerCreating"
    if reason in ("ErrImagePull", "ImagePullBackOff"):
        reason = "trying and failing to pull image"
    return f'container "{container.name}" in pod "{pod}" is waiting to start: {reason}'


class _Handler(BaseHTTPRequestHandler):
    kubelet = None  # set by serve()
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet: the apiserver polls health
        pass

    def _send(self, code: int, body: str, content_type: str = "text/plain") -> None:
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        parts = [p for p in url.path.split("/") if p]
        if url.path == "/healthz":
            ok = self.kubelet.registered
            self._send(200 if ok else 503, "ok" if ok else "registering nodes")
        elif parts[:1] == ["containerLogs"] and len(parts) >= 4:
            self._logs(parts[1], parts[2], parts[3], parse_qs(url.query))
        else:
            self._send(404, "404 page not found")

    def _logs(self, namespace: str, pod_name: str, container_name: str, query: dict) -> None:
        pod = self.kubelet.find_pod(namespace, pod_name)
        if pod is None:
            self._send(404, json.dumps({"message": f'pod "{pod_name}" not found'}))
            return
        container = next((c for c in pod.containers() if c.name == container_name), None)
        if container is None:
            self._send(400, f'container "{container_name}" in pod "{pod_name}" is not valid')
            return
        first = lambda key, default=None: (query.get(key) or [default])[0]  # noqa: E731
        previous = first("previous") == "true"
        if previous:
            if not container.previous_logs and container.restart_count == 0:
                self._send(
                    400,
                    f'previous terminated container "{container_name}" in pod '
                    f'"{pod_name}" not found',
                )
                return
            lines = list(container.previous_logs)
        else:
            if not container.container_id:
                self._send(400, _waiting_message(container, pod_name))
                return
            lines = list(container.logs)
        if since := first("sinceSeconds"):
            cutoff = time.time() - float(since)
            lines = [entry for entry in lines if entry[0] >= cutoff]
        if tail := first("tailLines"):
            lines = lines[-int(tail) :] if int(tail) > 0 else []
        limit = int(first("limitBytes", "0") or 0)
        stamps = first("timestamps") == "true"
        render = lambda e: (f"{_rfc3339(e[0])} " if stamps else "") + e[1] + "\n"  # noqa: E731
        body = "".join(render(e) for e in lines)
        if limit:
            body = body[:limit]
        follow = first("follow") == "true" and not previous
        if not follow:
            self._send(200, body)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._chunk(body)
        sent = len(container.logs)
        instance = container.container_id
        try:
            while container.container_id == instance and container.stage == "running":
                time.sleep(FOLLOW_POLL_SECONDS)
                fresh = container.logs[sent:]
                sent += len(fresh)
                if fresh:
                    self._chunk("".join(render(e) for e in fresh))
            self._chunk("")
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def serve(kubelet, address: str, port: int, cert: Path, key: Path) -> ThreadingHTTPServer:
    handler = type("Handler", (_Handler,), {"kubelet": kubelet})
    server = ThreadingHTTPServer((address, port), handler)
    server.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, name="kubelet-server", daemon=True).start()
    return server
