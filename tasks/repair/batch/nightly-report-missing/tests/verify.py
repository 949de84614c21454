from kubeproof.verify import Result, contract, paths
from kubeproof.verify.checks import read_object
from kubeproof.verify.workloads import pod_spec

NS = "reporting"


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


def verify(v):
    # it runs again from tonight on
    v.field_absent("CronJob", NS, "nightly-report", "spec.suspend")
    # and the missing report was produced, by the nightly report itself
    v.job_complete(NS, "nightly-report-catchup")
    v.env("Job", NS, "nightly-report-catchup", "REPORT_KIND", value="nightly")
    v.runs_as_the_nightly(NS, "nightly-report-catchup", "nightly-report")
    # only the suspension lifts; when and how it runs, and the other jobs, stay as they are
    v.allow("CronJob", NS, "nightly-report", ["spec.suspend"])
    v.allow_new("Job", NS, "nightly-report-catchup")
    v.only_allowed_changes()
    v.no_bare_pods(NS)
