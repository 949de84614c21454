from lightkube.codecs import from_dict

from kubeproof.verify.result import Result

PRICING = "system:serviceaccount:shop:pricing"


def may_get(v, configmap, allowed):
    """A SubjectAccessReview for a named ConfigMap (v.permission asks without a name)."""
    review = v.client.create(from_dict({
        "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
        "spec": {"user": PRICING,
                 "groups": ["system:serviceaccounts", "system:serviceaccounts:shop", "system:authenticated"],
                 "resourceAttributes": {"verb": "get", "resource": "configmaps", "namespace": "shop",
                                        "name": configmap}}}))
    got = bool(review.status.allowed)
    v.results.append(Result(f"permission {PRICING} get configmaps/{configmap}", got == allowed,
                            f"{'may' if got else 'may not'} get configmap {configmap} in shop"))


def broken(v):
    # pricing is switched to the 2026 rules but may only read the 2025 ones
    v.field_equals("apps/v1", "Deployment", "pricing", "spec.template.spec.containers[0].env[0].value",
                   "price-rules-2026", namespace="shop")
    may_get(v, "price-rules-2026", False)
    may_get(v, "price-rules-2025", True)
    # it still serves (last year's prices); the partner portal is healthy
    v.rollout_complete("shop", "pricing")
    v.service_has_ready_endpoints("shop", "pricing", minimum=2)
    v.rollout_complete("shop", "partner-portal")
