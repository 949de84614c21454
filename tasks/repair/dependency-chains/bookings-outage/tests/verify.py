def verify(v):
    v.rollout_complete("travel", "bookings-db")
    v.pods_ready("travel", {"app": "bookings-db"}, 1)
    v.pods_ready("travel", {"app": "bookings-api"}, 2)
    v.pods_ready("travel", {"app": "web"}, 2)
    v.connectivity("travel/app=web", "bookings-api:8080")
    v.connectivity("travel/app=bookings-api", "bookings-db:5432")
    # the shape: the Secret as reorganised, read by reference
    v.unchanged("Secret", "travel", "bookings-db")
    v.field_is("Deployment", "travel", "bookings-db",
               "spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.name",
               "bookings-db")
    v.field_is("Service", "travel", "bookings-api", "spec.selector", {"app": "bookings-api"})
    v.uid_preserved("Service", "travel", "bookings-api")
    v.uid_preserved("Deployment", "travel", "bookings-db")
    v.fields_unchanged("Deployment", "travel", "web", ["spec.template.spec.containers[0].env"])
    v.fields_unchanged("Deployment", "travel", "bookings-api",
                       ["spec.template.spec.containers[0].env"])
    for name in ("bookings-backup", "search-db", "search-api"):
        v.unchanged("Deployment", "travel", name)
    v.unchanged("Service", "travel", "search-api")
    v.unchanged("Secret", "travel", "search-db")
    v.exact_resource_set("Service", "travel")
    v.exact_resource_set("Deployment", "travel")
    v.exact_resource_set("Secret", "travel")
    v.no_bare_pods("travel")
