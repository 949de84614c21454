READER = "system:serviceaccount:shop:stock-reporter"


def verify(v):
    # the outcome: the stock report works
    v.pods_ready("shop", {"app": "stock-reporter"}, 1)
    v.permission(READER, "list", "pods", "shop")
    v.permission(READER, "watch", "pods", "shop")
    # least privilege: the reporter reads pods only, and nobody else gains access
    v.permission(READER, "list", "configmaps", "shop", allowed=False)
    v.permission("system:serviceaccount:staging:stock-reporter", "list", "pods", "shop", allowed=False)
    v.permission("system:serviceaccount:shop:default", "list", "pods", "shop", allowed=False)
    v.field_is("RoleBinding", "shop", "stock-reporter", "subjects",
               [{"kind": "ServiceAccount", "name": "stock-reporter", "namespace": "shop"}])
    v.rbac_rules_exact("shop", "stock-reporter",
                       [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}])
    v.rbac_no_wildcards("shop")
    v.no_new_cluster_rbac()
    # the same objects, fixed in place
    v.uid_preserved("RoleBinding", "shop", "stock-reporter")
    v.exact_resource_set("RoleBinding", "shop")
    v.exact_resource_set("Role", "shop")
    v.exact_resource_set("ServiceAccount", "shop")
    v.fields_unchanged("Deployment", "shop", "stock-reporter",
                       ["spec.template.spec.serviceAccountName", "spec.template.spec.containers[0].image"])
    v.unchanged("Role", "shop", "pod-auditor")
    v.unchanged("RoleBinding", "shop", "pod-auditor")
    v.unchanged("Deployment", "shop", "pod-auditor")
    v.no_bare_pods("shop")
