def verify(v):
    v.rollout_complete("reports", "report-builder")
    v.pods_ready("reports", {"app": "report-builder"}, 2)
    # the shape: the namespace still enforces restricted, the Deployment runs the pods
    v.unchanged("Namespace", None, "reports")
    v.uid_preserved("Deployment", "reports", "report-builder")
    v.fields_unchanged("Deployment", "reports", "report-builder",
                       ["spec.replicas", "spec.template.spec.containers[0].image",
                        "spec.template.spec.containers[0].env"])
    v.ownership_chain("reports", "report-builder")
    v.no_bare_pods("reports")
    v.exact_resource_set("Deployment", "reports")
    v.unchanged("Deployment", "reports", "report-api")
    v.unchanged("Deployment", "reports", "report-scheduler")
