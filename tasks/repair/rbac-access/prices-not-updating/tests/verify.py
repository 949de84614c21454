from lightkube.codecs import from_dict

from kubeproof.verify import Result, check, contract

PRICING = "system:serviceaccount:shop:pricing"
PORTAL = "system:serviceaccount:shop:partner-portal"
# pricing's own rules, last year's and this year's, by name
OWN_RULES = [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"],
              "resourceNames": ["price-rules-2025", "price-rules-2026"]}]


def _may_get(ctx, user, configmap):
    """A SubjectAccessReview about one named ConfigMap."""
    ns = user.split(":")[2]
    review = ctx.client.create(from_dict({
        "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
        "spec": {"user": user,
                 "groups": ["system:serviceaccounts", f"system:serviceaccounts:{ns}", "system:authenticated"],
                 "resourceAttributes": {"verb": "get", "resource": "configmaps", "namespace": "shop",
                                        "name": configmap}}}))
    return bool(review.status.allowed)


def _answer(name, user, configmap, allowed, got):
    return Result(f"{name} {user} get configmaps/{configmap}", got == allowed,
                  f"{'may' if got else 'may not'} get configmap {configmap} in shop")


@check
def may_get(ctx, user, configmap):
    """The user may get the named ConfigMap."""
    return _answer("may_get", user, configmap, True, _may_get(ctx, user, configmap))


@contract
def may_not_get(ctx, user, configmap):
    """The user may not get the named ConfigMap (a grant beyond the task)."""
    return _answer("may_not_get", user, configmap, False, _may_get(ctx, user, configmap))


def verify(v):
    # the outcome: pricing, configured for the 2026 rules, may read them, and keeps serving
    v.env("Deployment", "shop", "pricing", "RULES_CONFIGMAP", value="price-rules-2026")
    v.may_get(PRICING, "price-rules-2026")
    v.healthy("shop", "pricing")
    # least privilege by effect: its own rules by name, nothing namespace-wide (no listing,
    # no other ConfigMap), at every point
    v.may_not_get(PRICING, "partner-discounts")
    v.permissions_exact(PRICING, "shop", ["get configmaps price-rules-2026"],
                        optional=["get configmaps price-rules-2025"])
    v.rules_never_beyond("Role", "shop", "pricing", OWN_RULES)
    v.rbac_no_wildcards("shop")
    v.no_new_cluster_rbac()
    # the partner portal keeps exactly its access
    v.may_get(PORTAL, "partner-discounts")
    v.may_not_get(PORTAL, "price-rules-2026")
    v.permissions_exact(PORTAL, "shop", [f"{verb} configmaps partner-discounts"
                                         for verb in ("get", "watch")])
    # only pricing's Role may change; the rules, pricing's configuration and the portal stay
    # as they are, at every point
    v.allow("Role", "shop", "pricing", ["rules"])
    v.only_allowed_changes()
    v.no_bare_pods("shop")
