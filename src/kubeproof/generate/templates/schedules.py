"""HorizontalPodAutoscaler (autoscaling/v2), CronJob and Job: targets, bounds, metrics, schedules
and the policies operators most often get wrong (concurrency, history, deadlines)."""

import random

from kubeproof.generate import vocab
from kubeproof.generate.draft import Draft, meta, namespace_fixture, ref
from kubeproof.generate.model import Check, FieldEquals, ListContains, PodsReady, Tier
from kubeproof.generate.templates.workloads import IMAGES, _app, _deployment

SCHEDULES = (
    ("0 2 * * *", "every day at 02:00"),
    ("*/15 * * * *", "every 15 minutes"),
    ("0 * * * *", "at the start of every hour"),
    ("30 6 * * 1", "every Monday at 06:30"),
    ("0 0 1 * *", "at midnight on the first of every month"),
)
ZONES = ("Europe/Berlin", "America/New_York", "Asia/Tokyo", "UTC")


def _resource_metric(name: str, target: dict) -> dict:
    return {"type": "Resource", "resource": {"name": name, "target": target}}


def hpa_task(rng: random.Random, tier: Tier) -> Draft:
    ns, app, team = _app(rng)
    low, high = rng.choice((1, 2, 3)), rng.choice((5, 8, 10, 20))
    cpu = rng.choice((50, 60, 70, 80))
    metrics = [_resource_metric("cpu", {"type": "Utilization", "averageUtilization": cpu})]
    spec: dict = {
        "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": app},
        "minReplicas": low,
        "maxReplicas": high,
        "metrics": metrics,
    }
    obj = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": meta(app, ns),
        "spec": spec,
    }
    target = ref(obj)
    checks: list[Check] = [
        FieldEquals(target=target, path="spec.scaleTargetRef.kind", value="Deployment"),
        FieldEquals(target=target, path="spec.scaleTargetRef.name", value=app),
        FieldEquals(target=target, path="spec.minReplicas", value=low),
        FieldEquals(target=target, path="spec.maxReplicas", value=high),
        ListContains(target=target, path="spec.metrics", item=metrics[0]),
    ]
    ask = f"between {low} and {high} replicas, targeting {cpu}% average CPU utilisation"
    terse = f"{low}-{high}, cpu {cpu}%"
    if tier is not Tier.easy:
        memory = rng.choice(("200Mi", "300Mi", "500Mi"))
        metrics.append(_resource_metric("memory", {"type": "AverageValue", "averageValue": memory}))
        checks.append(ListContains(target=target, path="spec.metrics", item=metrics[1]))
        ask += f" and {memory} average memory per pod"
        terse += f", mem avg {memory}"
    if tier is Tier.advanced:
        window = rng.choice((120, 300, 600))
        spec["behavior"] = {"scaleDown": {"stabilizationWindowSeconds": window}}
        checks.append(
            FieldEquals(
                target=target,
                path="spec.behavior.scaleDown.stabilizationWindowSeconds",
                value=window,
            )
        )
        ask += f"; when scaling down, look back over {window} seconds before removing pods"
        terse += f", scaleDown window {window}s"
    scenario = f"The {team} team's {app} Deployment in {ns} sees daily traffic peaks."
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a HorizontalPodAutoscaler (autoscaling/v2) named {app} in {ns} "
        f"for the Deployment {app}: {ask}.",
        simplified=f"HPA {app} in {ns} for deployment {app}: {ask}.",
        terse=f"hpa {app} -n {ns}: {terse}",
        objects=[obj],
        checks=checks,
        fixtures=[namespace_fixture(ns), _deployment(app, ns, rng.choice(IMAGES)[0], low)],
    )


def cronjob_task(rng: random.Random, tier: Tier) -> Draft:
    ns, app, team = _app(rng)
    schedule, when = rng.choice(SCHEDULES)
    task = rng.choice(("backup", "report", "cleanup", "sync"))
    name = f"{app}-{task}"
    command = ["sh", "-c", f"echo {task} started"]
    pod: dict = {
        "restartPolicy": "OnFailure",
        "containers": [{"name": task, "image": "busybox:1.36", "command": command}],
    }
    spec: dict = {"schedule": schedule, "jobTemplate": {"spec": {"template": {"spec": pod}}}}
    obj = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta(name, ns), "spec": spec}
    target = ref(obj)
    c = f"spec.jobTemplate.spec.template.spec.containers[name={task}]"
    checks: list[Check] = [
        FieldEquals(target=target, path="spec.schedule", value=schedule),
        FieldEquals(target=target, path=f"{c}.image", value="busybox:1.36"),
        FieldEquals(target=target, path=f"{c}.command", value=command),
    ]
    ask = (
        f"runs {when} (schedule {schedule}) a container named {task} from busybox:1.36 "
        f'running `sh -c "echo {task} started"`, restarting on failure'
    )
    terse = f"'{schedule}' busybox:1.36 sh -c 'echo {task} started'"
    if tier is not Tier.easy:
        keep = rng.choice((1, 3, 5))
        spec["concurrencyPolicy"] = "Forbid"
        spec["successfulJobsHistoryLimit"] = keep
        checks += [
            FieldEquals(target=target, path="spec.concurrencyPolicy", value="Forbid"),
            FieldEquals(target=target, path="spec.successfulJobsHistoryLimit", value=keep),
        ]
        ask += f"; a run must never overlap the previous one; keep {keep} successful jobs"
        terse += f", no overlap, keep {keep} ok"
    if tier is Tier.advanced:
        zone, backoff = vocab.word(rng, ZONES), rng.choice((1, 2, 4))
        deadline = rng.choice((300, 600, 1800))
        spec["timeZone"] = zone
        spec["jobTemplate"]["spec"] |= {"backoffLimit": backoff, "activeDeadlineSeconds": deadline}
        checks += [
            FieldEquals(target=target, path="spec.timeZone", value=zone),
            FieldEquals(target=target, path="spec.jobTemplate.spec.backoffLimit", value=backoff),
            FieldEquals(
                target=target, path="spec.jobTemplate.spec.activeDeadlineSeconds", value=deadline
            ),
        ]
        ask += (
            f"; the schedule is in time zone {zone}; a job retries at most {backoff} times "
            f"and is stopped after {deadline} seconds"
        )
        terse += f", tz {zone}, backoffLimit {backoff}, deadline {deadline}s"
    scenario = f"The {team} team needs a recurring {task} job for {app} in {ns}."
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a CronJob named {name} in {ns} that {ask}.",
        simplified=f"CronJob {name} in {ns}: {ask}.",
        terse=f"cronjob {name} -n {ns}: {terse}",
        objects=[obj],
        checks=checks,
        fixtures=[namespace_fixture(ns)],
    )


def job_task(rng: random.Random, tier: Tier) -> Draft:
    ns, app, team = _app(rng)
    work = rng.choice(("migrate", "reindex", "import", "export"))
    name = f"{app}-{work}"
    command = ["sh", "-c", f"echo {work} done"]
    pod: dict = {
        "restartPolicy": "Never",
        "containers": [{"name": work, "image": "busybox:1.36", "command": command}],
    }
    spec: dict = {"template": {"spec": pod}}
    obj = {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta(name, ns), "spec": spec}
    target = ref(obj)
    c = f"spec.template.spec.containers[name={work}]"
    checks: list[Check] = [
        FieldEquals(target=target, path=f"{c}.image", value="busybox:1.36"),
        FieldEquals(target=target, path=f"{c}.command", value=command),
        FieldEquals(target=target, path="spec.template.spec.restartPolicy", value="Never"),
    ]
    ask = (
        f"runs once a container named {work} from busybox:1.36 running "
        f'`sh -c "echo {work} done"`, never restarting the container in place'
    )
    terse = f"busybox:1.36 sh -c 'echo {work} done', restartPolicy Never"
    if tier is not Tier.easy:
        completions, parallel = rng.choice((4, 6, 10)), rng.choice((2, 3))
        backoff = rng.choice((0, 2, 3))
        spec |= {"completions": completions, "parallelism": parallel, "backoffLimit": backoff}
        checks += [
            FieldEquals(target=target, path=f"spec.{k}", value=spec[k])
            for k in ("completions", "parallelism", "backoffLimit")
        ]
        ask += (
            f"; it must complete {completions} times, {parallel} pods at a time, and give "
            f"up after {backoff} retries"
        )
        terse += f", completions {completions} parallelism {parallel} backoffLimit {backoff}"
    if tier is Tier.advanced:
        ttl = rng.choice((60, 300, 3600))
        spec |= {"completionMode": "Indexed", "ttlSecondsAfterFinished": ttl}
        checks += [
            FieldEquals(target=target, path="spec.completionMode", value="Indexed"),
            FieldEquals(target=target, path="spec.ttlSecondsAfterFinished", value=ttl),
        ]
        ask += (
            f"; each pod gets its own completion index; the finished Job is deleted "
            f"{ttl} seconds after it ends"
        )
        terse += f", Indexed, ttl {ttl}s"
    # the Job runs to its completions, a few pods at a time: longer than a rollout
    checks.append(PodsReady(target=target, count=spec.get("completions", 1), timeout_seconds=180))
    scenario = f"The {team} team has a one-off {work} to run for {app} in {ns}."
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a Job named {name} in {ns} that {ask}.",
        simplified=f"Job {name} in {ns}: {ask}.",
        terse=f"job {name} -n {ns}: {terse}",
        objects=[obj],
        checks=checks,
        fixtures=[namespace_fixture(ns)],
    )
