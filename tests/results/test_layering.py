"""results/ is what the runner writes into and the CLI, reports and databases read from: it
imports none of them (the repository has no import-linter configuration; this is its
contract for this package)."""

import ast
from pathlib import Path

import kubeproof.results

FORBIDDEN = ("kubeproof.cli", "kubeproof.runner", "kubeproof.agents", "kubeproof.verify")


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_results_imports_no_runner_agent_verifier_or_cli_code():
    package = Path(kubeproof.results.__file__).parent
    wrong = {
        f"{path.name}: {name}"
        for path in package.rglob("*.py")
        for name in imports(path)
        if name.startswith(FORBIDDEN)
    }
    assert not wrong
