READER = "system:serviceaccount:shop:reporter"


def verify(v):
    # the outcome: the report works
    v.pods_ready("shop", {"app": "reporter"}, 1)
    v.permission(READER, "list", "pods", "shop")
    v.permission(READER, "watch", "pods", "shop")
    # least privilege
    v.permission(READER, "list", "secrets", "shop", allowed=False)
    v.rbac_rules_exact(
        "shop", "reporter", [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}]
    )
    v.rbac_no_wildcards("shop")
    v.no_new_cluster_rbac()
    # the same objects, nothing added
    v.uid_preserved("Role", "shop", "reporter")
    v.uid_preserved("Deployment", "shop", "reporter")
    v.exact_resource_set("Role", "shop")
    v.exact_resource_set("RoleBinding", "shop")
    v.unchanged("RoleBinding", "shop", "reporter")
    v.unchanged("Role", "shop", "auditor")
    v.unchanged("RoleBinding", "shop", "auditor")
    v.no_bare_pods("shop")
