NS = "reports"


def verify(v):
    # the outcome: report-builder runs from its Deployment, configured as before
    v.rollout_complete(NS, "report-builder")
    v.pods_ready(NS, {"app": "report-builder"}, 2)
    v.env("Deployment", NS, "report-builder", "REPORT_BUCKET", "s3://acme-reports",
          container="builder")
    # the shape: only how the pods run (pod and container securityContext) may change;
    # the namespace's Pod Security labels (at every moment), the image, env, replicas,
    # report-api and report-scheduler stay as they were; no copies, no pods by hand
    v.allow("Deployment", NS, "report-builder", [
        "spec.template.spec.securityContext",
        "spec.template.spec.containers[name=builder].securityContext",
    ])
    # a rollout paused while the pods are hardened and resumed once is a way to release;
    # a Deployment left paused is not released
    v.allow("Deployment", NS, "report-builder", [
        "spec.paused", 'metadata.annotations["kubernetes.io/change-cause"]'])
    v.field_absent("Deployment", NS, "report-builder", "spec.paused")
    v.only_allowed_changes()
    v.ownership_chain(NS, "report-builder")
    v.no_bare_pods(NS)
