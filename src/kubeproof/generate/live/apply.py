"""S2 Ev: the answer's objects applied server-side as the evaluation identity, as
`kubectl apply --server-side --force-conflicts` would as that ServiceAccount. Namespaces go
first (a namespaced object may live in one the answer creates); the others in the answer's
order. Each object is looked up as admin first, so the judge knows exactly what the apply
created (and must delete) and which existing objects it changed."""

from lightkube import ApiError, Client
from lightkube.codecs import from_dict
from pydantic import BaseModel, Field

from kubeproof.generate.live import objects
from kubeproof.generate.model import ObjectRef

MANAGER = "kubeproof-answer"
MESSAGE_LIMIT = 500  # characters of the apiserver's refusal kept


class Refusal(BaseModel):
    object: ObjectRef
    code: int = Field(description="HTTP status of the refusal (403 forbidden, 422 invalid...).")
    message: str = Field(description="The apiserver's refusal text.")


class Applied(BaseModel):
    """What one apply did on the cluster."""

    created: list[ObjectRef] = Field(default_factory=list, description="New objects.")
    changed: list[ObjectRef] = Field(
        default_factory=list, description="Objects that existed before (fixtures or others)."
    )
    deleted: list[ObjectRef] = Field(
        default_factory=list, description="Objects the answer deleted (DELETE, a command)."
    )
    refused: list[Refusal] = Field(default_factory=list)

    @property
    def written(self) -> list[ObjectRef]:
        return self.created + self.changed


def _order(docs: list[dict]) -> list[dict]:
    return [d for d in docs if d.get("kind") == "Namespace"] + [
        d for d in docs if d.get("kind") != "Namespace"
    ]


def apply(evaluator: Client, admin: Client, docs: list[dict]) -> Applied:
    out = Applied()
    seen: set[tuple] = set()
    for doc in _order(docs):
        try:
            ref = objects.ref_of(doc)
            obj = from_dict(doc)
        except (ValueError, TypeError, AttributeError) as exc:
            fallback = ObjectRef(
                api_version=str(doc.get("apiVersion")),
                kind=str(doc["kind"]),
                name=str((doc.get("metadata") or {}).get("name")),
            )
            out.refused.append(Refusal(object=fallback, code=0, message=f"not loadable: {exc}"))
            continue
        existed = objects.key(ref) in seen or objects.read(admin, ref) is not None
        try:
            evaluator.apply(obj, field_manager=MANAGER, force=True)
        except ApiError as exc:
            message = (exc.status.message or str(exc))[:MESSAGE_LIMIT]
            out.refused.append(Refusal(object=ref, code=exc.status.code or 0, message=message))
            continue
        if objects.key(ref) not in seen:
            (out.changed if existed else out.created).append(ref)
            seen.add(objects.key(ref))
    return out


def delete(evaluator: Client, docs: list[dict]) -> Applied:
    """S2 of a DELETE answer: each object it names deleted as the evaluation identity, with
    background propagation as kubectl deletes; one that does not exist is the apiserver's
    404, as `kubectl delete -f` reports it."""
    out = Applied()
    for doc in docs:
        try:
            ref = objects.ref_of(doc)
        except (ValueError, TypeError, AttributeError) as exc:
            fallback = ObjectRef(api_version=str(doc.get("apiVersion")), kind=str(doc["kind"]),
                                 name=str((doc.get("metadata") or {}).get("name")))  # fmt: skip
            out.refused.append(Refusal(object=fallback, code=0, message=f"not loadable: {exc}"))
            continue
        try:
            if objects.delete(evaluator, ref):
                out.deleted.append(ref)
            else:
                out.refused.append(Refusal(object=ref, code=404, message="not found"))
        except ApiError as exc:
            message = (exc.status.message or str(exc))[:MESSAGE_LIMIT]
            out.refused.append(Refusal(object=ref, code=exc.status.code or 0, message=message))
    return out
