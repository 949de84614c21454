from kubeproof.verify import Result, contract, paths
from kubeproof.verify.checks import read_object
from kubeproof.verify.workloads import pod_spec

NS = "ledger"


@contract
def runs_as_the_nightly(ctx, namespace, job, cronjob):
    """The Job's pods run exactly what the CronJob's do: the same pod template spec (image,
    command, arguments, environment by name and value in any order, mounts, restart policy,
    compared by meaning), and as many times as the nightly's Job runs (its completions)."""
    label = f"runs_as_the_nightly Job {namespace}/{job}"
    ran, problem = read_object(ctx, "Job", namespace, job)
    if ran is None:
        return Result(label, False, problem or "not found")
    nightly, problem = read_object(ctx, "CronJob", namespace, cronjob)
    if nightly is None:
        return Result(label, False, problem or "not found")
    changed = [
        paths.show(p)
        for p in paths.diff(
            paths.authored({"spec": pod_spec(nightly)}), paths.authored({"spec": pod_spec(ran)})
        )
    ]
    # and as many times: a Job asking for zero completions is Complete without running
    want = ((nightly.get("spec") or {}).get("jobTemplate") or {}).get("spec") or {}
    wanted, asked = want.get("completions", 1), (ran.get("spec") or {}).get("completions", 1)
    if asked != wanted:
        changed.append(f"spec.completions ({asked}, the nightly's {wanted})")
    return Result(
        label,
        not changed,
        f"differs from CronJob {cronjob} at {', '.join(changed[:5])}"
        if changed
        else f"runs the pod template of CronJob {cronjob}",
    )


@contract(baseline=True)
def no_pods_by_hand(ctx, namespace):
    """No pod was created by hand in the namespace at any point of the agent's turn (one run
    and deleted again counts): the export runs only in a Job, whose pods its controller makes."""
    made = [w.describe() for w in (ctx.history.in_namespace(namespace) if ctx.history else [])
            if w.kind == "Pod" and w.verb == "create" and not w.subresource]
    return Result(f"no_pods_by_hand in {namespace}", not made,
                  "; ".join(made[:3]) or "every pod was made by a controller")


def verify(v):
    # the backfill ran to completion
    v.job_complete(NS, "ledger-backfill")
    v.env("Job", NS, "ledger-backfill", "EXPORT_REGION", value="eu-west-1")
    v.env("Job", NS, "ledger-backfill", "EXPORT_BUCKET", value="s3://acme-ledger-exports")
    # as the nightly runs it, under the Job's own name (a Job's template cannot change: it
    # may be deleted and made again); nothing else in the namespace changes
    v.runs_as_the_nightly(NS, "ledger-backfill", "ledger-export")
    v.allow("Job", NS, "ledger-backfill", ["**"], delete=True)
    v.only_allowed_changes()
    v.no_bare_pods(NS)
    v.no_pods_by_hand(NS)
