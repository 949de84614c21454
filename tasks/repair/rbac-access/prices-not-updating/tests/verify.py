from lightkube.codecs import from_dict

from kubeproof.verify.result import Result

PRICING = "system:serviceaccount:shop:pricing"
RULE = {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get"]}


def may_get(v, user, configmap, allowed, kind="check"):
    """A SubjectAccessReview for a named ConfigMap (v.permission asks without a name)."""
    ns = user.split(":")[2]
    review = v.client.create(from_dict({
        "apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview",
        "spec": {"user": user,
                 "groups": ["system:serviceaccounts", f"system:serviceaccounts:{ns}", "system:authenticated"],
                 "resourceAttributes": {"verb": "get", "resource": "configmaps", "namespace": "shop",
                                        "name": configmap}}}))
    got = bool(review.status.allowed)
    v.results.append(Result(f"permission {user} get configmaps/{configmap}", got == allowed,
                            f"{'may' if got else 'may not'} get configmap {configmap} in shop", kind))


def rules_exact_either(v, namespace, name, options):
    """rbac_rules_exact, satisfied by any of the given rule sets (reported against the first)."""
    for rules in options:
        result = v.rbac_rules_exact(namespace, name, rules)
        if result.passed:
            return
        v.results.remove(result)
    v.rbac_rules_exact(namespace, name, options[0])


def verify(v):
    # the outcome: pricing may read the 2026 rules it is configured with
    may_get(v, PRICING, "price-rules-2026", True)
    v.rollout_complete("shop", "pricing")
    v.pods_ready("shop", {"app": "pricing"}, 2)
    # still by name: no other ConfigMap, no listing
    may_get(v, PRICING, "partner-discounts", False, kind="contract")
    v.permission(PRICING, "list", "configmaps", "shop", allowed=False)
    rules_exact_either(v, "shop", "pricing", [
        [RULE | {"resourceNames": ["price-rules-2026"]}],
        [RULE | {"resourceNames": ["price-rules-2025", "price-rules-2026"]}],
    ])
    v.rbac_no_wildcards("shop")
    v.no_new_cluster_rbac()
    # the same objects; the rules and the rollover stay as published
    v.uid_preserved("Role", "shop", "pricing")
    v.exact_resource_set("Role", "shop")
    v.exact_resource_set("RoleBinding", "shop")
    v.exact_resource_set("ConfigMap", "shop")
    v.unchanged("RoleBinding", "shop", "pricing")
    v.fields_unchanged("Deployment", "shop", "pricing",
                       ["spec.template.spec.containers[0].env", "spec.template.spec.serviceAccountName"])
    v.unchanged("ConfigMap", "shop", "price-rules-2025")
    v.unchanged("ConfigMap", "shop", "price-rules-2026")
    v.unchanged("ConfigMap", "shop", "partner-discounts")
    v.unchanged("Role", "shop", "partner-portal")
    v.unchanged("RoleBinding", "shop", "partner-portal")
    may_get(v, "system:serviceaccount:shop:partner-portal", "partner-discounts", True)
    v.no_bare_pods("shop")
