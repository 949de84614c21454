def verify(v):
    v.rollout_complete("inventory", "inventory-db")
    v.pods_ready("inventory", {"app": "inventory-db"}, 1)
    v.service_has_ready_endpoints("inventory", "inventory-db")
    # the password is still read from the existing Secret
    v.field_is("Deployment", "inventory", "inventory-db",
               "spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.name",
               "db-credential")
    v.field_is("Deployment", "inventory", "inventory-db",
               "spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.key", "password")
    v.uid_preserved("Deployment", "inventory", "inventory-db")
    v.fields_unchanged("Deployment", "inventory", "inventory-db",
                       ["spec.replicas", "spec.template.spec.containers[0].image"])
    v.unchanged("Secret", "inventory", "db-credential")
    v.exact_resource_set("Secret", "inventory")
    v.unchanged("Deployment", "inventory", "inventory-api")
    v.no_bare_pods("inventory")
