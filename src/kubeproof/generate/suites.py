"""Named suites: how many tasks of each (type, tier) cell, and which seeds. A suite seed N
gives the cell's i-th task the task seed N*1000+i, so every task of a suite can also be made
alone from its id. Tasks come round-robin over the cells, so any prefix (`--limit`) spreads
over every type and tier."""

from collections.abc import Iterator

from pydantic import BaseModel, Field

from kubeproof.generate.errors import GenerateError
from kubeproof.generate.model import GeneratedTask, Operation, Tier
from kubeproof.generate.task import generate
from kubeproof.generate.templates import EVERYDAY_TYPES, KUBEBENCH_TYPES

SEEDS_PER_SUITE_SEED = 1000


class Cell(BaseModel):
    resource_type: str
    tier: Tier
    operation: Operation = Operation.create
    count: int = Field(ge=0, lt=SEEDS_PER_SUITE_SEED)


class Suite(BaseModel):
    name: str
    description: str
    cells: list[Cell]

    @property
    def size(self) -> int:
        return sum(c.count for c in self.cells)


def _kubebench() -> Suite:
    # KubeBench publishes 810 tasks over 8 types x 3 tiers but not the per-cell counts: 270
    # per tier, 34 per cell but for two cells of 33 per tier, the short cells rotating over
    # the types (docs/generate.md)
    cells = []
    for t, tier in enumerate(Tier):
        for i, kind in enumerate(KUBEBENCH_TYPES):
            short = i in (2 * t, 2 * t + 1)
            cells.append(Cell(resource_type=kind, tier=tier, count=33 if short else 34))
    return Suite(
        name="kubebench-810",
        description="CREATE on KubeBench's eight types in three tiers: 810 tasks, 270 a tier.",
        cells=cells,
    )


def _everyday(per_cell: int = 30) -> Suite:
    cells = [Cell(resource_type=kind, tier=tier, count=per_cell)
             for tier in Tier for kind in EVERYDAY_TYPES]  # fmt: skip
    return Suite(
        name="everyday-810",
        description="CREATE on nine types operators write every day (Deployment, Service, "
        "NetworkPolicy, PDB, HPA, Job, CronJob, ResourceQuota with LimitRange, PVC) in three "
        "tiers: 30 a cell.",
        cells=cells,
    )


def _generate_10k(per_cell: int = 50) -> Suite:
    # every type, tier and operation: 17 x 3 x 4 cells of 50, 10,200 tasks
    cells = [Cell(resource_type=kind, tier=tier, operation=op, count=per_cell)
             for op in Operation for tier in Tier
             for kind in (*KUBEBENCH_TYPES, *EVERYDAY_TYPES)]  # fmt: skip
    return Suite(
        name="generate-10k",
        description="CREATE, UPDATE, DELETE and COMMAND on all seventeen types in three "
        f"tiers: {per_cell} a cell.",
        cells=cells,
    )


SUITES: dict[str, Suite] = {s.name: s for s in (_kubebench(), _everyday(), _generate_10k())}


def suite(name: str) -> Suite:
    if name not in SUITES:
        raise GenerateError(f"no suite {name!r}; have {', '.join(sorted(SUITES))}")
    return SUITES[name]


def tasks(name: str, seed: int = 0, limit: int | None = None) -> Iterator[GeneratedTask]:
    """The suite's tasks for a suite seed, round-robin over its cells."""
    if seed < 0:
        raise GenerateError("a suite seed is a non-negative integer")
    cells = suite(name).cells
    made = 0
    for i in range(max((c.count for c in cells), default=0)):
        for cell in cells:
            if i >= cell.count:
                continue
            if limit is not None and made >= limit:
                return
            yield generate(
                cell.resource_type, cell.tier, seed * SEEDS_PER_SUITE_SEED + i, cell.operation
            )
            made += 1
