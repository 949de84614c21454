"""Whether a workload's ServiceAccount may make the API calls its model says it makes,
asked of the real apiserver with a SubjectAccessReview."""

from collections.abc import Mapping

from lightkube import AsyncClient
from lightkube.codecs import from_dict

from kubeproof.nodesim import clientlog
from kubeproof.nodesim.catalog import ApiCall
from kubeproof.nodesim.expansion import expand


def service_account(pod: dict) -> tuple[str, str]:
    return pod["metadata"]["namespace"], pod["spec"].get("serviceAccountName") or "default"


def _namespace(pod: dict, call: ApiCall) -> str:
    return pod["metadata"]["namespace"] if call.namespace is None else call.namespace


def object_name(call: ApiCall, env: Mapping[str, str]) -> str | None:
    """The object the call names, `$(VAR)` expanded against the container's env as the
    kubelet expands command and args (expansion.py); an unknown `$(X)` stays as written."""
    return expand(call.name, env) if call.name else None


async def allowed(client: AsyncClient, pod: dict, call: ApiCall, name: str | None = None) -> bool:
    ns, sa = service_account(pod)
    attributes = {"verb": call.verb, "resource": call.resource, "group": call.group}
    if call.subresource:
        attributes["subresource"] = call.subresource
    if namespace := _namespace(pod, call):
        attributes["namespace"] = namespace
    if name:
        # the apiserver's RequestInfo names the object of a get, and of a list or watch
        # with fieldSelector metadata.name (apiserver pkg/endpoints/request/requestinfo.go:
        # 217, 248-250); RBAC matches it against resourceNames
        attributes["name"] = name
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


def forbidden_message(pod: dict, call: ApiCall, name: str | None = None, now: float = 0.0) -> str:
    """What the process logs when the apiserver answers 403 (`log` in the model)."""
    ns, sa = service_account(pod)
    user = f"system:serviceaccount:{ns}:{sa}"
    if call.log is not None:
        error = clientlog.forbidden(
            user, call.verb, call.resource, call.group, call.subresource,
            _namespace(pod, call), name,
        )  # fmt: skip
        if call.log == "reflector":
            return clientlog.reflector_line(now, call.verb, call.group, call.resource, error)
        return call.log.replace("{error}", error)
    resource = call.resource + (f"/{call.subresource}" if call.subresource else "")
    where = (
        f'in the namespace "{_namespace(pod, call)}"'
        if _namespace(pod, call)
        else "at the cluster scope"
    )
    named = f' "{name}"' if name else ""
    return (
        f"failed to {call.verb} {resource}: {resource}{named} is forbidden: User "
        f'"{user}" cannot {call.verb} resource "{resource}" in API '
        f'group "{call.group}" {where}'
    )


def refusal(previous: str | None, pod: dict, call: ApiCall, name: str | None, now: float) -> str:
    """The refusal line; the one already logged while the same call stays refused, so a
    klog line keeps the time of the first refusal and is not logged again at every check
    (the reflector's own retries, backing off from 800 ms to 30 s, are not modelled)."""
    line = forbidden_message(pod, call, name, now)
    if call.log != "reflector" or not previous:
        return line  # no time in it: the same line while the same call is refused
    if previous.partition("] ")[2] == line.partition("] ")[2]:
        return previous
    return line
