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
