"""The files of a trial directory and of a run directory (as cluster/layout.py names a
cluster's). Everything that writes or reads them goes through these names."""

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class TrialPaths:
    root: Path

    @property
    def result(self) -> Path:
        """The trial's result (results/trial.py)."""
        return self.root / "trial.json"

    @property
    def trajectory(self) -> Path:
        """Every command the agent ran, with its output, one JSON object a line."""
        return self.root / "trajectory.jsonl"

    @property
    def turns(self) -> Path:
        """Model agents: every model turn, one JSON object a line."""
        return self.root / "turns.jsonl"

    @property
    def transcript(self) -> Path:
        """Model agents: the conversation."""
        return self.root / "transcript.json"

    @property
    def answer(self) -> Path:
        """Generate track: the agent's raw answer, as the stages judged it."""
        return self.root / "answer.txt"

    @property
    def judge(self) -> Path:
        """Generate track: what the LLM judge (S5) was sent and its raw reply."""
        return self.root / "judge.json"

    @property
    def verifier_log(self) -> Path:
        """Every broken-state, check, contract and safety result with its reason."""
        return self.root / "verifier.log"

    @property
    def error_log(self) -> Path:
        """The traceback of a trial that ended in `error` (or the agent's refused fault)."""
        return self.root / "error.log"

    @property
    def evidence(self) -> Path:
        """The trial's signed evidence chain."""
        return self.root / "evidence"

    @property
    def private(self) -> Path:
        """Harness-only files the sandbox never sees."""
        return self.root / "private"

    @property
    def agent_kubeconfig(self) -> Path:
        return self.private / "agent.kubeconfig"

    @property
    def baseline(self) -> Path:
        """The snapshot of protected objects the verifier compares against."""
        return self.private / "baseline.json"

    @property
    def setup_log(self) -> Path:
        """What a failed environment/setup.sh printed, whole (its error has the tail)."""
        return self.root / "setup.log"

    @property
    def home(self) -> Path:
        """The agent's scratch directory (its home in the sandbox)."""
        return self.root / "home"

    @property
    def tools(self) -> Path:
        """The sandbox's `submit` and `decline` commands."""
        return self.root / "tools"

    @property
    def protocol(self) -> Path:
        """Evidence protocol mode: the prescribe/report request channel."""
        return self.root / "protocol"

    @property
    def cli_log(self) -> Path:
        """CLI agents: the log of the kubectl calls they made (agents/cli_agent.py)."""
        return self.root / "cli-log"

    @property
    def stale(self) -> tuple[Path, ...]:
        """What an earlier attempt in this directory leaves that must not carry over."""
        return (self.home, self.private, self.tools, self.evidence, self.protocol, self.cli_log)


@dataclass(frozen=True)
class RunPaths:
    root: Path

    @property
    def result(self) -> Path:
        """The run's result (results/run.py)."""
        return self.root / "run.json"

    @property
    def plan(self) -> Path:
        """What the run was asked to do, written when it starts (`runs resume` reads it)."""
        return self.root / "plan.json"

    @property
    def evidence(self) -> Path:
        """The run's chain, signing every trial's line and the summary."""
        return self.root / "evidence"

    @property
    def trials(self) -> Path:
        return self.root / "trials"

    def trial(self, slug: str, label: str, repeat: int) -> TrialPaths:
        return TrialPaths(self.trials / slug / label / str(repeat))
