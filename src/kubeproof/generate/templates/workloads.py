"""The everyday workload types: Deployment, Service, PersistentVolumeClaim,
PodDisruptionBudget, HorizontalPodAutoscaler and CronJob. Each checks the fields the request
names (replicas, images, ports, quantities, policies); images are ones the node simulator
models, so runtime truth can run them: a Deployment's pods become Ready, a Service gets
endpoints on its backing Deployment's pods."""

import random

from kubeproof.generate import vocab
from kubeproof.generate.draft import Draft, meta, namespace_fixture, ref
from kubeproof.generate.model import (
    Check,
    FieldEquals,
    ListContains,
    MapIncludes,
    PodsReady,
    ServiceEndpoints,
    Tier,
)

IMAGES = (("nginx:1.27", 80), ("nginx:1.26-alpine", 80), ("redis:5.0.14-alpine", 6379))


def _app(rng: random.Random) -> tuple[str, str, str]:
    ns, app = vocab.namespace(rng), vocab.app_name(rng)
    return ns, app, ns.split("-")[0]


def _deployment(name: str, ns: str, image: str, replicas: int) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": meta(name, ns, {"app": name}),
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "main", "image": image}]},
            },
        },
    }


def deployment_task(rng: random.Random, tier: Tier) -> Draft:
    ns, app, team = _app(rng)
    image, port = rng.choice(IMAGES)
    replicas = rng.choice((2, 3, 4, 5))
    obj = _deployment(app, ns, image, replicas)
    obj["metadata"] = meta(app, ns)  # the request labels the pods, not the Deployment
    target = ref(obj)
    c = "spec.template.spec.containers[name=main]"
    container = obj["spec"]["template"]["spec"]["containers"][0]
    checks: list[Check] = [
        FieldEquals(target=target, path="spec.replicas", value=replicas),
        FieldEquals(target=target, path=f"{c}.image", value=image),
        MapIncludes(target=target, path="spec.selector.matchLabels", entries={"app": app}),
        MapIncludes(target=target, path="spec.template.metadata.labels", entries={"app": app}),
    ]
    asks = [f"{replicas} replicas of {image} in a container named main", f"pods labelled app={app}"]
    terse = [f"{replicas}x {image} (container main)", f"pods app={app}"]
    if tier is not Tier.easy:
        cpu, memory = rng.choice(("100m", "250m", "500m")), rng.choice(("128Mi", "256Mi"))
        level = vocab.word(rng, vocab.LOG_LEVELS)
        container["ports"] = [{"containerPort": port}]
        container["env"] = [{"name": "LOG_LEVEL", "value": level}]
        container["resources"] = {"requests": {"cpu": cpu, "memory": memory}}
        checks += [
            FieldEquals(target=target, path=f"{c}.ports[0].containerPort", value=port),
            FieldEquals(
                target=target, path=f"{c}.resources.requests.cpu", value=cpu, quantity=True
            ),
            FieldEquals(
                target=target, path=f"{c}.resources.requests.memory", value=memory, quantity=True
            ),
            ListContains(
                target=target, path=f"{c}.env", item={"name": "LOG_LEVEL", "value": level}
            ),
        ]
        asks.append(
            f"exposing container port {port}, requesting cpu {cpu} and memory {memory}, "
            f"with env LOG_LEVEL={level}"
        )
        terse.append(f"port {port}, req {cpu}/{memory}, LOG_LEVEL={level}")
    if tier is Tier.advanced:
        limit = {"128Mi": "256Mi", "256Mi": "512Mi"}[container["resources"]["requests"]["memory"]]
        container["resources"]["limits"] = {"memory": limit}
        container["readinessProbe"] = {"tcpSocket": {"port": port}, "periodSeconds": 5}
        obj["spec"]["strategy"] = {
            "type": "RollingUpdate",
            "rollingUpdate": {"maxUnavailable": 0, "maxSurge": 1},
        }
        checks += [
            FieldEquals(
                target=target, path=f"{c}.resources.limits.memory", value=limit, quantity=True
            ),
            FieldEquals(target=target, path=f"{c}.readinessProbe.tcpSocket.port", value=port),
            FieldEquals(target=target, path=f"{c}.readinessProbe.periodSeconds", value=5),
            FieldEquals(target=target, path="spec.strategy.rollingUpdate.maxUnavailable", value=0),
            FieldEquals(target=target, path="spec.strategy.rollingUpdate.maxSurge", value=1),
        ]
        asks.append(
            f"a memory limit of {limit}, a TCP readiness probe on port {port} every 5 "
            f"seconds, and "
            f"rolling updates that never drop below the replica count "
            f"(maxUnavailable 0, maxSurge 1)"
        )
        terse.append(f"lim mem {limit}, readiness tcp :{port} /5s, maxUnavailable 0 maxSurge 1")
    checks.append(PodsReady(target=target, count=replicas))
    scenario = f"The {team} team deploys {app} to namespace {ns}."
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a Deployment named {app} in namespace {ns}: "
        + "; ".join(asks)
        + ". The namespace already exists.",
        simplified=f"Deployment {app} in {ns}: " + "; ".join(asks) + ".",
        terse=f"deploy {app} -n {ns}: " + ", ".join(terse),
        objects=[obj],
        checks=checks,
        fixtures=[namespace_fixture(ns)],
    )


def service_task(rng: random.Random, tier: Tier) -> Draft:
    ns, app, team = _app(rng)
    image, target_port = rng.choice(IMAGES)
    port = rng.choice((80, 8080, 443 if target_port == 80 else 6379))
    backend = _deployment(app, ns, image, 2)
    ports: list[dict] = [{"name": "main", "port": port, "targetPort": target_port}]
    spec: dict = {"selector": {"app": app}, "ports": ports}
    obj: dict = {"apiVersion": "v1", "kind": "Service", "metadata": meta(app, ns), "spec": spec}
    target = ref(obj)
    checks: list[Check] = [
        MapIncludes(target=target, path="spec.selector", entries={"app": app}),
        ListContains(
            target=target, path="spec.ports", item={"port": port, "targetPort": target_port}
        ),
    ]
    ask = f"port {port} to the pods' port {target_port}, selecting pods labelled app={app}"
    terse = f"{port}->{target_port} sel app={app}"
    if tier is Tier.intermediate:
        spec["type"] = "NodePort"
        ports.append({"name": "metrics", "port": 9090, "targetPort": 9090})
        checks += [
            FieldEquals(target=target, path="spec.type", value="NodePort"),
            ListContains(target=target, path="spec.ports", item={"name": "metrics", "port": 9090}),
        ]
        ask += ", as a NodePort Service, with a second port named metrics on 9090"
        terse += ", type NodePort, + metrics 9090"
    if tier is Tier.advanced:
        spec["clusterIP"] = "None"
        spec["publishNotReadyAddresses"] = True
        obj["metadata"]["labels"] = {"app": app, "team": team}
        checks += [
            FieldEquals(target=target, path="spec.clusterIP", value="None"),
            FieldEquals(target=target, path="spec.publishNotReadyAddresses", value=True),
            MapIncludes(target=target, path="metadata.labels", entries={"team": team}),
        ]
        ask += (
            ", headless (no cluster IP), publishing addresses of pods that are not ready "
            f"yet, labelled team={team}"
        )
        terse += f", headless, publishNotReadyAddresses, label team={team}"
    checks.append(
        ServiceEndpoints(
            target=target, port=port, target_port=target_port, count=2, backing=ref(backend)
        )
    )
    scenario = f"{app} runs in namespace {ns} as the Deployment {app}; clients need a stable name."
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a Service named {app} in {ns} that forwards {ask}.",
        simplified=f"Service {app} in {ns}: {ask}.",
        terse=f"svc {app} -n {ns}: {terse}",
        objects=[obj],
        checks=checks,
        fixtures=[namespace_fixture(ns), backend],
    )


def pvc_task(rng: random.Random, tier: Tier) -> Draft:
    ns, app, team = _app(rng)
    size_gi = rng.choice((1, 2, 5, 10, 20))
    # the advanced tier asks in Mi what the reference writes in Gi: a Quantity, not a string
    size = f"{size_gi}Gi"
    mode = "ReadWriteOncePod" if tier is Tier.advanced else "ReadWriteOnce"
    spec: dict = {"accessModes": [mode], "resources": {"requests": {"storage": size}}}
    name = f"{app}-data"
    obj: dict = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": meta(name, ns),
        "spec": spec,
    }
    target = ref(obj)
    checks: list[Check] = [
        FieldEquals(
            target=target, path="spec.resources.requests.storage", value=size, quantity=True
        ),
        FieldEquals(target=target, path="spec.accessModes", value=[mode]),
    ]
    asked = f"{size_gi * 1024}Mi" if tier is Tier.advanced else size
    ask, terse = f"{asked} of storage, access mode {mode}", f"{asked} {mode}"
    if tier is not Tier.easy:
        spec["storageClassName"] = "local-path"
        obj["metadata"]["labels"] = {"app": app, "team": team}
        checks += [
            FieldEquals(target=target, path="spec.storageClassName", value="local-path"),
            MapIncludes(target=target, path="metadata.labels", entries={"app": app, "team": team}),
        ]
        ask += f", storage class local-path, labelled app={app}, team={team}"
        terse += f" sc local-path labels app={app},team={team}"
    if tier is Tier.advanced:
        spec["volumeMode"] = "Filesystem"
        checks.append(FieldEquals(target=target, path="spec.volumeMode", value="Filesystem"))
        ask += ", volume mode Filesystem"
        terse += " fs"
    scenario = f"{app} in namespace {ns} keeps its state on a volume."
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a PersistentVolumeClaim named {name} in {ns} asking for {ask}.",
        simplified=f"PVC {name} in {ns}: {ask}.",
        terse=f"pvc {name} -n {ns}: {terse}",
        objects=[obj],
        checks=checks,
        fixtures=[namespace_fixture(ns)],
    )


def pdb_task(rng: random.Random, tier: Tier) -> Draft:
    ns, app, team = _app(rng)
    replicas = rng.choice((3, 4, 5))
    spec: dict = {"selector": {"matchLabels": {"app": app}}}
    name = f"{app}-pdb"
    obj: dict = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": meta(name, ns),
        "spec": spec,
    }
    target = ref(obj)
    checks: list[Check] = [
        MapIncludes(target=target, path="spec.selector.matchLabels", entries={"app": app})
    ]
    if tier is Tier.intermediate:
        spec["maxUnavailable"] = "25%"
        checks.append(FieldEquals(target=target, path="spec.maxUnavailable", value="25%"))
        ask, terse = "at most 25% of them unavailable at once", "maxUnavailable 25%"
    else:
        spec["minAvailable"] = replicas - 1
        checks.append(FieldEquals(target=target, path="spec.minAvailable", value=replicas - 1))
        ask, terse = f"at least {replicas - 1} of them available", f"minAvailable {replicas - 1}"
    if tier is Tier.advanced:
        spec["unhealthyPodEvictionPolicy"] = "AlwaysAllow"
        checks.append(
            FieldEquals(target=target, path="spec.unhealthyPodEvictionPolicy", value="AlwaysAllow")
        )
        ask += ", and let pods that are running but not ready be evicted anyway"
        terse += ", unhealthyPodEvictionPolicy AlwaysAllow"
    scenario = (
        f"The {team} team runs {replicas} replicas of {app} (pods labelled app={app}) in "
        f"{ns} and wants node drains to keep it serving."
    )
    return Draft(
        scenario=scenario,
        full=f"{scenario} Create a PodDisruptionBudget named {name} in {ns} for those pods: {ask}.",
        simplified=f"PDB {name} in {ns} for pods app={app}: {ask}.",
        terse=f"pdb {name} -n {ns} app={app}: {terse}",
        objects=[obj],
        checks=checks,
        fixtures=[namespace_fixture(ns), _deployment(app, ns, rng.choice(IMAGES)[0], replicas)],
    )


__all__ = ["deployment_task", "pdb_task", "pvc_task", "service_task"]
