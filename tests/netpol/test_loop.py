"""The loop's rules without a cluster: NetArena's block-list is substrings (so `bash`
anywhere refuses a command), operator mode refuses nothing, and the first turn holds the
intent, the mode's rules and the current report (not NetArena's blind first turn)."""

from kubeproof.netpol import materialize, report, tasks, topology
from kubeproof.netpol.loop import prompt, refusal

TASK = "netpol/v1/online-boutique/ingress/netarena/remove-ingress/0"


def test_netarena_refuses_its_substrings_and_operator_nothing():
    patch = "kubectl patch networkpolicy cartservice --type=json -p '[]'"
    assert refusal("netarena", patch) is None
    for command in (
        "kubectl delete networkpolicy cartservice",
        "kubectl get pods | bash",
        "echo bashful",  # a substring, as NetArena matches it
        "kubectl get pods -n <namespace>",
        "sudo kubectl get pods",
    ):
        assert refusal("netarena", command), command
        assert refusal("operator", command) is None


def test_first_turn_has_intent_rules_and_current_report():
    task = tasks.generate(TASK)
    tp = topology.load(task.topology)
    current = report.compute(tp, materialize.materialize(task.objects), "netarena")
    operator = prompt(task.intent, current, "operator", 30, explain=True)
    assert task.intent.strip() in operator and current.text(True) in operator
    assert "at most 30 commands" in operator and "submit" in operator
    netarena = prompt(task.intent, current, "netarena", 10, explain=False)
    assert current.text(False) in netarena and "ingress-denied" not in netarena
    assert "kubectl patch --type=json" in netarena and "after 10 commands" in netarena
