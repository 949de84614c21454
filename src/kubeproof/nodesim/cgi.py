"""busybox httpd's CGI for a script that runs for real (realshell.py): a GET of
`/cgi-bin/NAME?QUERY` from a static httpd's document root runs HOME/cgi-bin/NAME in the
container's sandbox, as httpd forks and execs it, and its output is the answer.

As busybox 1.36 networking/httpd.c does it: a URL under `cgi-bin/` goes to
send_cgi_and_exit (`cgi-bin/` itself is 403); the child gets httpd's environment (here the
container's) plus the CGI variables (REQUEST_METHOD, QUERY_STRING, SCRIPT_NAME,
SCRIPT_FILENAME, PATH_INFO, SERVER_PROTOCOL HTTP/1.0, GATEWAY_INTERFACE CGI/1.1,
SERVER_SOFTWARE, REMOTE_ADDR), starts in the script's directory, and a script that cannot be
executed is a 404; cgi_io_loop_and_exit sends `HTTP/1.1 200 OK` before any output that does
not begin with `HTTP/` itself, and the script's headers pass through (a `Status:` header is
not read). The child's stderr is httpd's, the container's log. A shell script's wget and
nslookup are netsim's, answered from a bridge of its own in a thread; it is cut after
CGI_SECONDS. A real script's request runs the CGI in that script's thread (CgiPlan), the
node's loop free meanwhile; an agent's `kubectl exec … wget` runs it on the loop, which is
blocked on it (its state stands still; the CGI's own wget is answered from its thread)."""

import os
import posixpath
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from kubeproof.nodesim import netbridge
from kubeproof.nodesim.liveproc import ExecResult
from kubeproof.nodesim.realshell import SOURCE_FILE

PREFIX = "/cgi-bin/"
SHELL_SHEBANGS = ("#!/bin/sh", "#!/bin/ash", "#!/bin/busybox sh", "#!/bin/bash")
CGI_SECONDS = 10.0


class CgiDeferred(Exception):
    """A script's request reached a CGI script: run it in the script's thread (CgiPlan)."""


@dataclass
class CgiPlan:
    """The CGI scripts a real script's request reaches, run in that script's thread rather
    than on the node's loop (a CGI may run for up to CGI_SECONDS; the node's heartbeats,
    probes and every other pod go on meanwhile): the request is answered on the loop; when
    it reaches a script not run yet, its run is left `pending` (CgiDeferred), run by the
    requesting thread into `pages`, and the request answered again."""

    ROUNDS: ClassVar[int] = 4  # CGI scripts one request may pass through (a proxy's chain)
    pending: dict[Any, Callable[[], Any]] = field(default_factory=dict)
    pages: dict[Any, Any] = field(default_factory=dict)

    def run_pending(self) -> None:
        for key, run_it in list(self.pending.items()):
            self.pages[key] = run_it()
        self.pending.clear()


def wanted(path: str) -> bool:
    """Whether a request path (query included) is a CGI request."""
    return path.split("?", 1)[0].startswith(PREFIX)


def environment(url_path: str, query: str, filename: str) -> dict[str, str]:
    return {
        "REQUEST_METHOD": "GET",
        "QUERY_STRING": query,
        "SCRIPT_NAME": url_path,
        "SCRIPT_FILENAME": filename,
        "PATH_INFO": "",
        "SERVER_PROTOCOL": "HTTP/1.0",
        "GATEWAY_INTERFACE": "CGI/1.1",
        "SERVER_SOFTWARE": "busybox httpd/1.36.1",
        "REMOTE_ADDR": "127.0.0.1",
    }


def run(
    container,
    pod,
    model,
    filename: str,
    url_path: str,
    query: str,
    network: Callable[[list[str]], tuple[str, str, int]] | None = None,
    shebang: str = "",
) -> ExecResult | None:
    """The script `filename` (inside the container) run for this request; None when the
    container's script does not run for real (no sandbox to run it in). A `#!/bin/sh`
    script gets netsim's wget and nslookup answered by `network` from a bridge of its own
    (the node's loop is blocked on this request); another runs with no network."""
    live, runner = getattr(container, "live", None), getattr(container, "runner", None)
    if live is None or runner is None or not live.alive:
        return None
    argv = [filename]
    shell = network is not None and shebang.strip() in SHELL_SHEBANGS
    if shell:  # sourced as realshell.canonical runs `sh FILE`, behind the tools' prelude
        argv = netbridge.with_tools(["/bin/sh", "-c", SOURCE_FILE, filename])
    sandboxed = runner.run_of(container, pod, argv, model)
    sandboxed.env = sandboxed.env | environment(url_path, query, filename)
    sandboxed.workdir = posixpath.dirname(filename) or "/"
    sandboxed.net_dir = None
    done = threading.Event()
    if shell and network is not None:
        sandboxed.net_dir = Path(tempfile.mkdtemp(prefix="cgi-net-", dir=live.box.home))
        if os.geteuid() == 0:
            os.chown(sandboxed.net_dir, live.box.uid, live.box.uid)
        netbridge.Bridge(sandboxed.net_dir, network, lambda: not done.is_set())
    try:
        result = live.exec(sandboxed, CGI_SECONDS)
    finally:
        done.set()
        if sandboxed.net_dir is not None:
            shutil.rmtree(sandboxed.net_dir, ignore_errors=True)
    now = time.time()
    container.logs += [(now, line) for line in result.stderr.splitlines() if line]
    return result


def answer(result: ExecResult | None) -> tuple[int, str, str]:
    """(status, reason, body) of the response httpd sends for the script's run."""
    if result is None or result.code == 126 or result.stderr.startswith("bwrap: execvp"):
        return 404, "Not Found", ""
    out = result.stdout
    if out.startswith("HTTP/"):
        status_line, _, rest = out.partition("\n")
        parts = status_line.strip().split(" ", 2)
        code = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 200
        reason = parts[2] if len(parts) > 2 else ""
        out = rest
    else:
        code, reason = 200, "OK"
    for separator in ("\r\n\r\n", "\n\n"):
        _head, found, body = out.partition(separator)
        if found:
            return code, reason, body
    return code, reason, ""  # headers only (or none): the client sees no body
