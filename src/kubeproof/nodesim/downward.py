"""Downward API values as a v1.36.3 kubelet computes them, for env (`fieldRef`,
`resourceFieldRef`) and for downwardAPI volume files.

Sources (k8s.io/kubernetes v1.36.3): pkg/kubelet/kubelet_pods.go:989-1038
(`podFieldSelectorRuntimeValue`, `containerResourceRuntimeValue`), pkg/fieldpath/fieldpath.go
(`ExtractFieldPathAsString`, `FormatMap`), pkg/api/v1/resource/helpers.go:105-170 (values
rounded up to the divisor), pkg/kubelet/kubelet_resources.go:39-76 (no limit: the node's
allocatable, or the pod-level limit)."""

import json
import math
import re
from decimal import Decimal

from kubeproof.nodesim.quantity import parse

_SUBSCRIPT = re.compile(r"^(metadata\.(?:labels|annotations))\['(.*)'\]$")
DOWNWARD_RESOURCES = ("cpu", "memory", "ephemeral-storage")


class DownwardError(Exception):
    """The kubelet refused the reference; the message is its own."""


def format_map(values: dict[str, str]) -> str:
    """fieldpath.FormatMap (fieldpath.go:30-51): sorted `key="value"` lines (Go %q quoting),
    no trailing newline."""
    return "\n".join(f"{key}={_go_quote(values[key])}" for key in sorted(values))


def _go_quote(text: str) -> str:
    # strconv.Quote and JSON agree on printable text, quotes, backslashes, \n \t \r; JSON's
    # \u escapes for other control characters differ only in letter case from Go's \x
    return json.dumps(text, ensure_ascii=False)


def field_value(pod: dict, path: str, pod_ips: list[str], host_ips: list[str]) -> str:
    """podFieldSelectorRuntimeValue (kubelet_pods.go:989-1028) for env; the volume plugin
    reaches only the metadata fields through `metadata_value`."""
    spec = pod["spec"]
    match path:
        case "spec.nodeName":
            return spec.get("nodeName", "")
        case "spec.serviceAccountName":
            return spec.get("serviceAccountName", "")
        case "status.hostIP":
            return host_ips[0] if host_ips else ""
        case "status.hostIPs":
            return ",".join(host_ips)
        case "status.podIP":
            return pod_ips[0] if pod_ips else ""
        case "status.podIPs":
            return ",".join(pod_ips)
    return metadata_value(pod, path)


def metadata_value(pod: dict, path: str) -> str:
    """ExtractFieldPathAsString (fieldpath.go:56-93)."""
    meta = pod["metadata"]
    if m := _SUBSCRIPT.match(path):
        field = "labels" if m.group(1) == "metadata.labels" else "annotations"
        return (meta.get(field) or {}).get(m.group(2), "")
    match path:
        case "metadata.annotations":
            return format_map(meta.get("annotations") or {})
        case "metadata.labels":
            return format_map(meta.get("labels") or {})
        case "metadata.name" | "metadata.namespace" | "metadata.uid":
            return meta.get(path.split(".")[1], "")
    raise DownwardError(f"unsupported fieldPath: {path}")


def defaulted_limits(
    pod: dict, container: dict, allocatable: dict[str, str], pod_level: bool = True
) -> dict[str, str]:
    """defaultPodLimitsForDownwardAPI (kubelet_resources.go:39-76): the container's limits,
    each missing one taken from the pod-level limit (PodLevelResources, beta and on in 1.36),
    else the node's allocatable (MergeContainerResourceLimits, helpers.go:189-204). Volumes
    skip the pod-level step (`ExtractResourceValueByContainerNameAndNodeAllocatable`,
    helpers.go:90-101)."""
    fallback = dict(allocatable)
    pod_limits = ((pod["spec"].get("resources") or {}).get("limits")) or {} if pod_level else {}
    for name in DOWNWARD_RESOURCES:
        if name in pod_limits and parse(pod_limits[name]) != 0 and name in fallback:
            fallback[name] = pod_limits[name]
    limits = dict(((container.get("resources") or {}).get("limits")) or {})
    for name, value in fallback.items():
        limits.setdefault(name, value)
    return limits


def _ceil_div(value: Decimal, divisor: Decimal) -> str:
    return str(math.ceil(value / divisor))


def resource_value(
    ref: dict,
    pod: dict,
    container: dict | None,
    allocatable: dict[str, str],
    pod_level: bool = True,
) -> str:
    """containerResourceRuntimeValue / ExtractContainerResourceValue (helpers.go:105-170):
    the value divided by the divisor (default 1) and rounded up; CPU in whole millicores
    first (Quantity.MilliValue), memory and storage in whole bytes (Quantity.Value)."""
    if name := ref.get("containerName"):
        all_containers = [*(pod["spec"].get("containers") or [])]
        all_containers += pod["spec"].get("initContainers") or []
        container = next((c for c in all_containers if c["name"] == name), None)
        if container is None:
            raise DownwardError(f"container {name} not found")
    assert container is not None
    kind, _, resource = ref["resource"].partition(".")
    if kind == "limits":
        values = defaulted_limits(pod, container, allocatable, pod_level)
    else:
        values = ((container.get("resources") or {}).get("requests")) or {}
    if resource not in DOWNWARD_RESOURCES or kind not in ("limits", "requests"):
        raise DownwardError(f"unsupported container resource : {ref['resource']}")
    quantity = parse(values.get(resource, "0"))
    divisor_text = str(ref.get("divisor") or "0")
    divisor = parse(divisor_text) if parse(divisor_text) != 0 else Decimal(1)
    if resource == "cpu":
        return _ceil_div(Decimal(math.ceil(quantity * 1000)), Decimal(math.ceil(divisor * 1000)))
    return _ceil_div(Decimal(math.ceil(quantity)), Decimal(math.ceil(divisor)))


def volume_files(items: list[dict], pod: dict, allocatable: dict[str, str]) -> dict[str, str]:
    """downwardAPI volume (pkg/volume/downwardapi/downwardapi.go `CollectData`): relative
    path -> content, metadata fields and container resources only, no trailing newline."""
    files: dict[str, str] = {}
    for item in items:
        if "fieldRef" in item:
            files[item["path"]] = metadata_value(pod, item["fieldRef"]["fieldPath"])
        elif "resourceFieldRef" in item:
            files[item["path"]] = resource_value(
                item["resourceFieldRef"], pod, None, allocatable, pod_level=False
            )
    return files
