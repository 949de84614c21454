READER = "system:serviceaccount:shop:reporter"
PODS = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}]


def verify(v):
    # the outcome: the report works
    v.rollout_complete("shop", "reporter")
    v.pods_ready("shop", {"app": "reporter"}, 1)
    # least privilege by effect: the reporter reads pods and nothing else, at every point
    v.permissions_exact(READER, "shop", ["get pods", "list pods", "watch pods"])
    v.rules_never_beyond("Role", "shop", "reporter", PODS)
    v.rbac_no_wildcards("shop")
    v.no_new_cluster_rbac()
    # the auditor keeps exactly its access
    v.permissions_exact(
        "system:serviceaccount:shop:auditor", "shop", ["get configmaps", "list configmaps"]
    )
    # only the reporter's Role may change; nothing else in shop, at any point
    v.allow("Role", "shop", "reporter", ["rules"])
    v.only_allowed_changes()
    v.no_bare_pods("shop")
