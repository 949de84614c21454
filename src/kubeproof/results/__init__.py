"""Results: the typed record of every trial and run, and where their files are.

`TrialResult` (trial.json) and `RunResult` (run.json) are pydantic models with the keys the
files have always had; `TrialPaths` and `RunPaths` name the files of a trial and a run
directory; `provenance` records what a result was produced with. This package imports no
trial, agent or CLI code: the runner writes into it, readers (the CLI, reports, the
database) read from it.
"""

from kubeproof.results.generate import GenerateOutcome, GenerateRun, StageOutcome, Weights
from kubeproof.results.paths import RunPaths, TrialPaths
from kubeproof.results.provenance import AgentRecord, Machine, Versions
from kubeproof.results.run import EvidenceKey, Group, RunResult, Summary, TrialLine, summarize
from kubeproof.results.trial import (
    SCHEMA_VERSION,
    Attempt,
    CheckResult,
    ClusterInfo,
    Decision,
    EvidenceSummary,
    PhaseTimings,
    TrialResult,
    Usage,
)


def schema() -> dict:
    """The JSON Schema of trial.json and run.json (docs/results.schema.json)."""
    from pydantic.json_schema import models_json_schema

    refs, top = models_json_schema(
        [(RunResult, "validation"), (TrialResult, "validation")],
        title="kubeproof results",
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": top["title"],
        "description": "A run directory's run.json (RunResult) or a trial directory's "
        f"trial.json (TrialResult), schema version {SCHEMA_VERSION}. docs/results.md.",
        "anyOf": [refs[(RunResult, "validation")], refs[(TrialResult, "validation")]],
        "$defs": top["$defs"],
    }


__all__ = [
    "SCHEMA_VERSION",
    "AgentRecord",
    "Attempt",
    "CheckResult",
    "ClusterInfo",
    "Decision",
    "EvidenceKey",
    "EvidenceSummary",
    "GenerateOutcome",
    "GenerateRun",
    "Group",
    "Machine",
    "PhaseTimings",
    "RunPaths",
    "RunResult",
    "StageOutcome",
    "Summary",
    "TrialLine",
    "TrialPaths",
    "TrialResult",
    "Usage",
    "Versions",
    "Weights",
    "schema",
    "summarize",
]
