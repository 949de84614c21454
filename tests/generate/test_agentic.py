"""The agentic agent of the generate track end to end (`kubeproof generate run --agentic`) on
the shared embedded cluster: scripted OpenAI-compatible models look at a task's fixtures as
the evaluation identity, try a write (run only as a server-side dry run), a shell pipeline
(refused) and their manifest (a server-side dry run), then submit; one through native tool
calls, one through the text protocol with a wrong answer. Their answers are judged like
single-shot ones; their turns, tokens and what each tool said are recorded; nothing they did
while exploring is left on the cluster."""

import json

import pytest

from kubeproof.generate.model import Tier
from kubeproof.generate.task import generate
from tests.agents.fake_llm import FakeLLM
from tests.conftest import run_cli

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(600)]

TASK = generate("configmap", Tier.easy, 3)  # namespace support-staging is its fixture
NS = "support-staging"
WRONG = TASK.reference.replace("platform-auth-config", "platform-auth-cfg")


def call(name: str, **args) -> dict:
    return {"content": "", "tool_calls": [(name, json.dumps(args))], "usage": (300, 40)}


TOOLS_SCRIPT = [
    call("kubectl", command=f"kubectl get namespace {NS} -o name"),
    call("kubectl", command=f"kubectl create configmap sneaky -n {NS} --from-literal=a=b"),
    call("kubectl", command="kubectl get configmaps -A | grep auth"),
    call("dry_run", manifest=TASK.reference),
    call("submit", answer=TASK.reference),
]
TEXT_SCRIPT = [
    {"content": f"```sh\nkubectl auth can-i create configmaps -n {NS}\n```", "usage": (200, 20)},
    {"content": "Let me think about it.", "usage": (220, 10)},
    {"content": f"SUBMIT\n```yaml\n{WRONG}```", "usage": (240, 60)},
]


def trial(out, label: str) -> dict:
    return json.loads((out / "trials" / TASK.id / label / "1" / "trial.json").read_text())


def observations(request: dict) -> str:
    return "\n".join(
        m.get("content") or "" for m in request["body"]["messages"] if m["role"] in ("tool", "user")
    )


@pytest.fixture(scope="module")
def agentic_run(tmp_path_factory, cluster):
    out = tmp_path_factory.mktemp("generate-agentic") / "run"
    with FakeLLM(TOOLS_SCRIPT) as tools_model, FakeLLM(TEXT_SCRIPT) as text_model:
        done = run_cli(
            "generate", "run", "--id", TASK.id, "--agentic",
            "--agent", f"llm:{tools_model.url}/v1#explorer?retry_base_sec=0.05",
            "--agent", f"llm:{text_model.url}/v1#texter?protocol=text&retry_base_sec=0.05",
            "--agent", "noop",
            "--cluster", f"kubeconfig:{cluster.admin_kubeconfig}",
            "--out", str(out), "-o", "json",
            timeout=500,
        )  # fmt: skip
        asked = tools_model.requests, text_model.requests
    assert done.returncode == 0, done.stderr[-3000:]
    return out, json.loads(done.stdout), asked


def test_the_explorer_reads_dry_runs_and_its_answer_is_judged(agentic_run):
    out, result, (asked, _) = agentic_run
    record = trial(out, "llm-explorer")
    assert (record["verdict"], record["score"]) == ("resolved", 1), record["reason"]
    assert record["agent_info"]["mode"] == "agentic"
    assert record["usage"]["turns"] == 5 and record["usage"]["tokens_in"] == 1500
    assert result["generate"]["mode"] == "agentic"
    # it was offered the three tools, and every tool result came back before the next ask
    assert [t["function"]["name"] for t in asked[0]["body"]["tools"]] == [
        "kubectl",
        "dry_run",
        "submit",
    ]
    said = observations(asked[-1])
    assert f"namespace/{NS}" in said
    assert "(run with --dry-run=server)" in said
    assert "configmap/sneaky created (server dry run)" in said
    assert "refused (shell_syntax)" in said
    assert "configmap/platform-auth-config serverside-applied (server dry run)" in said
    turns = (out / "trials" / TASK.id / "llm-explorer" / "1" / "turns.jsonl").read_text()
    assert len(turns.splitlines()) == 5


def test_the_text_protocol_answer_is_judged_and_waste_is_counted(agentic_run):
    out, _, (_, asked) = agentic_run
    record = trial(out, "llm-texter")
    g = record["generate"]
    assert (record["score"], g["failed_at"], g["ev"], g["ov"]) == (0, "S3", 1, 0)
    assert record["usage"]["turns"] == 3 and record["usage"]["wasted_turns"] == 1
    said = observations(asked[-1])
    assert "yes" in said and "no action found" in said
    assert "DRY-RUN" in asked[0]["body"]["messages"][0]["content"]  # the protocol was told


def test_exploring_left_nothing_on_the_cluster(agentic_run, cluster):
    from lightkube.resources.core_v1 import ConfigMap

    out, _, _ = agentic_run
    names = {c.metadata.name for c in cluster.client().list(ConfigMap, namespace="*")}
    assert "sneaky" not in names and "platform-auth-config" not in names
    for label in ("llm-explorer", "llm-texter", "noop"):
        assert trial(out, label)["safe"] is True  # nothing the judge did not make was changed
