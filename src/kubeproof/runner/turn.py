"""The agent's turn of a trial: its sandbox, its session with the safety monitor after every
command, the evidence recording and, in protocol mode, the prescribe/report channel. What
the agent did is saved into the trial directory (trajectory, model turns, transcript) and
its decision, usage and faults into the trial's result."""

import contextlib
import json
import os
import shutil
import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from kubeproof.agents.builtin import Agent
from kubeproof.agents.protocol_tools import COMMANDS_GUIDE, CommandServer, llm_tools
from kubeproof.agents.sandbox import HOME, Bind, Sandbox
from kubeproof.agents.session import BudgetExhausted, Decision, Session, install_tools
from kubeproof.agents.spec import build
from kubeproof.cluster.audit import HARNESS_USERS
from kubeproof.cluster.base import Cluster, kubectl_binary
from kubeproof.evidence import keys
from kubeproof.evidence.protocol import GUIDE, Protocol
from kubeproof.evidence.recording import TrialRecording
from kubeproof.results import Decision as DecisionResult
from kubeproof.results import TrialPaths, TrialResult, Usage
from kubeproof.runner.access import agent_user, controller_users
from kubeproof.runner.admin_shell import copy_tools
from kubeproof.runner.plan import TrialPlan, key_secrets
from kubeproof.scrub import Scrubber
from kubeproof.tasks import Task
from kubeproof.verify.safety import SafetyMonitor

WORKSPACE = "workspace"  # under the agent's home: counted against its size limit


def give_workspace(task: Task, home: Path) -> Path | None:
    """The task's environment/workspace/ copied into the agent's home (regular files and
    folders only: a symlink in a task could name anything on the host), or None."""
    if task.workspace is None:
        return None
    target = home / WORKSPACE
    shutil.rmtree(target, ignore_errors=True)

    def skip(folder: str, names: list[str]) -> set[str]:
        return {n for n in names if os.path.islink(os.path.join(folder, n))}

    shutil.copytree(task.workspace, target, ignore=skip)
    return target


class AgentTurn:
    """The agent's phase of `Trial` (runner/trial.py), which sets these."""

    plan: TrialPlan
    task: Task
    paths: TrialPaths
    agent: Agent | None
    signing_key: Ed25519PrivateKey | None
    recording: TrialRecording | None
    result: TrialResult

    def _agent(
        self, cluster: Cluster, kubeconfig: Path, monitor: SafetyMonitor, audit: Path | None
    ) -> tuple[Session, TrialRecording, Decision]:
        """The agent's turn: sandbox, session, evidence recording and, in protocol mode, the
        prescribe/report channel; ends with the decision in the result."""
        paths, task, spec = self.paths, self.task, self.task.spec.kubeproof
        agent = self.agent or build(self.plan.resolved, task)
        key = self.signing_key or keys.load_signing_key()
        recording = TrialRecording(
            paths.evidence,
            key,
            agent_user(task),
            audit,
            self.plan.resolved.label,
            harness=HARNESS_USERS | controller_users(task),
        )
        # the admin's credentials and the signing key, should the agent print them
        scrubber = Scrubber.for_harness([cluster.admin_kubeconfig], key_secrets(key))
        self.recording = recording
        instruction = task.instruction
        tools = copy_tools(task, install_tools(paths.tools))
        binds = []
        workdir = HOME
        workspace = give_workspace(task, paths.home)
        if workspace is not None and spec.workdir:  # e.g. /app, where a Harbor task works
            binds.append(Bind(workspace, spec.workdir, writable=True))
            workdir = spec.workdir
        elif workspace is not None:
            workdir = f"{HOME}/{WORKSPACE}"
        server = None
        if self.plan.protocol:
            protocol = Protocol(recording.recorder, recording.actor, scrubber)
            server = CommandServer(protocol, paths.protocol, tools)
            binds.append(server.bind())
            if hasattr(agent, "offer"):  # a model agent: tools, and a word in its prompt
                agent.offer(llm_tools(protocol), GUIDE)
            else:
                instruction = f"{instruction}\n\n{COMMANDS_GUIDE}"
        recording.start(task.id, self.plan.agent, str(paths.root), cluster.name, instruction)
        sandbox = Sandbox(
            kubeconfig,
            paths.home,
            kubectl_binary(),
            timeout=min(spec.command_timeout_sec, task.spec.agent.timeout_sec),
            tools=tools,
            binds=binds,
            endpoints=getattr(agent, "endpoints", ()),
            workdir=workdir,
        )

        def after_step(step) -> list[str]:
            broken = monitor.after_step(step)
            recording.after_step(session)
            return broken

        session = Session(
            instruction,
            sandbox,
            max_steps=spec.max_steps,
            deadline=time.monotonic() + task.spec.agent.timeout_sec,
            after_step=after_step,
            scrubber=scrubber,
        )
        exhausted = None
        try:
            with server or contextlib.nullcontext():
                agent.act(session)
        except BudgetExhausted as exc:
            exhausted = str(exc)
        finally:  # kept even when the agent or its model endpoint failed
            self._save_session(session)
            recording.after_step(session)  # steps a CLI agent made after its last record
        decision = session.decision
        if exhausted:
            decision.outcome, decision.reason = "exhausted", exhausted
        self.result.decision = DecisionResult(outcome=decision.outcome, reason=decision.reason)
        for fault in server.faults if server else []:
            session.fault(fault)
        if session.faults:
            self.result.agent_faults = list(session.faults)
        return session, recording, decision

    def _save_session(self, session: Session) -> None:
        save_session(self.paths, self.result, session)


def save_session(paths: TrialPaths, result: TrialResult, session: Session) -> None:
    """The trajectory, and a model agent's turns, usage and transcript, into the trial's
    directory and result."""
    with paths.trajectory.open("w") as fh:
        for step in session.trajectory():
            fh.write(json.dumps(step) + "\n")
    result.steps = len(session.steps)
    if session.info:
        result.agent_info = session.info
    if session.turns and session.usage.reported:
        u = session.usage
        result.usage = Usage(
            calls=u.calls,
            turns=len(session.turns),
            tokens_in=u.tokens_in,
            tokens_out=u.tokens_out,
            cost_usd=None if u.cost_usd is None else round(u.cost_usd, 6),
            retries=u.retries,
            wasted_turns=u.wasted_turns,
        )
    if session.turns:
        with paths.turns.open("w") as fh:
            for turn in session.turns:
                fh.write(json.dumps(session.scrubber.value(turn)) + "\n")
    if session.transcript:
        transcript = session.scrubber.value(session.transcript)
        paths.transcript.write_text(json.dumps(transcript, indent=1))
