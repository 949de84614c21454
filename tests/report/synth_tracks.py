"""Run directories of the generate and netpol tracks with known outcomes, laid out as
`kubeproof generate run` and `kubeproof netpol run` write them (results/paths.py), for the
track sections' golden tests (tests/report/test_tracks.py) and the browser test. Every
number the tests expect follows from the tables below."""

from pathlib import Path

from kubeproof.results import RunPaths, RunResult, TrialResult
from kubeproof.results.generate import (
    GenerateOutcome,
    JudgeFlag,
    JudgeOutcome,
    StageOutcome,
    Weights,
    composite,
)
from kubeproof.results.netpol import NetpolOutcome
from tests.report.synth import ATTACK

GEN = {  # task -> (resource type, tier)
    "generate-v2-role-easy-create-1": ("role", "easy"),
    "generate-v2-role-advanced-create-2": ("role", "advanced"),
    "generate-v2-configmap-easy-create-3": ("configmap", "easy"),
    "generate-v2-serviceaccount-advanced-create-4": ("serviceaccount", "advanced"),
    "generate-v2-serviceaccount-easy-create-5": ("serviceaccount", "easy"),
    "generate-v2-secret-intermediate-create-6": ("secret", "intermediate"),
}
# (agent, task) -> the answer's fate: "pass"; ("S0", reason); ("S3",); ("S4", under, over);
# "error" (the model failed: no outcome). Tu: the judge's score where one ran.
PASS, ERROR = "pass", "error"
ANSWERS = {
    "oracle": dict.fromkeys(GEN, PASS),
    "noop": dict.fromkeys(GEN, ("S0", "empty: no text")),
    "model:x": {
        "generate-v2-role-easy-create-1": ("S4", 1, 0),  # a verb dropped
        "generate-v2-role-advanced-create-2": ("S4", 0, 2),  # a wildcard
        "generate-v2-configmap-easy-create-3": PASS,
        "generate-v2-serviceaccount-advanced-create-4": PASS,
        "generate-v2-serviceaccount-easy-create-5": ("S0", "invalid_yaml: mapping values"),
        "generate-v2-secret-intermediate-create-6": ERROR,
    },
}
TU = {("model:x", "generate-v2-configmap-easy-create-3"): 0.8}
# what the LLM judge (S5) said, where it was asked: scored with two flags, and a failure
JUDGE = {
    ("model:x", "generate-v2-configmap-easy-create-3"): JudgeOutcome(
        status="judged", judge="local/judge", quality=0.8,
        flags=[JudgeFlag(code="missing_label", detail="no app label"),
               JudgeFlag(code="style", detail=f"keys unsorted {ATTACK}")],
    ),
    ("model:x", "generate-v2-serviceaccount-advanced-create-4"): JudgeOutcome(
        status="failed", judge="local/judge", reason="the reply was not the strict JSON asked"
    ),
}  # fmt: skip
# a second wording of the same tasks for model:x (another run): what changes
TERSE = {
    "generate-v2-configmap-easy-create-3": ("S3",),
    "generate-v2-role-easy-create-1": PASS,
}
STAGES = ("S0", "S1", "S2", "S3", "S4")


def outcome(fate, prompt: str, tu: float | None = None) -> GenerateOutcome:
    """The GenerateOutcome of an answer's fate, shaped as generate/trials.py writes it."""
    failed = None if fate == PASS else fate[0]
    upto = STAGES if failed is None else STAGES[: STAGES.index(failed) + 1]
    under, over = (fate[1], fate[2]) if failed == "S4" else (0, 0)
    stages = [
        StageOutcome(
            stage=s,
            passed=s != failed,
            reason=fate[1] if s == failed == "S0" else "ok",
            under_grant=under if s == "S4" else 0,
            over_grant=over if s == "S4" else 0,
        )
        for s in upto
    ]
    passed = {s.stage for s in stages if s.passed}
    ev, ov, acc = int("S2" in passed), int("S3" in passed), int("S4" in passed)
    weights = Weights()
    return GenerateOutcome(
        prompt=prompt,
        identity="escalate-allowed (escalate, bind)",
        stages=stages,
        failed_at=failed,
        strict_pass=failed is None,
        ev=ev,
        ov=ov,
        acc=acc,
        tu=tu,
        weights=weights,
        p=composite(weights, ev, ov, tu),
        p_terms=["ev", "ov"] + (["tu"] if tu is not None else []),
        under_grant=under,
        over_grant=over,
    )


def _write(paths: RunPaths, task: str, agent: str, result: TrialResult) -> None:
    trial = paths.trial(task.replace("/", "__"), agent.replace(":", "_"), 1)
    trial.root.mkdir(parents=True)
    result.dir = str(trial.root)
    result.write(trial.result)


def make_generate_run(
    root: Path, prompt: str = "full", answers: dict | None = None, extra_repair: bool = False
) -> Path:
    """A generate run of ANSWERS (or `answers`) asked in `prompt`; `extra_repair` adds a
    repair-track trial for oracle and model:x (an agent with trials of two tracks)."""
    paths = RunPaths(root)
    for agent, fates in (answers or ANSWERS).items():
        for task, fate in fates.items():
            kind, tier = GEN[task]
            result = TrialResult(
                task=task, agent=agent, area=kind, difficulty=tier, track="generate",
                tags=["create"],
            )  # fmt: skip
            if fate == ERROR:
                result.verdict, result.reason = "error", "the model endpoint kept failing"
            else:
                g = outcome(fate, prompt, TU.get((agent, task)))
                g.judge = JUDGE.get((agent, task))
                result.generate = g
                result.verdict = "resolved" if g.strict_pass else "failed"
                result.score, result.safe = int(g.strict_pass), True
            _write(paths, task, agent, result)
        if extra_repair and agent in ("oracle", "model:x"):
            repair = TrialResult(
                task="repair/alpha/one", agent=agent, area="alpha", difficulty="easy",
                verdict="resolved" if agent == "oracle" else "failed", safe=True,
                score=int(agent == "oracle"),
            )  # fmt: skip
            _write(paths, "repair/alpha/one", agent, repair)
    RunResult(dir=str(root), agents=list((answers or ANSWERS).keys()), repeats=1).write(
        paths.result
    )
    return root


# (agent, fault type, correct, NetArena-safe, safe, iterations); None: an errored trial
NETPOL = [
    ("oracle", "remove-ingress", True, True, True, 1),
    ("oracle", "change-port", True, True, True, 2),
    ("oracle", "remove-ingress", True, True, True, 1),
    ("noop", "remove-ingress", False, True, True, 10),
    ("noop", "change-port", False, True, True, 10),
    ("noop", "remove-ingress", False, True, False, 10),
    ("noop", None, False, False, False, 0),
    ("allow-all", "remove-ingress", True, True, False, 2),
    ("allow-all", "change-port", True, True, False, 3),
    ("allow-all", "remove-ingress", True, True, False, 2),
]


def make_netpol_run(root: Path) -> Path:
    paths = RunPaths(root)
    for n, (agent, fault, correct, na_safe, safe, iterations) in enumerate(NETPOL):
        task = f"netpol/v1/online-boutique/ingress/netarena/{fault or 'change-port'}/{n}"
        result = TrialResult(
            task=task, agent=agent, area="online-boutique", difficulty="netarena",
            track="netpol",
        )  # fmt: skip
        if fault is None:
            result.verdict, result.reason = "error", "the cluster failed"
        else:
            result.netpol = NetpolOutcome(
                mode="netarena", topology="online-boutique", faults=fault.split("+"),
                correct=correct, netarena_safe=na_safe, safe=safe, iterations=iterations,
                cap=10, rejected=1 if agent == "allow-all" else 0,
            )  # fmt: skip
            result.verdict = "resolved" if correct else "failed"
            result.score, result.safe = int(correct and safe), safe
        _write(paths, task, agent, result)
    RunResult(dir=str(root), agents=["oracle", "noop", "allow-all"], repeats=1).write(paths.result)
    return root
