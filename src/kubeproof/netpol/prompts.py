"""The first turn's prompt variants, after NetArena's four (`zeroshot_base`, `zeroshot_cot`,
`fewshot_base`, `fewshot_cot`: its agent client's `PromptType`), so its published numbers
per variant can be compared. The words are ours. A few-shot example is a worked fix
generated here, from a fixed task on *another* application than the one under test (its
mismatch report computed by netsim from the broken manifests, its fix the task's inverse),
so the example can never hold the answer (docs/netpol.md, "Prompt variants").
"""

from functools import cache
from typing import Literal

from kubeproof.netpol import materialize, report, tasks, topology

Variant = Literal["zeroshot_base", "zeroshot_cot", "fewshot_base", "fewshot_cot"]
VARIANTS: tuple[Variant, ...] = ("zeroshot_base", "zeroshot_cot", "fewshot_base", "fewshot_cot")

# the example shown with each application: a task of another one, one fault, one command
EXAMPLES = {
    "online-boutique": "netpol/v1/bookinfo/ingress/full/change-port/0",
    "bookinfo": "netpol/v1/shop-shared-db/ingress/full/remove-ingress/0",
    "shop-shared-db": "netpol/v1/bookinfo/ingress/full/change-port/0",
}
EXAMPLE_LINES = 6  # mismatch lines of the example's report shown

THINK = """\
Before each command, reason it through in a few sentences: which probes are wrong, which
NetworkPolicy (or Service, Deployment or namespace label) decides each of them and why, and
which single change puts the most of them right without breaking a probe that is right now.
Then give the command."""


@cache
def example(application: str) -> str:
    """A worked example for tasks on `application`, from another application's task."""
    task = tasks.generate(EXAMPLES[application])
    tp = topology.load(task.topology)
    broken = report.compute(tp, materialize.materialize(task.objects), task.profile)  # type: ignore[arg-type]
    lines = broken.text(explain=False).splitlines()
    shown = lines[:EXAMPLE_LINES] + ([f"(and {len(lines) - EXAMPLE_LINES} more)"]
                                     if len(lines) > EXAMPLE_LINES else [])  # fmt: skip
    fix = "\n".join(task.fix.commands)
    return (
        f"Example, on another application ({task.topology}): the mismatch report read\n"
        + "\n".join(shown)
        + f"\nand this fixed it, after which nothing mismatched:\n```\n{fix}\n```"
    )


def extra(variant: Variant, application: str) -> str:
    """What the variant adds to the first turn (nothing for `zeroshot_base`)."""
    parts = []
    if variant.startswith("fewshot"):
        parts.append(example(application))
    if variant.endswith("cot"):
        parts.append(THINK)
    return "\n\n".join(parts)
