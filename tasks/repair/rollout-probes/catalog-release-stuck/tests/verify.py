WEB = "spec.template.spec.containers[name=web]"


def verify(v):
    # the release is out and serving from ready pods
    v.healthy("catalog", "catalog")
    v.pods_ready("catalog", {"app": "catalog"}, 2)
    v.field_equals("Deployment", "catalog", "catalog", f"{WEB}.image", "nginx:1.27.3")
    v.env("Deployment", "catalog", "catalog", "RELEASE", value="2026.11")
    # still gated by an HTTP readiness check; only where it probes (path, port) may change,
    # nothing else in catalog at any point (the release, replicas, search)
    v.field_is("Deployment", "catalog", "catalog", f"{WEB}.readinessProbe.httpGet.path", None)
    v.allow("Deployment", "catalog", "catalog",
            [f"{WEB}.readinessProbe.httpGet.path", f"{WEB}.readinessProbe.httpGet.port"])
    v.only_allowed_changes()
    v.ownership_chain("catalog", "catalog")
    v.no_bare_pods("catalog")
