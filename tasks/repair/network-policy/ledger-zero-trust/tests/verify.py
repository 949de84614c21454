def verify(v):
    v.pods_ready("ledger", {"app": "web"}, 2)
    v.pods_ready("ledger", {"app": "api"}, 2)
    v.connectivity("ledger/app=web", "api:8080")
    v.connectivity("ledger/app=api", "ledger-db:5432")
    # the intruder stays out
    v.connectivity("ledger/app=sandbox", "api:8080", allowed=False)
    v.connectivity("ledger/app=sandbox", "ledger-db:5432", allowed=False)
    # the shape: the same policies, least-privilege peers
    for name in ("default-deny", "allow-dns", "web-egress", "api-ingress", "api-egress",
                 "db-ingress", "sandbox-egress"):
        v.uid_preserved("NetworkPolicy", "ledger", name)
    v.exact_resource_set("NetworkPolicy", "ledger")
    v.unchanged("NetworkPolicy", "ledger", "default-deny")
    v.unchanged("NetworkPolicy", "ledger", "allow-dns")
    v.unchanged("NetworkPolicy", "ledger", "web-egress")
    v.unchanged("NetworkPolicy", "ledger", "db-ingress")
    v.unchanged("NetworkPolicy", "ledger", "sandbox-egress")
    v.field_is("NetworkPolicy", "ledger", "api-ingress",
               "spec.ingress[0].from[0].podSelector.matchLabels.app", "web")
    v.field_is("NetworkPolicy", "ledger", "api-egress",
               "spec.egress[0].to[0].podSelector.matchLabels.app", "ledger-db")
    v.fields_unchanged("NetworkPolicy", "ledger", "api-ingress",
                       ["spec.podSelector", "spec.policyTypes"])
    v.fields_unchanged("NetworkPolicy", "ledger", "api-egress",
                       ["spec.podSelector", "spec.policyTypes"])
    for name in ("web", "api", "ledger-db", "sandbox"):
        v.unchanged("Deployment", "ledger", name)
    v.no_bare_pods("ledger")
