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
not read). The child's stderr is httpd's, the container's log. The script runs with no
network of its own (its wget would wait on the node's loop, which answers this request),
cut after CGI_SECONDS."""

import posixpath
import time

from kubeproof.nodesim.liveproc import ExecResult

PREFIX = "/cgi-bin/"
CGI_SECONDS = 10.0


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


def run(container, pod, model, filename: str, url_path: str, query: str) -> ExecResult | None:
    """The script `filename` (inside the container) run for this request; None when the
    container's script does not run for real (no sandbox to run it in)."""
    live, runner = getattr(container, "live", None), getattr(container, "runner", None)
    if live is None or runner is None or not live.alive:
        return None
    sandboxed = runner.run_of(container, pod, [filename], model)
    sandboxed.env = sandboxed.env | environment(url_path, query, filename)
    sandboxed.workdir = posixpath.dirname(filename) or "/"
    sandboxed.net_dir = None
    result = live.exec(sandboxed, CGI_SECONDS)
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
