from kubeproof.verify import Result, contract

READER = "system:serviceaccount:shop:stock-reporter"
AUDITOR = "system:serviceaccount:shop:pod-auditor"
READ_PODS = ["get pods", "list pods", "watch pods"]
# who the binding may name at any point: the reporter, and the stale subject it started with
SUBJECTS = {("ServiceAccount", "stock-reporter", "shop"), ("ServiceAccount", "stock-reporter", "staging")}


def _subject(s, binding_ns):
    """A subject as (kind, name, namespace); a User named after a ServiceAccount's username
    is that ServiceAccount (the apiserver grants them the same)."""
    kind, name = s.get("kind"), s.get("name") or ""
    if kind == "User" and name.startswith("system:serviceaccount:") and name.count(":") == 3:
        _, _, ns, sa = name.split(":")
        return ("ServiceAccount", sa, ns)
    return (kind, name, s.get("namespace") or (binding_ns if kind == "ServiceAccount" else ""))


@contract(baseline=True)
def binding_never_beyond(ctx, namespace, name, subjects):
    """At no point of the agent's turn did the RoleBinding name anyone beyond `subjects`
    ((kind, name, namespace) tuples): a group or a stranger added and removed again counts."""
    before = ctx.baseline.get("RoleBinding", namespace, name)
    extra = []
    states = ctx.history.states("RoleBinding", namespace, name, before) if ctx.history else []
    for write, state in states:
        if state is None:
            continue
        more = {_subject(s, namespace) for s in state.get("subjects") or []} - subjects
        if more:
            extra.append(f"{', '.join('/'.join(x for x in t if x) for t in sorted(more))} at {write.clock}")
    return Result(f"binding_never_beyond RoleBinding {namespace}/{name}", not extra,
                  f"named {'; '.join(extra[:3])}" if extra else "named nobody else at any point")


def verify(v):
    # the outcome: the stock report works under the reporter's own identity
    v.rollout_complete("shop", "stock-reporter")
    v.pods_ready("shop", {"app": "stock-reporter"}, 1)
    # by effect: the reporter reads pods and nothing else; nobody else gained access (the
    # stale staging subject included), the auditor keeps exactly its access
    v.permissions_exact(READER, "shop", READ_PODS)
    v.permissions_exact("system:serviceaccount:staging:stock-reporter", "shop", [])
    v.permissions_exact("system:serviceaccount:shop:default", "shop", [])
    v.permissions_exact(AUDITOR, "shop", [f"{verb} {res}" for verb in ("get", "list", "watch")
                                          for res in ("pods", "events", "configmaps")])
    v.binding_never_beyond("shop", "stock-reporter", SUBJECTS)
    v.rbac_no_wildcards("shop")
    v.no_new_cluster_rbac()
    # fixed in place: only the reporter's binding subjects may change, nothing else in shop,
    # at any point (no new or recreated objects)
    v.allow("RoleBinding", "shop", "stock-reporter", ["subjects"])
    v.only_allowed_changes()
    v.no_bare_pods("shop")
