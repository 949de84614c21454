"""The kube/ helpers: node-selector requirements and tolerations as the API defines them, and
the layering rule that kube/ imports nothing else of kubeproof's."""

import ast
from pathlib import Path

import pytest

import kubeproof.kube
from kubeproof.kube.scheduling import requirement_matches, tolerates


@pytest.mark.parametrize(
    ("expr", "have", "matches"),
    [
        ({"operator": "In", "values": ["a", "b"]}, "b", True),
        ({"operator": "In", "values": ["a"]}, None, False),
        ({"operator": "NotIn", "values": ["a"]}, None, True),
        ({"operator": "NotIn", "values": ["a"]}, "a", False),
        ({"operator": "Exists"}, "", True),
        ({"operator": "DoesNotExist"}, None, True),
        ({"operator": "Gt", "values": ["4"]}, "8", True),
        ({"operator": "Lt", "values": ["4"]}, "8", False),
        ({"operator": "Gt", "values": ["4"]}, "eight", False),  # not an integer: no match
        ({"operator": "Gt", "values": ["4", "5"]}, "8", False),  # exactly one value
    ],
)  # fmt: skip
def test_a_node_selector_requirement_matches_as_nodeaffinity_does(expr, have, matches):
    assert requirement_matches(expr, have) is matches


def test_tolerations_follow_tolerates_taint():
    # k8s.io/api/core/v1/toleration.go ToleratesTaint
    taint = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
    assert tolerates(taint, [{"key": "dedicated", "value": "gpu"}])  # Equal, any effect
    assert not tolerates(taint, [{"key": "dedicated", "value": "cpu"}])
    assert tolerates(taint, [{"key": "dedicated", "operator": "Exists"}])
    assert tolerates(taint, [{"operator": "Exists"}])  # empty key and Exists: everything
    assert not tolerates(taint, [{"operator": "Exists", "effect": "NoExecute"}])
    assert not tolerates(taint, [])


def test_kube_imports_nothing_else_of_kubeproof():
    for path in Path(kubeproof.kube.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            for name in names:
                assert not name.startswith("kubeproof") or name.startswith("kubeproof.kube"), (
                    f"{path.name} imports {name}"
                )
