"""The CLI agent in a real sandbox (no cluster): how it gets the instruction, what its kubectl
wrapper records, and its budgets."""

import socket
import threading
import time

import pytest

from kubeproof.agents.cli_agent import CLIAgent, CLIConfig
from kubeproof.agents.sandbox import Sandbox
from kubeproof.agents.session import BudgetExhausted, Session, install_tools
from kubeproof.cluster.base import kubectl_binary

INSTRUCTION = "Fix the 'reporter' dashboard; it's blank."


@pytest.fixture
def session_for(tmp_path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\n")
    tools = install_tools(tmp_path / "tools")

    def make(max_steps: int = 10, seconds: float = 60) -> Session:
        box = Sandbox(kubeconfig, tmp_path / "home", kubectl_binary(), timeout=10, tools=tools)
        return Session(INSTRUCTION, box, max_steps=max_steps, deadline=time.monotonic() + seconds)

    return make


def test_instruction_as_argument_stdin_and_file(session_for, tmp_path):
    script = tmp_path / "agent.sh"
    script.write_text(
        "#!/bin/sh\n"
        'echo "arg: $1"\n'
        'echo "stdin: $(cat)"\n'
        'echo "file: $(cat "$KUBEPROOF_INSTRUCTION_FILE")"\n'
    )
    script.chmod(0o755)
    s = session_for()
    CLIAgent(CLIConfig(command=f"{script} {{instruction}}")).act(s)
    out = s.steps[-1].stdout
    assert f"arg: {INSTRUCTION}" in out and f"file: {INSTRUCTION}" in out
    assert "stdin: \n" in out  # given as an argument, not on stdin
    s = session_for()
    CLIAgent(CLIConfig(command=str(script))).act(s)
    assert f"stdin: {INSTRUCTION}" in s.steps[-1].stdout
    # a program that exits without deciding has submitted
    assert s.decision.outcome == "submitted" and "exited with code 0" in s.decision.reason


def test_kubectl_calls_are_logged_with_arguments_exit_code_and_output(session_for):
    s = session_for()
    CLIAgent(
        CLIConfig(command="kubectl version --client -o json; kubectl get 'pods x'; exit 3")
    ).act(s)
    calls = [st for st in s.steps if st.origin == "kubectl"]
    assert [c.command for c in calls] == [
        "kubectl version --client -o json",
        "kubectl get 'pods x'",
    ]
    assert calls[0].exit_code == 0 and '"clientVersion"' in calls[0].stdout
    assert calls[1].exit_code != 0 and calls[1].stderr
    assert calls[0].started <= calls[1].started
    whole = s.steps[-1]
    assert whole.origin == "cli" and whole.exit_code == 3
    assert s.decision.reason == "the agent program exited with code 3"


def test_the_wrapper_enforces_the_step_budget(session_for):
    s = session_for(max_steps=2)
    with pytest.raises(BudgetExhausted, match="step budget of 2"):
        CLIAgent(CLIConfig(command="for i in 1 2 3 4; do kubectl version --client; done")).act(s)
    assert len([st for st in s.steps if st.origin == "kubectl"]) == 2
    assert "step budget of 2 commands spent" in s.steps[-1].stderr


def test_the_time_budget_kills_the_program(session_for):
    s = session_for(seconds=2)
    with pytest.raises(BudgetExhausted, match="killed after"):
        CLIAgent(CLIConfig(command="sleep 30")).act(s)
    assert s.steps[-1].timed_out and s.steps[-1].seconds < 10


def test_env_passes_named_variables_only(session_for, monkeypatch):
    monkeypatch.setenv("AGENT_KEY", "k-123")
    monkeypatch.setenv("OTHER_SECRET", "nope")
    s = session_for()
    CLIAgent(
        CLIConfig(command="echo ${AGENT_KEY:-none} ${OTHER_SECRET:-none}", env=["AGENT_KEY"])
    ).act(s)
    assert s.steps[-1].stdout == "k-123 none\n"


def test_each_call_is_recorded_and_looked_at_before_the_program_goes_on(session_for):
    s = session_for()
    looked: list[tuple[int, float]] = []

    def monitor(step):
        time.sleep(0.3)  # a slow look at the cluster still comes before the next call
        looked.append((step.index, time.time()))
        return []

    s.after_step = monitor
    CLIAgent(CLIConfig(command="kubectl version --client; kubectl version --client")).act(s)
    first, second, whole = s.steps
    assert (first.origin, second.origin, whole.origin) == ("kubectl", "kubectl", "cli")
    assert [i for i, _ in looked] == [1, 2, 3]
    assert looked[0][1] <= second.started  # the monitor saw step 1 before call 2 began


def test_a_humans_kubectl_calls_are_recorded(session_for, tmp_path, capsys):
    from kubeproof.agents.builtin import HumanAgent

    typed = tmp_path / "typed"
    typed.write_text("kubectl version --client -o json\nsubmit\nexit\n")
    s = session_for()
    with typed.open() as keyboard:
        HumanAgent(stdin=keyboard).act(s)
    assert INSTRUCTION in capsys.readouterr().out
    [call] = s.steps
    assert call.origin == "kubectl" and call.command == "kubectl version --client -o json"
    assert call.exit_code == 0 and '"clientVersion"' in call.stdout
    assert s.decision.outcome == "submitted"


def test_a_call_cut_short_by_the_time_budget_is_still_recorded(session_for, tmp_path):
    import socket

    silent = socket.socket()  # accepts connections and never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    port = silent.getsockname()[1]
    # the sandbox reaches only the server its kubeconfig names, through the harness
    (tmp_path / "kubeconfig").write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        f"clusters: [{{name: c, cluster: {{server: 'http://127.0.0.1:{port}'}}}}]\n"
        "contexts: [{name: c, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {}}]\n"
    )
    s = session_for(seconds=3)
    try:
        with pytest.raises(BudgetExhausted, match="killed after"):
            CLIAgent(CLIConfig(command="kubectl get pods")).act(s)
    finally:
        silent.close()
    call, whole = s.steps
    assert call.origin == "kubectl" and call.exit_code == -1
    assert call.command == "kubectl get pods"
    assert whole.origin == "cli" and whole.timed_out


@pytest.fixture
def http_server():
    """A plain HTTP server on the host's loopback answering `model here`."""
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(200)
            self.send_header("content-length", "10")
            self.end_headers()
            self.wfile.write(b"model here")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


FETCH = (
    'python3 -c "import sys, urllib.request; '
    'print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())" '
)


def test_only_declared_endpoints_are_reachable(tmp_path, http_server):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text("apiVersion: v1\nkind: Config\n")
    other = socket.socket()  # a second service on the host, not declared
    other.bind(("127.0.0.1", 0))
    other.listen(1)
    try:
        plain = Sandbox(kubeconfig, tmp_path / "a", kubectl_binary(), timeout=10)
        closed = plain.run(FETCH + f"http://127.0.0.1:{http_server}/")
        assert closed.exit_code != 0 and "model here" not in closed.stdout
        declared = [f"http://127.0.0.1:{http_server}/v1", f"http://localhost:{http_server}"]
        box = Sandbox(kubeconfig, tmp_path / "b", kubectl_binary(), timeout=10, endpoints=declared)
        for url in (f"http://127.0.0.1:{http_server}/x", f"http://localhost:{http_server}/x"):
            reached = box.run(FETCH + url)
            assert (reached.exit_code, reached.stdout) == (0, "model here\n"), reached.stderr
        # a hostname gets a loopback address of its own, named first in the sandbox's hosts
        hosts = box.run("getent hosts localhost")
        assert hosts.stdout.split()[0] == "127.0.0.2"
        refused = box.run(FETCH + f"http://127.0.0.1:{other.getsockname()[1]}/")
        assert refused.exit_code != 0 and "Connection refused" in refused.stderr
    finally:
        other.close()


def test_a_malformed_endpoint_is_refused_in_the_agent_config():
    with pytest.raises(ValueError, match="not an http"):
        CLIConfig(command="x", endpoints=["127.0.0.1:8080"])
    with pytest.raises(ValueError):
        CLIConfig(command="x", endpoints=["http://127.0.0.1:99999"])
