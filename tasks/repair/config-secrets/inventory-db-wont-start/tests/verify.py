NS = "inventory"
POSTGRES = "spec.template.spec.containers[name=postgres]"


def verify(v):
    # the database is up and serving
    v.healthy(NS, "inventory-db")
    # its password comes from the existing Secret, by name and key, however it is referenced
    v.env("Deployment", NS, "inventory-db", "POSTGRES_PASSWORD", container="postgres",
          secret=("db-credential", "password"))
    v.references_valid("Deployment", NS, "inventory-db")
    # the password is never written out in plain text, not even for a moment
    v.secrets_not_copied(NS)
    # only how the variable is sourced may change; no new Secrets, the rest as it is
    v.allow("Deployment", NS, "inventory-db",
            [f"{POSTGRES}.env[name=POSTGRES_PASSWORD]", f"{POSTGRES}.envFrom"])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
