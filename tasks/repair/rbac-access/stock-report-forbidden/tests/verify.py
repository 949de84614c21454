READER = "system:serviceaccount:shop:stock-reporter"
AUDITOR = "system:serviceaccount:shop:pod-auditor"
READ_PODS = ["get pods", "list pods", "watch pods"]
# who the binding may name at any point: the reporter, and the stale subject it started with
SUBJECTS = [{"kind": "ServiceAccount", "name": "stock-reporter", "namespace": ns}
            for ns in ("shop", "staging")]


def verify(v):
    # the outcome: the stock report works under the reporter's own identity
    v.rollout_complete("shop", "stock-reporter")
    v.pods_ready("shop", {"app": "stock-reporter"}, 1)
    # by effect: the reporter reads pods and nothing else; nobody else gained access (the
    # stale staging subject included), the auditor keeps exactly its access
    v.permissions_exact(READER, "shop", READ_PODS)
    v.permissions_exact("system:serviceaccount:staging:stock-reporter", "shop", [])
    v.permissions_exact("system:serviceaccount:shop:default", "shop", [])
    v.permissions_exact(AUDITOR, "shop", [f"{verb} {res}" for verb in ("get", "list", "watch")
                                          for res in ("pods", "events", "configmaps")])
    v.subjects_never_beyond("RoleBinding", "shop", "stock-reporter", SUBJECTS)
    v.rbac_no_wildcards("shop")
    v.no_new_cluster_rbac()
    # fixed in place: only the reporter's binding subjects may change, nothing else in shop,
    # at any point (no new or recreated objects)
    v.allow("RoleBinding", "shop", "stock-reporter", ["subjects"])
    v.only_allowed_changes()
    v.no_bare_pods("shop")
