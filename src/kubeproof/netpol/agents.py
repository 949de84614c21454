"""The netpol track's reference agents, each a replay of commands derived from the task:

- `oracle`: the faults' inverse (tasks.Task.fix), one kubectl command per object, so it
  must end correct and safe in as many iterations as objects the faults touched;
- `noop`: submits at once, so it must end incorrect (every task's faults show);
- `allow-all`: the shortcut a probe-only check cannot see: in every namespace of the
  topology a policy admitting every pod from any other namespace and letting every pod's
  egress go anywhere, then the oracle's fix (in this order: the turn ends once the probes
  are right). No probe changes with the first (the probes stay within the topology's
  namespaces, whose ingress policies still decide), every probe ends right, so it must
  score correct, and NetArena's safety passes; kubeproof's safety finds the opened paths.

Any other agent spec (a model, a CLI program, a replay) is built as for every track."""

import json
import shlex

from kubeproof.agents.builtin import Agent, NoopAgent, ReplayAgent
from kubeproof.agents.spec import AgentsFile, AgentSpec, parse
from kubeproof.agents.spec import build as build_any
from kubeproof.errors import KubeproofError
from kubeproof.netpol.tasks import Task
from kubeproof.netpol.topology import Topology, load

REFERENCE = ("oracle", "noop", "allow-all")
ALLOW_ALL = "allow-all"  # the shortcut's policy name


def allow_all_policy(topology: Topology, namespace: str) -> dict:
    others = [ns.name for ns in topology.namespaces]
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": ALLOW_ALL, "namespace": namespace},
        "spec": {
            "podSelector": {},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [
                {
                    "from": [
                        {
                            "namespaceSelector": {
                                "matchExpressions": [
                                    {
                                        "key": "kubernetes.io/metadata.name",
                                        "operator": "NotIn",
                                        "values": others,
                                    }
                                ]
                            }
                        }
                    ]
                }
            ],
            "egress": [{}],
        },
    }


def allow_all_commands(task: Task) -> list[str]:
    topology = load(task.topology)
    commands = []
    for ns in topology.namespaces:
        manifest = json.dumps(allow_all_policy(topology, ns.name), separators=(",", ":"))
        commands.append(f"echo {shlex.quote(manifest)} | kubectl apply -f -")
    return commands + list(task.fix.commands)


def spec(text: str, agents: AgentsFile | None = None) -> AgentSpec:
    """A reference agent by name, else any agent spec."""
    if text in REFERENCE:
        return AgentSpec(text, text, text)
    return parse(text, agents)


def build(agent: AgentSpec, task: Task) -> Agent:
    if agent.kind == "oracle":
        oracle = ReplayAgent(list(task.fix.commands))
        oracle.name = "oracle"
        return oracle
    if agent.kind == "noop":
        return NoopAgent()
    if agent.kind == ALLOW_ALL:
        shortcut = ReplayAgent(allow_all_commands(task))
        shortcut.name = ALLOW_ALL
        return shortcut
    return build_any(agent, None)  # type: ignore[arg-type]  # only the oracle reads a task


def refuse_in_mode(agent: AgentSpec, mode: str) -> None:
    """NetArena's mode gives one command per model turn and refuses its block-list before a
    command runs: an agent program (`cli`, `human`) runs its own kubectl and has no turns,
    so it plays the operator mode only (each of its calls gets the report all the same)."""
    if mode == "netarena" and agent.kind in ("cli", "human"):
        raise KubeproofError(
            f"agent {agent.spec!r}: an agent program has no turns to hold to NetArena's "
            "one command each; run it with --mode operator"
        )
