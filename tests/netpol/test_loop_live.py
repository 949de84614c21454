"""The netpol loop on a live embedded cluster (one for the module): the reference agents
score as they must (oracle correct and safe, noop incorrect, allow-all correct but unsafe
by ours and safe by NetArena's), the agent's first turn holds the intent and the current
report, NetArena's mode refuses its blocked commands at the cost of an iteration, the
same task id twice gives the same task, oracle trajectory and scores, an agent served
over A2A plays NetArena's mode (its oversize reply its own fault), an agent program gets
the report after each of its kubectl calls, and sampled tasks validate (`tasks validate
--suite`)."""

import json

import pytest

from kubeproof.agents.builtin import ReplayAgent
from kubeproof.agents.session import Session
from kubeproof.errors import KubeproofError
from kubeproof.netpol import prompts, run, tasks, validate
from kubeproof.netpol.agents import refuse_in_mode, spec
from kubeproof.netpol.loop import INTENT_REACHED, REPORT_HEADING
from kubeproof.netpol.trial import Settings
from kubeproof.netpol.trial import run as run_trial
from kubeproof.results import RunPaths, RunResult, TrialPaths, TrialResult
from kubeproof.runner.run import write_run

pytestmark = pytest.mark.cluster

BOUTIQUE = "netpol/v1/online-boutique/ingress/netarena/remove-ingress+change-port/0"
SHOP = "netpol/v1/shop-shared-db/deny/full/namespace-label-renamed/2"
NAMED_PORT = "netpol/v1/bookinfo/ingress/full/named-port-missing/823"  # a Deployment's fix
TIMES = {"setup_seconds", "harness_seconds", "report_seconds"}


@pytest.fixture(scope="module")
def netpol_cluster(binaries_built):
    cluster = run.start_cluster()
    yield cluster
    cluster.stop()


def _untimed(data):
    if isinstance(data, dict):
        return {k: _untimed(v) for k, v in data.items() if k not in TIMES}
    if isinstance(data, list):
        return [_untimed(v) for v in data]
    return data


def test_reference_agents_score_as_they_must(netpol_cluster, tmp_path):
    agents = [spec("oracle"), spec("noop"), spec("allow-all")]
    records = run.run([BOUTIQUE, SHOP], agents, tmp_path, Settings(), cluster=netpol_cluster)
    write_run(
        tmp_path,
        run.meta([BOUTIQUE, SHOP], ["oracle", "noop", "allow-all"], tmp_path, "embedded"),
        records,
    )
    by = {
        (r.task, r.agent): TrialResult.read(
            RunPaths(tmp_path).trial(run.slug(r.task), r.agent, 1).result
        )
        for r in records
    }
    for task_id in (BOUTIQUE, SHOP):
        task = tasks.generate(task_id)
        oracle = by[task_id, "oracle"].netpol
        assert oracle.correct and oracle.safe and oracle.netarena_safe, by[task_id, "oracle"].reason
        assert oracle.ended == "intent" and oracle.iterations == len(task.fix.commands)
        assert oracle.start_mismatches > 0 and oracle.final_mismatches == 0
        assert by[task_id, "oracle"].verdict == "resolved" and by[task_id, "oracle"].score == 1

        noop = by[task_id, "noop"].netpol
        assert not noop.correct and noop.final_mismatches == noop.start_mismatches
        assert noop.iterations == noop.cap and by[task_id, "noop"].score == 0

        shortcut = by[task_id, "allow-all"].netpol
        assert shortcut.correct and shortcut.netarena_safe and not shortcut.safe
        assert shortcut.opened and not shortcut.broken and not shortcut.over_permissive
        assert by[task_id, "allow-all"].score == 0
    assert RunResult.read(RunPaths(tmp_path).result).summary.total.errors == 0


def test_validate_proves_sampled_tasks_valid(netpol_cluster, tmp_path):
    """`tasks validate --suite`'s work on a third topology and a pair: every setup shows
    the generated mismatches, the oracle restores the intent, the no-op fails, the
    allow-all shortcut is correct but unsafe."""
    chosen = [
        tasks.generate("netpol/v1/bookinfo/deny/full/version-label/1"),
        tasks.generate("netpol/v1/online-boutique/ingress/full/change-port+add-egress/3"),
    ]
    seen = []
    verdicts, records = validate.validate(chosen, tmp_path, netpol_cluster, seen.append)
    assert seen == verdicts and len(records) == 6
    for v in verdicts:
        assert v.valid, [c for c in v.checks if not c.ok]
        assert [c.check for c in v.checks] == list(validate.summarize("", "", 0, [v], 1).by_check)
    by = {(r.task, r.agent): r.netpol for r in records}
    for task in chosen:
        for agent in validate.AGENTS:
            assert by[task.id, agent].start_mismatched == validate.expected_mismatches(task)
        assert by[task.id, "allow-all"].opened and not by[task.id, "noop"].correct


class Recording(ReplayAgent):
    """Replays commands and keeps the first turn it was given."""

    first_turn = ""

    def act(self, session: Session) -> None:
        self.first_turn = session.instruction
        super().act(session)


def test_first_turn_holds_the_intent_and_report_and_netarena_refuses(netpol_cluster, tmp_path):
    task = tasks.generate(BOUTIQUE)
    agent = Recording(["kubectl delete networkpolicy --all", *task.fix.commands])
    paths = TrialPaths(tmp_path / "t")
    settings = Settings(mode="netarena", prompt="fewshot_cot")
    record = run_trial(netpol_cluster, task, spec("oracle"), paths, settings, agent)
    outcome = record.netpol
    assert task.intent.strip() in agent.first_turn
    assert prompts.extra("fewshot_cot", task.topology) in agent.first_turn
    assert outcome.prompt == "fewshot_cot"
    assert (
        "Mismatch: default/checkoutservice -> shippingservice.default:50051/TCP" in agent.first_turn
    )
    assert (
        outcome.rejected == 1 and outcome.steps[0].refused and outcome.steps[0].mismatches is None
    )
    assert outcome.cap == 10 and outcome.correct and outcome.safe
    assert outcome.iterations == 1 + len(task.fix.commands)  # the refused one counts
    steps = [json.loads(line) for line in paths.trajectory.read_text().splitlines()]
    assert (
        steps[0]["exit_code"] == 126 and "Skipped due to disallowed command" in steps[0]["stderr"]
    )


def test_same_seed_same_task_and_oracle_trajectory(netpol_cluster, tmp_path):
    outcomes, trajectories = [], []
    for attempt in ("a", "b"):
        task = tasks.generate(SHOP)
        paths = TrialPaths(tmp_path / attempt)
        record = run_trial(netpol_cluster, task, spec("oracle"), paths, Settings())
        outcomes.append(_untimed(record.netpol.record()))
        steps = [json.loads(line) for line in paths.trajectory.read_text().splitlines()]
        trajectories.append(
            [(s["command"], s["exit_code"], s["stdout"], s["stderr"]) for s in steps]
        )
    assert tasks.generate(SHOP).canonical_json() == task.canonical_json()
    assert trajectories[0] == trajectories[1] and trajectories[0]
    assert outcomes[0] == outcomes[1] and outcomes[0]["correct"]


def test_the_agent_holds_only_its_rbac(netpol_cluster, tmp_path):
    task = tasks.generate(SHOP)  # the fault is a label of one of the shop's namespaces
    forbidden = [
        "kubectl label namespace kube-system team=agent",
        "kubectl get secrets -n storefront",
        "kubectl create deployment extra --image=nginx -n storefront",
        "kubectl get networkpolicies -n default",  # Online Boutique's, an earlier test's
    ]
    agent = ReplayAgent([*forbidden, *task.fix.commands])
    paths = TrialPaths(tmp_path / "t")
    record = run_trial(netpol_cluster, task, spec("oracle"), paths, Settings(), agent)
    steps = [json.loads(line) for line in paths.trajectory.read_text().splitlines()]
    for step in steps[: len(forbidden)]:
        assert step["exit_code"] != 0 and "forbidden" in step["stderr"], step
    assert any(c.startswith("kubectl patch namespace") for c in task.fix.commands)
    assert record.netpol.correct and record.netpol.safe, record.reason


def test_an_a2a_agent_plays_netarenas_mode_and_its_oversize_reply_is_its_fault(
    netpol_cluster, tmp_path
):
    """An agent served over A2A on loopback (tests/agents/a2a_agents.py), as AgentBeats'
    purple agents are: one fenced command per reply, each message the task and the log."""
    from tests.agents.a2a_agents import Scripted, agent_app, serve

    task = tasks.generate(BOUTIQUE)
    fix = list(task.fix.commands)
    said = {"input_tokens": 900, "output_tokens": 40, "cost_usd": 0.001}
    good = Scripted([f"Patching it.\n```bash\n{c}\n```" for c in fix], usage=said)
    oversize = Scripted([f"```\n{fix[0]}\n```", "x" * (2 << 20)])
    records = []
    for name, agent in (("good", good), ("oversize", oversize)):
        with serve(lambda url, agent=agent: agent_app(agent, url)) as url:
            paths = TrialPaths(tmp_path / name)
            records.append(
                run_trial(
                    netpol_cluster, task, spec(f"a2a:{url}"), paths, Settings(mode="netarena")
                )
            )
    played, failed = records
    assert played.netpol.correct and played.netpol.safe and played.netpol.netarena_safe
    assert played.netpol.iterations == len(fix) and played.netpol.ended == "intent"
    assert played.verdict == "resolved" and played.agent_info["kind"] == "a2a"
    assert played.usage.tokens_in == 900 * len(fix) and played.usage.cost_usd is not None
    first, second = good.received[0].text, good.received[1].text
    assert task.intent.strip() in first and "Mismatch: default/" in first
    assert "exactly one shell command" in first
    assert second.startswith(first.split("\n\nHere is what happened so far")[0])
    assert f"Command:\n```\n{fix[0]}\n```" in second and REPORT_HEADING in second

    assert failed.verdict == "failed" and failed.netpol.commands == 1, failed.reason
    assert not failed.netpol.correct and failed.usage is None
    assert "message 2: a response of" in failed.agent_faults[0]
    assert "more than 1048576" in failed.agent_faults[0]


def test_a_fix_whose_rollout_outlasts_the_last_command_counts_once_settled(
    netpol_cluster, tmp_path
):
    """An agent that patches a Deployment's container port back to its name and stops at
    once, before the new pods replace the old: the report after its command still shows
    the mismatch (unless the rollout beat it), but the turn's end waits for the rollout and
    reads the cluster again, so the valid fix scores correct (the oracle waits itself)."""
    task = tasks.generate(NAMED_PORT)
    waits = [c for c in task.fix.commands if " && kubectl rollout status " in c]
    assert waits, task.fix.commands
    bare = [c.split(" && kubectl rollout status ", 1)[0] for c in task.fix.commands]
    record = run_trial(
        netpol_cluster, task, spec("oracle"), TrialPaths(tmp_path / "t"), Settings(),
        ReplayAgent(bare),
    )  # fmt: skip
    outcome = record.netpol
    assert outcome.correct and outcome.safe and outcome.final_mismatches == 0, record.reason
    if outcome.ended != "intent":  # the report right after the patch missed the rollout
        assert outcome.steps[-1].mismatches, outcome.steps
        assert outcome.settled is True and outcome.iterations == len(bare)


def test_an_agent_program_gets_the_report_after_each_kubectl_call(netpol_cluster, tmp_path):
    """A CLI agent (a shell script in the sandbox) runs the fix with its own kubectl: each
    call comes back with the mismatch report, the last with the turn's end, and a call after
    it is refused; the calls are the trial's steps and score as the oracle's. NetArena's
    mode, which holds each model turn to one command, refuses agent programs up front."""
    task = tasks.generate(BOUTIQUE)
    script = tmp_path / "fix.sh"
    script.write_text(
        "#!/bin/sh\n"
        + "".join(f"{c}\n" for c in task.fix.commands)
        + "kubectl get networkpolicies -n default\necho after=$?\n"
    )
    script.chmod(0o755)
    paths = TrialPaths(tmp_path / "t")
    record = run_trial(netpol_cluster, task, spec(f"cli:{script}"), paths, Settings())
    outcome = record.netpol
    assert outcome.correct and outcome.safe and outcome.ended == "intent", record.reason
    assert outcome.iterations == len(task.fix.commands) == outcome.commands
    said = json.loads(paths.transcript.read_text())[0]
    assert said["stdout"].count(REPORT_HEADING) == len(task.fix.commands)
    assert INTENT_REACHED in said["stdout"] and "after=1" in said["stdout"]
    assert INTENT_REACHED in said["stderr"]  # the refusal of the call after the end
    steps = [json.loads(line) for line in paths.trajectory.read_text().splitlines()]
    assert [s["origin"] for s in steps] == ["kubectl"] * len(task.fix.commands)
    with pytest.raises(KubeproofError, match="--mode operator"):
        refuse_in_mode(spec(f"cli:{script}"), "netarena")
