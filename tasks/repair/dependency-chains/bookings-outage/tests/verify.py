NS = "travel"
PASSWORD = "spec.template.spec.containers[name=postgres].env[name=POSTGRES_PASSWORD]"


def verify(v):
    # the outcome: the whole bookings chain serves again
    for name in ("bookings-db", "bookings-api", "web"):
        v.healthy(NS, name)
    v.connectivity("travel/app=web", "bookings-api:8080")
    v.connectivity("travel/app=bookings-api", "bookings-db:5432")
    # the database reads its password from the Secret as it is now, by reference, and
    # every reference of the Secret's consumers resolves
    v.env("Deployment", NS, "bookings-db", "POSTGRES_PASSWORD", container="postgres",
          secret=("bookings-db", "postgres-password"))
    v.references_valid("Deployment", NS, "bookings-db")
    v.references_valid("Deployment", NS, "bookings-backup")
    v.field_is("Service", NS, "bookings-api", "spec.selector", {"app": "bookings-api"})
    # the shape: the Service's selector and the key the database reads are all a fix may
    # change; everything else in travel (the Secret, where web and the API connect to, the
    # search stack, the backup) stays as it was throughout, nothing deleted, recreated or added
    v.allow("Service", NS, "bookings-api", ["spec.selector"])
    v.allow("Deployment", NS, "bookings-db", [f"{PASSWORD}.valueFrom.secretKeyRef.key"])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
