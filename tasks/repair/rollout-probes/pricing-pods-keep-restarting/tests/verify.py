API = "spec.template.spec.containers[name=api]"


def verify(v):
    # the change is rolled out and the API serves from pods that stay up
    v.healthy("pricing", "pricing-api")
    v.pods_ready("pricing", {"app": "pricing-api"}, 2)
    # the change stays as written: the liveness check is there, and only the port it
    # probes may change; nothing else in pricing, at any point (no rollback, no looser
    # timings, no other kind of check, pricing-cache untouched)
    v.field_is("Deployment", "pricing", "pricing-api", f"{API}.livenessProbe.httpGet.path", "/healthz")
    v.allow("Deployment", "pricing", "pricing-api", [f"{API}.livenessProbe.httpGet.port"])
    v.only_allowed_changes()
    v.ownership_chain("pricing", "pricing-api")
    v.no_bare_pods("pricing")
