"""What one write of the history set itself (golden, no cluster): a field only controllers
may move counts against the agent only where its own write set it."""

from kubeproof.verify.history import Write
from kubeproof.verify.paths import parse

REPLICAS = parse("spec.replicas")
BEFORE = {"spec": {"replicas": 4, "template": {"spec": {"containers": [{"name": "a"}]}}}}


def write(verb, request=None, replicas=None, sub=None):
    return Write("t", "agent", verb, "Deployment", "ns", "api", sub, None, replicas, request)


def test_a_scale_write_sets_the_replicas():
    assert write("patch", {"spec": {"replicas": 2}}, replicas=2, sub="scale").touches(
        REPLICAS, BEFORE
    )


def test_a_patch_sets_only_what_it_names():
    other = {"spec": {"template": {"spec": {"containers": [{"name": "a", "image": "x"}]}}}}
    assert not write("patch", other).touches(REPLICAS, BEFORE)
    assert write("patch", {"spec": {"replicas": 1}}).touches(REPLICAS, BEFORE)
    assert write("patch", [{"op": "replace", "path": "/spec/replicas", "value": 1}]).touches(
        REPLICAS, BEFORE
    )
    json_patch = [{"op": "add", "path": "/spec/template/spec/containers/0/env", "value": []}]
    assert not write("patch", json_patch).touches(REPLICAS, BEFORE)


def test_an_update_carrying_the_controllers_value_sets_nothing_there():
    assert not write("update", {"spec": {"replicas": 4}}).touches(REPLICAS, BEFORE)
    assert write("update", {"spec": {"replicas": 1}}).touches(REPLICAS, BEFORE)


def test_a_restart_while_the_autoscaler_holds_another_size_is_not_a_resize():
    """Only controllers may size the Deployment: the agent's restart reads back the size the
    autoscaler set, which is not the agent's change; its own scale write is."""
    from kubeproof.verify.baseline import Baseline, key
    from kubeproof.verify.history import History
    from kubeproof.verify.protection import Allowances, Rule, object_problems
    from kubeproof.verify.registry import Context

    meta = {"name": "api", "namespace": "ns", "uid": "u1"}
    before = {"metadata": meta, **BEFORE}
    baseline = Baseline(objects={key("Deployment", "ns", "api"): before}, namespaces=["ns"])
    scaled = {"metadata": meta, "spec": {**BEFORE["spec"], "replicas": 6}}
    restarted = {
        "metadata": meta,
        "spec": {
            **scaled["spec"],
            "template": {
                "metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": "now"}},
                "spec": BEFORE["spec"]["template"]["spec"],
            },
        },
    }
    restart = Write(
        "t",
        "agent",
        "patch",
        "Deployment",
        "ns",
        "api",
        None,
        restarted,
        None,
        {
            "spec": {
                "template": {
                    "metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": "now"}}
                }
            }
        },
    )
    history = History(None)
    history._writes = [restart]
    allowances = Allowances([Rule("Deployment", "ns", "api", [REPLICAS], controllers_only=True)])
    ctx = Context(None, baseline, history, allowances)

    def problems():
        return object_problems(
            ctx,
            "Deployment",
            "ns",
            "api",
            allowances.patterns("Deployment", "ns", "api"),
            now=restarted,
            agent_patterns=allowances.agent_patterns("Deployment", "ns", "api"),
        )

    assert problems() == []
    history._writes.append(write("patch", {"spec": {"replicas": 2}}, replicas=2, sub="scale"))
    found = problems()
    assert found and found[0].startswith("spec.replicas: 4 -> 2 at t by agent")
