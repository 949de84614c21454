from lightkube.codecs import from_dict

from kubeproof.verify import Result, check

PRICING = "system:serviceaccount:shop:pricing"


@check
def may_get(ctx, configmap, allowed=True):
    """A SubjectAccessReview for pricing about one named ConfigMap."""
    review = ctx.client.create(from_dict({
        "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
        "spec": {"user": PRICING,
                 "groups": ["system:serviceaccounts", "system:serviceaccounts:shop", "system:authenticated"],
                 "resourceAttributes": {"verb": "get", "resource": "configmaps", "namespace": "shop",
                                        "name": configmap}}}))
    got = bool(review.status.allowed)
    return Result(f"may_get {PRICING} configmaps/{configmap}", got == allowed,
                  f"{'may' if got else 'may not'} get configmap {configmap} in shop")


def broken(v):
    # pricing is switched to the 2026 rules but may only read the 2025 ones
    v.env("Deployment", "shop", "pricing", "RULES_CONFIGMAP", value="price-rules-2026")
    v.may_get("price-rules-2026", allowed=False)
    v.may_get("price-rules-2025")
    # it still serves (last year's prices); the partner portal is healthy
    v.healthy("shop", "pricing")
    v.rollout_complete("shop", "partner-portal")
