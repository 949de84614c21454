HEALTHY = ["ingest-2", "ingest-3"]


def verify(v):
    v.rollout_complete("telemetry", "collector")
    v.pods_ready("telemetry", {"app": "collector"}, 2, nodes=HEALTHY)
    v.service_has_ready_endpoints("telemetry", "collector", minimum=2)
    # placed by pool, not by node, and not by tolerating a dead node
    v.field_is("Deployment", "telemetry", "collector", "spec.template.spec.nodeSelector",
               {"pool": "ingest"})
    v.fields_unchanged("Deployment", "telemetry", "collector",
                       ["spec.replicas", "spec.template.spec.containers[0].image",
                        "spec.template.spec.tolerations", "spec.template.spec.affinity"])
    v.uid_preserved("Deployment", "telemetry", "collector")
    for node in ["ingest-1", *HEALTHY, "batch"]:
        v.fields_unchanged("Node", None, node, ["spec.taints", "spec.unschedulable",
                                                "metadata.labels"])
    v.unchanged("Deployment", "telemetry", "gateway")
    v.exact_resource_set("Deployment", "telemetry")
    v.no_bare_pods("telemetry")
