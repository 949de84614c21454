"""The first turn's prompt variants (netpol/prompts.py): NetArena's four names; a worked
example always from another application than the task's, whose fix really mends its
broken manifests; the same text every time. No cluster."""

import pytest

from kubeproof.netpol import inverse, materialize, prompts, report, tasks, topology
from kubeproof.netpol.faults.base import ref
from kubeproof.netpol.loop import prompt

BOUTIQUE = "netpol/v1/online-boutique/ingress/netarena/remove-ingress+change-port/0"


@pytest.mark.parametrize("application", sorted(prompts.EXAMPLES))
def test_the_example_is_of_another_application_and_its_fix_works(application):
    example = tasks.generate(prompts.EXAMPLES[application])
    assert example.topology != application
    tp = topology.load(example.topology)
    fixed = inverse.apply({ref(o): o for o in example.objects}, example.fix)
    world = materialize.materialize(list(fixed.values()))
    assert report.compute(tp, world, example.profile).matrix() == example.intended
    text = prompts.example(application)
    assert f"({example.topology})" in text and example.fix.commands[0] in text
    assert "Mismatch: " in text and application not in text.split("\n", 1)[1]


def test_each_variant_adds_what_it_says():
    app = "online-boutique"
    assert prompts.extra("zeroshot_base", app) == ""
    assert prompts.extra("zeroshot_cot", app) == prompts.THINK
    assert prompts.extra("fewshot_base", app) == prompts.example(app)
    both = prompts.extra("fewshot_cot", app)
    assert both.startswith(prompts.example(app)) and both.endswith(prompts.THINK)
    assert prompts.VARIANTS == ("zeroshot_base", "zeroshot_cot", "fewshot_base", "fewshot_cot")


def test_the_first_turn_holds_the_variant_before_the_current_report():
    task = tasks.generate(BOUTIQUE)
    tp = topology.load(task.topology)
    broken = report.compute(tp, materialize.materialize(task.objects), task.profile)
    extra = prompts.extra("fewshot_cot", task.topology)
    turn = prompt(task.intent, broken, "netarena", 10, False, extra)
    assert turn.index(task.intent.strip()) < turn.index(extra) < turn.index(broken.text(False))
    assert prompt(task.intent, broken, "netarena", 10, False) == prompt(
        task.intent, broken, "netarena", 10, False, ""
    )
    prompts.example.cache_clear()
    assert prompts.extra("fewshot_cot", task.topology) == extra  # the same text every time
