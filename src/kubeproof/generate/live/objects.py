"""Objects of a task read, applied and deleted by (apiVersion, kind, name, namespace) through
lightkube's typed resources, whatever their kind: the generate track's answers and fixtures
hold only built-in kinds, which lightkube's registry knows."""

import json
from typing import Any

from lightkube import ApiError, Client
from lightkube.core.exceptions import LoadResourceError
from lightkube.core.resource import NamespacedResource
from lightkube.core.resource_registry import resource_registry
from lightkube.resources import (
    apps_v1,
    autoscaling_v2,
    batch_v1,
    core_v1,
    discovery_v1,
    networking_v1,
    policy_v1,
    rbac_authorization_v1,
)
from lightkube.types import CascadeType

from kubeproof.generate.model import ObjectRef

DEFAULT_NAMESPACE = "default"  # where kubectl puts a namespaced object that names none


def resource(api_version: str, kind: str) -> Any:
    """The lightkube resource class; ValueError for a kind lightkube does not know."""
    try:
        return resource_registry.load(api_version, kind)
    except (AttributeError, ImportError, LoadResourceError) as exc:
        raise ValueError(f"unknown kind {api_version} {kind}") from exc


def namespaced(api_version: str, kind: str) -> bool:
    return issubclass(resource(api_version, kind), NamespacedResource)


def ref_of(doc: dict) -> ObjectRef:
    """The identity an object gets when applied: a namespaced one that names no namespace
    lands in the default namespace, as kubectl applies it."""
    meta = doc.get("metadata") or {}
    api_version, kind = str(doc.get("apiVersion")), str(doc.get("kind"))
    namespace = meta.get("namespace") or None
    if namespace is None and namespaced(api_version, kind):
        namespace = DEFAULT_NAMESPACE
    return ObjectRef(
        api_version=api_version, kind=kind, name=str(meta.get("name")), namespace=namespace
    )


def key(ref: ObjectRef) -> tuple[str, str, str | None]:
    return ref.kind, ref.name, ref.namespace


def show(ref: ObjectRef) -> str:
    return f"{ref.kind} {ref.namespace + '/' if ref.namespace else ''}{ref.name}"


def read(client: Client, ref: ObjectRef) -> dict | None:
    """The live object as a dict in the API's field names, None if it does not exist."""
    try:
        obj = client.get(resource(ref.api_version, ref.kind), ref.name, namespace=ref.namespace)
    except ApiError as exc:
        if exc.status.code == 404:
            return None
        raise
    return {"apiVersion": ref.api_version, "kind": ref.kind, **obj.to_dict()}


# kinds whose controllers make pods (a CronJob through its Jobs)
WORKLOADS = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob"})


def delete(client: Client, ref: ObjectRef, *, foreground: bool = False) -> bool:
    """Delete with background propagation (a Job's or Deployment's pods go too; the API's
    default for a Job orphans them), or foreground: the object stays, being deleted, until
    the garbage collector has deleted its dependents (a Deployment's ReplicaSets and their
    pods, which the kubelet must stop first), so its going means theirs. False if it was
    already gone."""
    cascade = CascadeType.FOREGROUND if foreground else CascadeType.BACKGROUND
    try:
        client.delete(
            resource(ref.api_version, ref.kind),
            ref.name,
            namespace=ref.namespace,
            cascade=cascade,
        )
    except ApiError as exc:
        if exc.status.code == 404:
            return False
        raise
    return True


def drop_finalizers(client: Client, ref: ObjectRef) -> None:
    """An answer may set finalizers no controller will ever remove: its object (and its
    namespace) would stay Terminating for good. The judge removes them as admin."""
    try:
        client.patch(
            resource(ref.api_version, ref.kind),
            ref.name,
            {"metadata": {"finalizers": None}},
            namespace=ref.namespace,
        )
    except ApiError as exc:
        if exc.status.code != 404:
            raise


# every kind a task's answer or fixtures hold (the evaluation identity's WRITABLE; a test
# keeps them in step): what `inventory` lists to prove that cleanup left nothing behind
INVENTORY = (
    core_v1.Namespace,
    core_v1.ConfigMap,
    core_v1.Secret,
    core_v1.ServiceAccount,
    core_v1.ResourceQuota,
    core_v1.LimitRange,
    core_v1.Service,
    core_v1.PersistentVolumeClaim,
    rbac_authorization_v1.Role,
    rbac_authorization_v1.ClusterRole,
    rbac_authorization_v1.RoleBinding,
    rbac_authorization_v1.ClusterRoleBinding,
    apps_v1.Deployment,
    batch_v1.Job,
    batch_v1.CronJob,
    networking_v1.NetworkPolicy,
    policy_v1.PodDisruptionBudget,
    autoscaling_v2.HorizontalPodAutoscaler,
)


# what controllers make for the workloads and Services (pods on the simulated nodes): the
# answer's doing too, so the inventory lists them
DEPENDENTS = (core_v1.Pod, apps_v1.ReplicaSet, discovery_v1.EndpointSlice)


def inventory(client: Client) -> set[tuple[str, str | None, str]]:
    """(kind, namespace, name) of every object of the INVENTORY kinds and of the
    DEPENDENTS."""
    found = set()
    for res in (*INVENTORY, *DEPENDENTS):
        scope = {"namespace": "*"} if issubclass(res, NamespacedResource) else {}
        for obj in client.list(res, **scope):  # type: ignore[call-overload]
            found.add((res.__name__, obj.metadata.namespace, obj.metadata.name))
    return found


# what the controllers make by themselves in every new namespace: never the answer's doing
_CONTROLLER_MADE = {("ConfigMap", "kube-root-ca.crt"), ("ServiceAccount", "default")}
_VOLATILE = ("resourceVersion", "managedFields", "generation", "uid", "creationTimestamp")


def _digest(obj: dict) -> str:
    """The object as an answer can change it: no status, no bookkeeping, no annotation a
    controller writes (deployment.kubernetes.io/revision)."""
    body = {k: v for k, v in obj.items() if k != "status"}
    meta = {k: v for k, v in (body.get("metadata") or {}).items() if k not in _VOLATILE}
    annotations = {
        k: v for k, v in (meta.get("annotations") or {}).items()
        if not k.startswith("deployment.kubernetes.io/")
    }  # fmt: skip
    meta["annotations"] = annotations
    body["metadata"] = meta
    return json.dumps(body, sort_keys=True, default=str)


def snapshot(client: Client) -> dict[tuple, tuple[ObjectRef, str]]:
    """Every object of the INVENTORY kinds that an answer may have made, changed or
    deleted, by key, with a digest of its content. Objects a controller owns (a CronJob's
    Job) and the per-namespace defaults are left out: the answer did not write them; so are
    objects being deleted, which the controllers keep changing (a namespace's finalizers)."""
    out: dict[tuple, tuple[ObjectRef, str]] = {}
    dying: set[str] = set()  # namespaces being deleted: the controller empties them meanwhile
    for res in INVENTORY:
        info = res._api_info
        group = info.resource.group
        api_version = f"{group}/{info.resource.version}" if group else info.resource.version
        scope = {"namespace": "*"} if issubclass(res, NamespacedResource) else {}
        for obj in client.list(res, **scope):  # type: ignore[call-overload]
            meta = obj.metadata
            if meta.ownerReferences or (res.__name__, meta.name) in _CONTROLLER_MADE:
                continue
            if meta.deletionTimestamp:  # on its way out: deleted, as far as an answer goes
                if res is core_v1.Namespace:
                    dying.add(meta.name)
                continue
            if meta.namespace in dying:
                continue
            ref = ObjectRef(
                api_version=api_version, kind=res.__name__, name=meta.name, namespace=meta.namespace
            )
            out[key(ref)] = (ref, _digest(obj.to_dict()))
    return out


def present(client: Client, ref: ObjectRef) -> bool:
    """It exists and is not on its way out (a deleted namespace stays Terminating a while)."""
    obj = read(client, ref)
    return obj is not None and not (obj.get("metadata") or {}).get("deletionTimestamp")
