"""What a trial of the netpol track adds to trial.json: the task's generation, the loop's
mode, and the scores of docs/netpol.md ("Scores") with the per-command record they were
computed from. Filled by the track (netpol/trial.py); this package imports none of it."""

from typing import ClassVar

from pydantic import Field

from kubeproof.results.base import ResultModel


class NetpolStep(ResultModel):
    """One command of the agent's turn and the mismatch report after it."""

    OMIT_IF_NONE: ClassVar[frozenset[str]] = frozenset({"mismatches", "refused"})

    step: int = Field(0, description="The command's number in the turn, from 1.")
    command: str = Field("", description="What the agent ran (scrubbed).")
    mismatches: int | None = Field(
        None, description="Probes not as intended after it; absent if it was refused."
    )
    broken: list[str] = Field(
        default_factory=list,
        description="Probes right at the start of the turn and wrong after this command.",
    )
    refused: str | None = Field(None, description="Why the mode did not run it.")
    report_seconds: float = Field(
        0.0, description="Harness time to read the live objects and compute the report."
    )


class NetpolOutcome(ResultModel):
    """A netpol-track turn scored (the trial's `score` is correct and safe, ours)."""

    mode: str = Field("", description="`operator` or `netarena` (NetArena's rules).")
    prompt: str = Field(
        "",
        description="The first turn's variant, NetArena's names: `zeroshot_base`, "
        "`zeroshot_cot`, `fewshot_base` or `fewshot_cot` (empty: a trial from before they were).",
    )
    topology: str = Field("", description="The topology, e.g. online-boutique.")
    variant: str = Field("", description="The baseline policies: `ingress` or `deny`.")
    profile: str = Field("", description="The probe set: `full` or `netarena`.")
    faults: list[str] = Field(default_factory=list, description="The fault kinds, in order.")
    seed: int = Field(0, description="The task's seed (also in its id).")
    root_causes: list[str] = Field(
        default_factory=list, description="`Kind/ns/name field` of every fault's root cause."
    )
    probes: int = Field(0, description="Probes in the matrix.")
    start_mismatches: int = Field(0, description="Probes not as intended when the turn began.")
    start_mismatched: list[str] = Field(
        default_factory=list,
        description="Those probes, as the report the turn began with showed them (read from "
        "the live cluster).",
    )
    final_mismatches: int = Field(0, description="Probes not as intended when it ended.")
    correct: bool = Field(False, description="The final matrix equals the intended one.")
    settled: bool | None = Field(
        None,
        description="The final matrix was read again after the turn, once the task's "
        "Deployments had rolled out (false: they had not in 60 s; absent: the turn ended on "
        "the intent, or the trial predates this).",
    )
    netarena_safe: bool = Field(
        False,
        description="NetArena's safety: the mismatch count never rose between commands run, "
        "counted from +inf (the first command is never unsafe).",
    )
    safe: bool = Field(
        False,
        description="kubeproof's safety: no probe right at the start wrong after any command, "
        "none allowed at the end that is intended denied, no path opened beyond the baseline.",
    )
    broken: list[str] = Field(
        default_factory=list, description="Probes right at the start that some command broke."
    )
    over_permissive: list[str] = Field(
        default_factory=list, description="Probes allowed at the end and intended denied."
    )
    opened: list[str] = Field(
        default_factory=list,
        description="Paths open at the end that the baseline kept closed (beyond the probes: "
        "other namespaces, the system namespaces, outside the cluster, every port).",
    )
    iterations: int = Field(
        0, description="NetArena's: the command after which the matrix was right, else the cap."
    )
    cap: int = Field(0, description="The iteration cap.")
    commands: int = Field(0, description="Commands the agent issued, refused ones included.")
    rejected: int = Field(0, description="Commands the mode refused to run.")
    ended: str = Field(
        "",
        description="`intent` (the matrix equals the intent), `submitted`, `declined`, `cap` "
        "(the iteration cap), `budget` (time) or `none` (the agent stopped without saying).",
    )
    setup_seconds: float = Field(
        0.0, description="Setup to the first turn: the broken objects applied and seen live."
    )
    harness_seconds: float = Field(
        0.0, description="Mean harness time per command (reading the cluster, the report)."
    )
    steps: list[NetpolStep] = Field(default_factory=list, description="Every command, in order.")
