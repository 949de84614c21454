"""Kinds a verifier names, resolved to lightkube resources without ceremony: the built-in
ones by name (`"Deployment"`, `"apps/v1/Deployment"`), and custom resources by whatever
their CustomResourceDefinition says — `"Widget"`, `"widgets"`, `"widgets.example.com"` or
`"example.com/v1/Widget"` — looked up in the cluster's CRDs the first time, so a task need
not register a class before `v.field_equals("Widget", "shop", "w1", "spec.mode", "active")`.
"""

from lightkube import Client
from lightkube.core.exceptions import LoadResourceError
from lightkube.core.resource_registry import resource_registry
from lightkube.generic_resource import create_global_resource, create_namespaced_resource
from lightkube.resources.apiextensions_v1 import CustomResourceDefinition

from kubeproof.verify.baseline import split_kind


def _builtin(kind: str):
    try:
        return resource_registry.load(*split_kind(kind))
    except (LoadResourceError, ImportError, ValueError):
        return None


def _served_version(crd: dict) -> str:
    """The storage version, else the first served one: what `kubectl get` shows."""
    versions = crd["spec"].get("versions") or []
    for v in versions:
        if v.get("storage"):
            return v["name"]
    served = [v["name"] for v in versions if v.get("served")]
    return served[0] if served else versions[0]["name"]


def _matches(crd: dict, kind: str) -> bool:
    spec, names = crd["spec"], crd["spec"]["names"]
    group = spec["group"]
    if kind.count("/") == 2:
        g, version, bare = kind.split("/")
        listed = {v["name"] for v in spec.get("versions") or []}
        return g == group and version in listed and bare == names["kind"]
    spelled = {names["kind"], names["plural"], names.get("singular") or ""}
    spelled |= {f"{n}.{group}" for n in (names["plural"], names["kind"])}
    spelled |= set(names.get("shortNames") or [])
    return kind in spelled


def _register(crd: dict, version: str | None = None):
    spec, names = crd["spec"], crd["spec"]["names"]
    make = create_namespaced_resource if spec["scope"] == "Namespaced" else create_global_resource
    version = version or _served_version(crd)
    try:
        return make(spec["group"], version, names["kind"], names["plural"])
    except ValueError:  # another cluster of this process defined it with another scope
        return resource_registry.get(f"{spec['group']}/{version}", names["kind"])


def resolve(client: Client, kind: str):
    """The lightkube resource class of `kind`, or None when neither Kubernetes nor a CRD of
    the cluster knows it."""
    found = _builtin(kind)
    if found is not None:
        return found
    for obj in client.list(CustomResourceDefinition):
        crd = obj.to_dict()
        if _matches(crd, kind):
            version = kind.split("/")[1] if kind.count("/") == 2 else None
            return _register(crd, version)
    return None


def custom_kinds(client: Client) -> list[tuple[str, object]]:
    """("group/version/Kind", resource) of every namespaced custom resource the cluster
    serves, for the baseline."""
    out = []
    for obj in client.list(CustomResourceDefinition):
        crd = obj.to_dict()
        if crd["spec"]["scope"] != "Namespaced":
            continue
        version = _served_version(crd)
        name = f"{crd['spec']['group']}/{version}/{crd['spec']['names']['kind']}"
        out.append((name, _register(crd, version)))
    return sorted(out, key=lambda pair: pair[0])
