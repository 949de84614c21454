def verify(v):
    v.rollout_complete("payments", "payments")
    v.pods_ready("payments", {"app": "payments"}, 1)
    # every consumer's reference resolves again, so payments-audit survives its next restart
    v.field_equals("v1", "ConfigMap", "payments-config", "data.queue-url", "redis://queue:6379",
                   namespace="payments")
    # the shape: the shared ConfigMap keeps its keys and stays the source of the config
    v.uid_preserved("ConfigMap", "payments", "payments-config")
    v.fields_unchanged("ConfigMap", "payments", "payments-config", ["data.queue_url", "data.mode"])
    v.field_is("Deployment", "payments", "payments",
               "spec.template.spec.containers[0].env[0].valueFrom.configMapKeyRef.name",
               "payments-config")
    v.uid_preserved("Deployment", "payments", "payments")
    v.unchanged("Deployment", "payments", "payments-audit")
    v.exact_resource_set("ConfigMap", "payments")
    v.no_bare_pods("payments")
