"""S0: the manifests inside a model's raw answer. CloudEval-YAML's rules (the first fenced
block, else the text from the first `apiVersion:`), then every YAML document, loaded as the
hostile input it is (kubeproof.hostile: bounded size, depth and alias expansion). A failure
falls in one of CloudEval's categories: empty, no kind, invalid YAML, wrong kind."""

import re
from enum import StrEnum

from pydantic import BaseModel, Field

from kubeproof.hostile import HostileInput, load_yaml_all

ANSWER_LIMIT = 256 * 1024  # characters: far above any manifest a task asks for
DOCUMENT_LIMIT = 50
_FENCE = re.compile(r"^[ \t]*```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n(.*?)^[ \t]*```", re.M | re.S)
_API_VERSION = re.compile(r"^apiVersion[ \t]*:", re.M)


class Failure(StrEnum):
    empty = "empty"
    no_kind = "no_kind"
    invalid_yaml = "invalid_yaml"
    wrong_kind = "wrong_kind"


class Extraction(BaseModel):
    objects: list[dict] = Field(default_factory=list, description="The documents, in order.")
    failure: Failure | None = Field(default=None, description="None when S0 passed.")
    reason: str = ""


def manifest_text(answer: str) -> str:
    """The YAML part of an answer: fenced blocks that look like YAML (all of them, joined as
    documents), else everything from the first line starting `apiVersion:`, else the whole."""
    blocks = [
        body
        for lang, body in _FENCE.findall(answer)
        if lang.lower() in ("", "yaml", "yml") or _API_VERSION.search(body)
    ]
    if blocks:
        return "\n---\n".join(blocks)
    start = _API_VERSION.search(answer)
    return answer[start.start() :] if start else answer


def _flatten(docs: list) -> list:
    """A `kind: List` document (as `kubectl get -o yaml` prints) stands for its items, as
    kubectl apply reads it; one level only."""
    out: list = []
    for doc in docs:
        items = doc.get("items") if isinstance(doc, dict) and doc.get("kind") == "List" else None
        out += items if isinstance(items, list) else [doc]
    return out


def extract(answer: str, kinds: list[str]) -> Extraction:
    """S0 over a raw answer; `kinds` are the kinds the task allows."""
    if len(answer) > ANSWER_LIMIT:
        return Extraction(failure=Failure.invalid_yaml, reason=f"over {ANSWER_LIMIT} characters")
    text = manifest_text(answer)
    if not text.strip():
        return Extraction(failure=Failure.empty, reason="no text")
    try:
        docs = [d for d in load_yaml_all(text, "answer") if d is not None]
    except HostileInput as exc:
        return Extraction(failure=Failure.invalid_yaml, reason=str(exc))
    docs = _flatten(docs)
    if not docs:
        return Extraction(failure=Failure.empty, reason="no YAML document")
    if len(docs) > DOCUMENT_LIMIT:
        return Extraction(failure=Failure.invalid_yaml, reason=f"over {DOCUMENT_LIMIT} documents")
    if not all(isinstance(d, dict) for d in docs):
        return Extraction(failure=Failure.invalid_yaml, reason="a document is not a mapping")
    if any(not isinstance(d.get("kind"), str) or not d.get("kind") for d in docs):
        return Extraction(failure=Failure.no_kind, reason="a document has no kind")
    wrong = sorted({d["kind"] for d in docs} - set(kinds))
    if wrong:
        return Extraction(objects=docs, failure=Failure.wrong_kind, reason=f"kinds {wrong}")
    return Extraction(objects=docs, reason=f"{len(docs)} documents")
