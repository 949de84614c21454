def verify(v):
    v.rollout_complete("ingest", "collector")
    v.pods_ready("ingest", {"app": "collector"}, 2)
    v.service_has_ready_endpoints("ingest", "collector")
    # the shape: the release with its sidecar and metrics port, in a restricted namespace
    v.unchanged("Namespace", None, "ingest")
    v.uid_preserved("Deployment", "ingest", "collector")
    v.field_is("Deployment", "ingest", "collector",
               "spec.template.spec.initContainers[0].name", "log-shipper")
    v.fields_unchanged("Deployment", "ingest", "collector",
                       ["spec.template.spec.initContainers[0].image",
                        "spec.template.spec.initContainers[0].restartPolicy",
                        "spec.template.spec.initContainers[0].ports[0].containerPort",
                        "spec.template.spec.containers"])
    v.no_bare_pods("ingest")
    v.exact_resource_set("Deployment", "ingest")
    v.unchanged("Deployment", "ingest", "ingest-api")
    v.unchanged("Deployment", "ingest", "ingest-batch")
