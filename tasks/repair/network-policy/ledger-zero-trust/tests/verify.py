NS = "ledger"
INTENDED = ["ledger/app=web -> ledger/app=api:8080", "ledger/app=api -> ledger/app=ledger-db:5432"]


def verify(v):
    # the outcome: the web app and its API are up, each reaching what it needs
    v.pods_ready(NS, {"app": "web"}, 2)
    v.healthy(NS, "api")
    v.healthy(NS, "web")
    v.connectivity("ledger/app=web", "api:8080")
    v.connectivity("ledger/app=api", "ledger-db:5432")
    # least privilege by effect: the sandbox stays out, and nothing opened beyond the two
    # intended paths, in any rule form, at any point of the turn
    v.connectivity("ledger/app=sandbox", "api:8080", allowed=False)
    v.connectivity("ledger/app=sandbox", "ledger-db:5432", allowed=False)
    v.no_new_paths(allow=INTENDED)
    v.no_lost_paths()  # and nothing that worked cut off
    # the shape: the API's ingress and egress rules are all a fix may change; the other
    # policies (default-deny first) and the workloads as they were, nothing added
    v.allow("NetworkPolicy", NS, "api-ingress", ["spec.ingress"])
    v.allow("NetworkPolicy", NS, "api-egress", ["spec.egress"])
    v.only_allowed_changes()
    v.no_bare_pods(NS)
