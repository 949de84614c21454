"""Objects compared by meaning, and path patterns (golden, no cluster)."""

import copy

from kubeproof.verify import paths

DEPLOYMENT = {
    "kind": "Deployment",
    "metadata": {"name": "api", "resourceVersion": "7", "labels": {"app": "api"}},
    "spec": {
        "replicas": 2,
        "template": {
            "metadata": {"labels": {"app": "api"}},
            "spec": {
                "containers": [
                    {
                        "name": "api",
                        "image": "api:1",
                        "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
                    },
                    {"name": "proxy", "image": "proxy:1"},
                ],
                "tolerations": [{"key": "x", "operator": "Exists"}],
            },
        },
    },
    "status": {"replicas": 2},
}


def edited(fn):
    obj = copy.deepcopy(DEPLOYMENT)
    fn(obj)
    return obj


def test_reordering_named_items_is_no_change_and_bookkeeping_is_ignored():
    def reorder(o):
        o["spec"]["template"]["spec"]["containers"].reverse()
        o["spec"]["template"]["spec"]["containers"][1]["env"].reverse()
        o["metadata"]["resourceVersion"] = "99"
        o["status"] = {"replicas": 0}

    assert paths.changes(DEPLOYMENT, edited(reorder), []) == []


def test_a_change_is_named_where_it_is_with_old_and_new_values():
    def add_secret(o):
        o["spec"]["template"]["spec"]["containers"][0]["env"].append({"name": "PW", "value": "s"})

    assert paths.changes(DEPLOYMENT, edited(add_secret), []) == [
        "spec.template.spec.containers[name=api].env[name=PW]: <unset> -> {'name': 'PW', "
        "'value': 's'}"
    ]


def test_a_pattern_allows_everything_below_it_and_nothing_beside_it():
    def two_changes(o):
        o["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] = "9"
        o["spec"]["replicas"] = 5

    env = paths.parse("spec.template.spec.containers[name=api].env")
    assert paths.changes(DEPLOYMENT, edited(two_changes), [env]) == ["spec.replicas: 2 -> 5"]
    wild = paths.parse("spec.template.spec.containers[*].env[name=A]")
    assert paths.changes(DEPLOYMENT, edited(two_changes), [wild]) == ["spec.replicas: 2 -> 5"]
    assert paths.changes(DEPLOYMENT, edited(two_changes), [paths.parse("**")]) == []


def test_positional_patterns_follow_the_named_item_they_meant():
    def move_and_change(o):
        containers = o["spec"]["template"]["spec"]["containers"]
        containers.reverse()
        containers[1]["image"] = "api:2"  # api, now second

    first = paths.parse("spec.template.spec.containers[0].image")
    assert paths.changes(DEPLOYMENT, edited(move_and_change), [first]) == []
    assert paths.changes(DEPLOYMENT, edited(move_and_change), [], only=[first]) == [
        "spec.template.spec.containers[name=api].image: api:1 -> api:2"
    ]


def test_an_appended_item_touches_every_position_of_an_unnamed_list():
    def append(o):
        o["spec"]["template"]["spec"]["tolerations"].append({"operator": "Exists"})

    second = paths.parse("spec.template.spec.tolerations[0]")
    assert paths.changes(DEPLOYMENT, edited(append), [], only=[second])
    assert paths.changes(DEPLOYMENT, edited(append), [paths.parse("spec.template.spec")]) == []


def test_quoted_keys_and_a_restart_is_always_allowed():
    def restart_and_label(o):
        annotations = o["spec"]["template"]["metadata"].setdefault("annotations", {})
        annotations["kubectl.kubernetes.io/restartedAt"] = "now"
        o["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] = "privileged"

    found = paths.changes(DEPLOYMENT, edited(restart_and_label), [])
    assert found == ['metadata.labels["pod-security.kubernetes.io/enforce"]: <unset> -> privileged']
    label = paths.parse('metadata.labels["pod-security.kubernetes.io/enforce"]')
    assert paths.changes(DEPLOYMENT, edited(restart_and_label), [label]) == []


def test_secret_values_never_reach_a_reason():
    secret = {
        "kind": "Secret",
        "metadata": {"name": "db"},
        "type": "Opaque",
        "data": {"pw": "YQ=="},
    }
    changed = {**secret, "data": {"pw": "Yg=="}}
    assert paths.changes(secret, changed, []) == ["data.pw"]
