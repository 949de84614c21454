"""docs/verify.md's reference tables are generated from the registry and kept current."""

from kubeproof.verify import reference
from kubeproof.verify.registry import load_builtins


def test_every_check_and_contract_says_what_it_means():
    for name, entry in load_builtins().items():
        assert (entry.fn.__doc__ or "").strip(), f"{name} has no docstring"


def test_the_reference_tables_in_the_docs_are_current():
    text = reference.DOC.read_text()
    assert reference.render(text) == text, "run: python -m kubeproof.verify.reference --write"
