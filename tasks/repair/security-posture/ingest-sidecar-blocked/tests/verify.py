NS = "ingest"
SIDECAR = "spec.template.spec.initContainers[name=log-shipper]"


def verify(v):
    # the outcome: the release is out, sidecar and all, and serving
    v.healthy(NS, "collector")
    v.field_is("Deployment", NS, "collector", f"{SIDECAR}.restartPolicy", "Always")
    v.field_is("Deployment", NS, "collector", f"{SIDECAR}.ports[name=metrics].containerPort", 9102)
    # the shape: a fix may change how the pod and its containers run (securityContext)
    # and the host port of the sidecar's metrics port, and nothing else: the sidecar, its image and
    # metrics port, the collector container, the namespace's Pod Security labels (at every
    # moment, not only at the end), ingest-api and ingest-batch all stay as they were
    v.allow("Deployment", NS, "collector", [
        f"{SIDECAR}.securityContext",
        f"{SIDECAR}.ports[name=metrics].hostPort",
        f"{SIDECAR}.ports[name=metrics].hostIP",
        "spec.template.spec.securityContext",
        "spec.template.spec.containers[name=collector].securityContext",
    ])
    # a rollout paused while the sidecar is edited and resumed once is a way to release;
    # a Deployment left paused is not released
    v.allow("Deployment", NS, "collector", [
        "spec.paused", 'metadata.annotations["kubernetes.io/change-cause"]'])
    v.field_absent("Deployment", NS, "collector", "spec.paused")
    v.only_allowed_changes()
    v.ownership_chain(NS, "collector")
    v.no_bare_pods(NS)
