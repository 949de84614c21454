"""Whether a workload's ServiceAccount may make the API calls its model says it makes,
asked of the real apiserver with a SubjectAccessReview."""

from lightkube import AsyncClient
from lightkube.codecs import from_dict

from kubeproof.nodesim.catalog import ApiCall


def service_account(pod: dict) -> tuple[str, str]:
    return pod["metadata"]["namespace"], pod["spec"].get("serviceAccountName") or "default"


def _namespace(pod: dict, call: ApiCall) -> str:
    return pod["metadata"]["namespace"] if call.namespace is None else call.namespace


async def allowed(client: AsyncClient, pod: dict, call: ApiCall) -> bool:
    ns, sa = service_account(pod)
    attributes = {"verb": call.verb, "resource": call.resource, "group": call.group}
    if call.subresource:
        attributes["subresource"] = call.subresource
    if namespace := _namespace(pod, call):
        attributes["namespace"] = namespace
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": f"system:serviceaccount:{ns}:{sa}",
            "groups": [
                "system:serviceaccounts",
                f"system:serviceaccounts:{ns}",
                "system:authenticated",
            ],
            "resourceAttributes": attributes,
        },
    }
    result = await client.create(from_dict(review))
    return bool(result.status and result.status.allowed)


def forbidden_message(pod: dict, call: ApiCall) -> str:
    """What client-go logs when the apiserver answers 403."""
    ns, sa = service_account(pod)
    resource = call.resource + (f"/{call.subresource}" if call.subresource else "")
    where = (
        f'in the namespace "{_namespace(pod, call)}"'
        if _namespace(pod, call)
        else "at the cluster scope"
    )
    return (
        f"failed to {call.verb} {resource}: {resource} is forbidden: User "
        f'"system:serviceaccount:{ns}:{sa}" cannot {call.verb} resource "{resource}" in API '
        f'group "{call.group}" {where}'
    )
