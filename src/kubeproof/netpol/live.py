"""A netpol task on a live cluster: putting its broken objects there (whatever an earlier
task or agent left in the topology's namespaces), waiting until the cluster shows the
broken matrix, and reading back the mismatch report and the open paths from the live
objects after every command."""

import copy
import time
from typing import Any

from lightkube import ApiError, Client
from lightkube.codecs import from_dict
from lightkube.resources.apps_v1 import Deployment
from lightkube.resources.core_v1 import Namespace, Service
from lightkube.resources.networking_v1 import NetworkPolicy

from kubeproof.errors import KubeproofError
from kubeproof.netpol import exposure, materialize, report
from kubeproof.netpol.faults.base import ref
from kubeproof.netpol.tasks import Task, probe_matrix
from kubeproof.netpol.topology import Topology
from kubeproof.netsim import live

KEEP = {"Service/default/kubernetes"}  # the apiserver's own Service
SETTLE_SECONDS = 60.0  # most a turn's end waits for rollouts before the final report


class NotBroken(KubeproofError):
    """The cluster did not reach the task's broken matrix in time: the harness or the
    task is wrong, never the agent."""


def _put(client: Client, obj: dict) -> None:
    """Create the object, or replace what is there with it whole (a PUT: fields an agent
    patched in are gone, as they would not be after an apply). A Service keeps its
    cluster IP, which cannot change."""
    obj = copy.deepcopy(obj)
    meta = obj["metadata"]
    resource: Any = type(from_dict(obj))
    try:
        current = client.get(resource, meta["name"], namespace=meta.get("namespace"))
    except ApiError as exc:
        if exc.status.code != 404:
            raise
        client.create(from_dict(obj))
        return
    meta["resourceVersion"] = current.to_dict()["metadata"]["resourceVersion"]
    if obj["kind"] == "Service":
        obj["spec"]["clusterIP"] = current.spec.clusterIP
        obj["spec"]["clusterIPs"] = current.spec.clusterIPs
    client.replace(from_dict(obj))


def put_objects(client: Client, topology: Topology, objects: list[dict]) -> None:
    """Make the topology's namespaces hold exactly `objects`: the Namespaces, Deployments
    and Services replaced, the NetworkPolicies deleted and created anew, any other
    Deployment, Service or NetworkPolicy there deleted."""
    wanted = {ref(o) for o in objects}
    for obj in objects:
        if obj["kind"] == "Namespace":
            _put(client, obj)
    for ns in topology.namespaces:
        client.deletecollection(NetworkPolicy, namespace=ns.name)
        kinds: tuple[tuple[Any, str], ...] = ((Deployment, "Deployment"), (Service, "Service"))
        for resource, kind in kinds:
            for o in client.list(resource, namespace=ns.name):
                name = o.to_dict()["metadata"]["name"]
                if f"{kind}/{ns.name}/{name}" not in wanted | KEEP:
                    client.delete(resource, name, namespace=ns.name)
    for obj in objects:
        if obj["kind"] == "NetworkPolicy":
            client.create(from_dict(copy.deepcopy(obj)))
        elif obj["kind"] != "Namespace":
            _put(client, obj)


def rolled_out(client: Client, objects: list[dict]) -> bool:
    """Every Deployment of the task has exactly its replicas, all updated and ready (one
    list per namespace, not a request per Deployment)."""
    wanted = {ref(o) for o in objects if o["kind"] == "Deployment"}
    seen = set()
    for namespace in sorted({key.split("/")[1] for key in wanted}):
        for obj in client.list(Deployment, namespace=namespace):
            d = obj.to_dict()
            key = f"Deployment/{namespace}/{d['metadata']['name']}"
            if key not in wanted:
                continue
            want = d["spec"].get("replicas", 1)
            s = d.get("status") or {}
            if s.get("observedGeneration", 0) < d["metadata"].get("generation", 0) or (
                s.get("replicas"),
                s.get("updatedReplicas"),
                s.get("readyReplicas"),
            ) != (want, want, want):
                return False
            seen.add(key)
    return seen == wanted


def read_report(client: Client, topology: Topology, profile: str) -> report.Report:
    """The mismatch report computed by netsim from the objects the cluster holds now."""
    return report.compute(topology, live.read(client), profile)  # type: ignore[arg-type]


def settled_report(
    client: Client, task: Task, topology: Topology, timeout: float = SETTLE_SECONDS
) -> tuple[report.Report, bool]:
    """The report once the task's Deployments have rolled out (or at `timeout`), and whether
    they had: a fix that changes a Deployment (a container port's name) takes effect only
    when its new pods replace the old, which a report read right after the command misses."""
    deadline = time.monotonic() + timeout
    while not (rolled := rolled_out(client, task.objects)) and time.monotonic() < deadline:
        time.sleep(0.25)
    return read_report(client, topology, task.profile), rolled


def setup(client: Client, task: Task, topology: Topology, timeout: float = 120) -> report.Report:
    """Put the task's broken objects on the cluster and wait until they are rolled out and
    the live report shows the broken matrix the task was generated with; that report."""
    put_objects(client, topology, task.objects)
    expected = probe_matrix(topology, {ref(o): o for o in task.objects}, task.profile)
    deadline = time.monotonic() + timeout
    while True:
        now = (
            read_report(client, topology, task.profile)
            if rolled_out(client, task.objects)
            else None
        )
        if now is not None and now.matrix() == expected:
            return now
        if time.monotonic() > deadline:
            differ = (
                sorted(k for k, v in now.matrix().items() if expected.get(k) != v)
                if now is not None
                else ["the Deployments did not roll out"]
            )
            raise NotBroken(
                f"{task.id}: the cluster did not show the broken matrix in {timeout:.0f}s "
                f"({len(differ)} cells differ: {', '.join(differ[:3])})"
            )
        time.sleep(0.25)


def desired(client: Client, topology: Topology) -> list[dict]:
    """What the topology's namespaces declare now (Namespaces, Deployments, Services,
    NetworkPolicies), as manifests."""
    names = [ns.name for ns in topology.namespaces]
    out = []
    for ns in client.list(Namespace):
        if ns.to_dict()["metadata"]["name"] in names:
            out.append(_manifest(ns.to_dict(), "v1", "Namespace"))
    kinds: tuple[tuple[Any, str, str], ...] = (
        (Deployment, "apps/v1", "Deployment"),
        (Service, "v1", "Service"),
        (NetworkPolicy, "networking.k8s.io/v1", "NetworkPolicy"),
    )
    for name in names:
        for resource, api_version, kind in kinds:
            for o in client.list(resource, namespace=name):
                out.append(_manifest(o.to_dict(), api_version, kind))
    return out


def _manifest(obj: dict, api_version: str, kind: str) -> dict:
    meta = obj["metadata"]
    keep = {k: meta[k] for k in ("name", "namespace", "labels") if meta.get(k)}
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": keep,
        "spec": obj.get("spec") or {},
    }


def open_paths(client: Client, topology: Topology) -> set[str]:
    """The paths open now beyond the probes (exposure.py), over what the namespaces
    declare, materialized as the baseline's are, so the two compare like for like."""
    return exposure.paths(topology, materialize.materialize(desired(client, topology)))
