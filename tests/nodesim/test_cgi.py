"""busybox httpd's CGI for a script that runs for real (nodesim/cgi.py): a GET of
/cgi-bin/NAME?QUERY from the container's httpd document root runs the script the container
wrote, with the query in QUERY_STRING and the container's environment; its stderr is the
container's log — no cluster, the pod driven as in test_realshell_container.py."""

import time

import pytest

from kubeproof.fidelity.golden import StaticWorld, pod_object
from kubeproof.nodesim import cgi, pages, runbox
from kubeproof.nodesim.liveproc import ExecResult
from kubeproof.nodesim.pod import PodRuntime
from kubeproof.nodesim.realshell import Runner
from kubeproof.nodesim.timing import REAL
from tests.nodesim.test_realshell_container import CATALOG

SCRIPT = r"""
mkdir -p /www/cgi-bin
cat > /www/cgi-bin/write <<'END'
#!/bin/sh
echo "Content-Type: text/plain"
echo
id="$(printf '%s' "$QUERY_STRING" | sed -n 's/^.*request_id=\([^&]*\).*$/\1/p')"
echo "write for ${id} as ${DB_USER} in $(pwd)" >&2
echo "write-ok:${id}"
END
cat > /www/cgi-bin/proxy <<'END'
#!/bin/sh
echo "Content-Type: text/plain"
echo
wget -qO- "http://queue.shop.svc.cluster.local/cgi-bin/enqueue?$QUERY_STRING"
END
chmod +x /www/cgi-bin/write /www/cgi-bin/proxy
echo ok > /www/ready
exec httpd -f -p 8080 -h /www
"""


@pytest.mark.skipif(not runbox.available(), reason="needs busybox-static and bubblewrap")
def test_a_cgi_script_answers_with_the_query_and_logs_to_the_container(tmp_path):
    spec = {
        "containers": [
            {
                "name": "api",
                "image": "busybox:1.36.1",
                "env": [{"name": "DB_USER", "value": "checkout"}],
                "command": ["sh", "-c", SCRIPT],
            }
        ]
    }
    world = StaticWorld()
    world.runner = Runner(tmp_path / "containers")
    runtime = PodRuntime(pod_object(spec), "10.244.1.2", set(), REAL)
    container = runtime.app[0]
    answers: dict = {}
    asked: list[list[str]] = []

    def network(argv: list[str]) -> tuple[str, str, int]:  # netsim's answer, from a thread
        asked.append(argv)
        return "queued o=9\n", "", 0

    try:
        end = time.time() + 30
        while time.time() < end and not answers:
            runtime.advance(time.time(), world, CATALOG)
            model = container.model
            ready = container.live is not None and model is not None
            if ready and pages.served(container, model, CATALOG.servers, 8080, "/ready"):
                for path in ("/cgi-bin/write?request_id=r-7&x=1", "/cgi-bin/", "/cgi-bin/no"):
                    answers[path] = pages.served(
                        container, model, CATALOG.servers, 8080, path, runtime
                    )
                answers["proxy"] = pages.served(
                    container, model, CATALOG.servers, 8080, "/cgi-bin/proxy?o=9", runtime, network
                )
                # without the pod (a probe's view before this change): the file, not its run
                answers["static"] = pages.served(container, model, CATALOG.servers, 8080, "/ready")
            time.sleep(0.2)
        logs = [line for _, line in container.logs]
    finally:
        runtime.kill(time.time(), CATALOG)
        if container.live is not None:
            container.live.kill()
            container.live.wait(5)
    write = answers["/cgi-bin/write?request_id=r-7&x=1"]
    assert (write.status, write.body) == (200, "write-ok:r-7\n")
    assert "write for r-7 as checkout in /www/cgi-bin" in logs
    assert answers["/cgi-bin/"].status == 403
    assert answers["/cgi-bin/no"].status == 404
    assert (answers["static"].status, answers["static"].body) == (200, "ok\n")
    # a CGI script's wget is netsim's (a bridge of its own: the node's loop is busy)
    assert (answers["proxy"].status, answers["proxy"].body) == (200, "queued o=9\n")
    assert asked == [["wget", "-qO-", "http://queue.shop.svc.cluster.local/cgi-bin/enqueue?o=9"]]


def test_httpds_answer_to_what_the_script_printed():
    def result(out: str, code: int = 0) -> ExecResult:
        return ExecResult(out, "", code, False)

    assert cgi.answer(result("Content-Type: text/plain\n\nhello\n")) == (200, "OK", "hello\n")
    assert cgi.answer(result("HTTP/1.1 503 Busy\r\nX: y\r\n\r\nlater")) == (503, "Busy", "later")
    assert cgi.answer(result("no blank line")) == (200, "OK", "")
    assert cgi.answer(result("", 126)) == (404, "Not Found", "")
    assert cgi.answer(None) == (404, "Not Found", "")
