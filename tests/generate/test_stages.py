"""S0 extraction, S1 schema, the RBAC twin and the typed checks on crafted inputs."""

import base64
import random

import pytest
import yaml

from kubeproof.generate import extract, schema, yamltext
from kubeproof.generate.checks import evaluate
from kubeproof.generate.extract import Failure
from kubeproof.generate.model import (
    Cell,
    FieldEquals,
    ObjectRef,
    SecretData,
    SecretType,
    Subject,
    Tier,
)
from kubeproof.generate.offline import judge
from kubeproof.generate.rbac import allowed, rule_allows
from kubeproof.generate.task import generate
from kubeproof.generate.templates import TEMPLATES

ROLE = """apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r, namespace: a}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
"""
KINDS = ["Role", "RoleBinding"]


@pytest.mark.parametrize(
    ("answer", "failure"),
    [
        ("", Failure.empty),
        ("   \n\n", Failure.empty),
        ("---\n---\n", Failure.empty),
        ("I cannot help with that.", Failure.invalid_yaml),  # a scalar, not a manifest
        ("apiVersion: v1\nmetadata: {name: x}\n", Failure.no_kind),
        ("apiVersion: v1\nkind: [Role]\n", Failure.no_kind),
        ("apiVersion: v1\nkind: Role\nrules: [\n", Failure.invalid_yaml),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", Failure.wrong_kind),
        ("a: &a [1]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n" * 1, None),
        ("- 1\n- 2\n", Failure.invalid_yaml),
    ],
)
def test_s0_failure_categories(answer, failure):
    got = extract.extract(answer, KINDS)
    if answer.startswith("a: &a"):
        assert got.failure is Failure.no_kind  # small aliasing is fine; it has no kind
    else:
        assert got.failure is failure, got.reason


def test_s0_alias_bomb_and_huge_answers_are_invalid():
    bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n"
        for i in range(8)
    )
    assert extract.extract(bomb, KINDS).failure is Failure.invalid_yaml
    huge = ROLE + "#" * (extract.ANSWER_LIMIT + 1)
    assert extract.extract(huge, KINDS).failure is Failure.invalid_yaml


def test_s0_takes_fenced_blocks_or_text_from_the_first_api_version():
    prose = f"Here is the Role you asked for:\n\n```yaml\n{ROLE}```\nApply it with kubectl."
    assert [o["kind"] for o in extract.extract(prose, KINDS).objects] == ["Role"]
    two = f"First:\n```\n{ROLE}```\nthen\n```yml\n{ROLE.replace('name: r', 'name: s')}```"
    assert len(extract.extract(two, KINDS).objects) == 2
    unfenced = f"Sure! Below.\n{ROLE}---\n{ROLE}"
    got = extract.extract(unfenced, KINDS)
    assert got.failure is None and len(got.objects) == 2
    listed = "apiVersion: v1\nkind: List\nitems:\n- " + ROLE.replace("\n", "\n  ")
    assert [o["kind"] for o in extract.extract(listed, KINDS).objects] == ["Role"]
    shell = "```bash\nkubectl apply -f role.yaml\n```\n" + ROLE
    assert extract.extract(shell, KINDS).failure is None


def test_s1_reports_unknown_and_missing_fields_and_wrong_types():
    ok = yaml.safe_load(ROLE)
    assert schema.validate(ok) == []
    bad = yaml.safe_load(ROLE.replace("verbs", "verb").replace("[get]", "get"))
    assert {"rules[0].verb: unknown field", "rules[0].verbs: required"} <= set(schema.validate(bad))
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"P": 80}}
    assert schema.validate(cm) == ["data.P: want a string"]
    secret = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "%"}}
    assert schema.validate(secret) == ["data.k: not base64"]
    svc = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "s"},
           "spec": {"ports": [{"port": "80", "targetPort": "http"}]}}  # fmt: skip
    assert schema.validate(svc) == ["spec.ports[0].port: str is not int"]
    assert schema.validate({"apiVersion": "apps/v1beta1", "kind": "Deployment"})
    assert schema.validate({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {}}) == [
        "metadata.name: required"
    ]


def _rule(**kw):
    return {"apiGroups": [""], "verbs": ["get"], **kw}


def _cell(verb: str, resource: str = "", **kw) -> Cell:
    return Cell(verb=verb, resource=resource, allowed=True, **kw)


@pytest.mark.parametrize(
    ("rule", "cell", "want"),
    [
        (_rule(resources=["pods"]), _cell("get", "pods"), True),
        (_rule(resources=["pods"]), _cell("get", "pods", subresource="log"), False),
        (_rule(resources=["pods/*"]), _cell("get", "pods", subresource="log"), False),
        (_rule(resources=["*/log"]), _cell("get", "pods", subresource="log"), True),
        (_rule(resources=["*"]), _cell("get", "pods", subresource="log"), True),
        (_rule(resources=["cm"], resourceNames=["a"]), _cell("get", "cm", name="b"), False),
        (_rule(resources=["cm"], resourceNames=["a"]), _cell("list", "cm"), False),
        ({"verbs": ["get"], "nonResourceURLs": ["/metrics*"]}, _cell("get", path="/m"), False),
        ({"verbs": ["get"], "nonResourceURLs": ["/m*"]}, _cell("get", path="/m/x"), True),
        (
            {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]},
            _cell("escalate", "roles", group="rbac.authorization.k8s.io"),
            True,
        ),
    ],
)
def test_rbac_rule_matching_follows_evaluation_helpers(rule, cell, want):
    assert rule_allows(rule, cell) is want


def test_rolebindings_grant_only_in_their_namespace():
    role = {"kind": "ClusterRole", "metadata": {"name": "r"}, "rules": [_rule(resources=["pods"])]}
    binding = {
        "kind": "RoleBinding",
        "metadata": {"name": "b", "namespace": "a"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "r"},
        "subjects": [{"kind": "ServiceAccount", "name": "sa"}],  # namespace: the binding's
    }
    who = Subject(kind="ServiceAccount", name="sa", namespace="a")
    assert allowed(
        [role, binding], who, Cell(verb="get", resource="pods", namespace="a", allowed=True)
    )
    assert not allowed(
        [role, binding], who, Cell(verb="get", resource="pods", namespace="b", allowed=True)
    )
    assert not allowed([role, binding], who, Cell(verb="get", resource="pods", allowed=True))
    other = Subject(kind="ServiceAccount", name="sa", namespace="b")
    assert not allowed(
        [role, binding], other, Cell(verb="get", resource="pods", namespace="a", allowed=True)
    )


def _ref(kind: str) -> ObjectRef:
    return ObjectRef(api_version="v1", kind=kind, name="x", namespace="n")


def test_quantities_compare_normalised_and_secrets_decoded():
    quota = {"kind": "ResourceQuota", "metadata": {"name": "x", "namespace": "n"},
             "spec": {"hard": {"requests.memory": "1024Mi", "requests.cpu": "500m"}}}  # fmt: skip
    for path, value, ok in (('spec.hard["requests.memory"]', "1Gi", True),
                            ('spec.hard["requests.cpu"]', "0.5", True),
                            ('spec.hard["requests.cpu"]', "1", False)):  # fmt: skip
        check = FieldEquals(target=_ref("ResourceQuota"), path=path, value=value, quantity=True)
        assert evaluate(check, [quota]).passed is ok
    secret = {"kind": "Secret", "metadata": {"name": "x", "namespace": "n"},
              "type": "kubernetes.io/basic-auth",
              "data": {"username": base64.b64encode(b"app").decode()},
              "stringData": {"password": "s3cret"}}  # fmt: skip
    values = SecretData(target=_ref("Secret"), values={"username": "app", "password": "s3cret"})
    assert evaluate(values, [secret]).passed
    wrong = SecretData(target=_ref("Secret"), values={"username": "root"})
    assert not evaluate(wrong, [secret]).passed
    typed = SecretType(target=_ref("Secret"), secret_type="kubernetes.io/basic-auth",
                       required_keys=["username", "password"])  # fmt: skip
    assert evaluate(typed, [secret]).passed
    assert not evaluate(typed.model_copy(update={"secret_type": "Opaque"}), [secret]).passed


@pytest.mark.parametrize(
    "value",
    ["yes", "No", "on", "null", "~", "1.5", "0x1F", "2026-01-01", "1:20", "", " x", "a: b",
     "#c", "- x", "{x}", "[x]", "*x", "&x", "!x", "%x", "@x", "`x", "'x", '"x', "x\ny",
     "é", "\t", ".inf", "e5", "true", "TRUE", "/metrics", "8080", "-1", "+1", "a #b"],
)  # fmt: skip
def test_yamltext_strings_load_back_as_strings(value):
    doc = {"k": value, value or "empty": [value, {"n": 1, "b": False, "z": None, "e": {}}]}
    assert yaml.safe_load(yamltext.dump_all([doc])) == doc


JUNK = ("{", "}", "[", "]", ":", "- ", "&a ", "*a ", "!!python/object:os.system ", "kind: ")
JUNK += ("null", "? ", "!!binary ", "\t", "\n", "---\n", '"', "'", "%YAML 1.1\n", "<<: *a\n")


def test_mangled_answers_are_judged_never_crash():
    """Hostile input: references with junk inserted, text cut and lines re-indented get a
    verdict (some stage fails or all pass), never an exception."""
    rng = random.Random(18)
    tasks = [generate(kind, tier, 0) for kind in TEMPLATES for tier in Tier]
    for task in tasks:
        for _ in range(10):
            text = task.reference
            for _ in range(rng.randint(1, 6)):
                i = rng.randrange(len(text) + 1)
                if rng.random() < 0.5:
                    text = text[:i] + rng.choice(JUNK) + text[i:]
                else:
                    text = text[:i] + text[i + rng.randint(1, 20) :]
            verdict = judge(task, text)
            assert verdict.stages and verdict.stages[-1].stage == (verdict.failed_at or "S4")
