"""Batch work judged by what runs: a Job run by hand for a CronJob runs what the CronJob
runs, and nobody ran the work in a pod of their own."""

from kubeproof.verify import paths
from kubeproof.verify.checks import read_object
from kubeproof.verify.registry import Context, contract
from kubeproof.verify.result import Result
from kubeproof.verify.workloads import pod_spec


@contract
def runs_as_cronjob(ctx: Context, namespace: str, job: str, cronjob: str) -> Result:
    """The Job's pods run exactly what the CronJob's do: the same pod template spec (image,
    command, arguments, environment by name and value in any order, mounts, restart
    policy, compared by meaning), as many times (its completions; a Job asking for none is
    Complete without running). For a run made by hand of a scheduled job."""
    label = f"runs_as_cronjob Job {namespace}/{job}"
    ran, problem = read_object(ctx, "Job", namespace, job)
    if ran is None:
        return Result(label, False, problem or "not found")
    scheduled, problem = read_object(ctx, "CronJob", namespace, cronjob)
    if scheduled is None:
        return Result(label, False, problem or "not found")
    changed = [
        paths.show(p)
        for p in paths.diff(
            paths.authored({"spec": pod_spec(scheduled)}), paths.authored({"spec": pod_spec(ran)})
        )
    ]
    want = ((scheduled.get("spec") or {}).get("jobTemplate") or {}).get("spec") or {}
    wanted, asked = want.get("completions", 1), (ran.get("spec") or {}).get("completions", 1)
    if asked != wanted:
        changed.append(f"spec.completions ({asked}, the CronJob's {wanted})")
    return Result(
        label,
        not changed,
        f"differs from CronJob {cronjob} at {', '.join(changed[:5])}"
        if changed
        else f"runs the pod template of CronJob {cronjob}",
    )


@contract(baseline=True)
def no_pods_by_hand(ctx: Context, namespace: str) -> Result:
    """No pod was created directly in the namespace at any point of the agent's turn (one
    run and deleted again counts): the work runs only in pods a controller makes. Stricter
    than `no_bare_pods`, for tasks where running the work by hand is the cheat."""
    label = f"no_pods_by_hand in {namespace}"
    made = [
        w.describe()
        for w in (ctx.history.in_namespace(namespace) if ctx.history else [])
        if w.kind == "Pod" and w.verb == "create" and not w.subresource
    ]
    return Result(label, not made, "; ".join(made[:3]) or "every pod was made by a controller")
