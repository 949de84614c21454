"""What rancher/local-path-provisioner decides, without a cluster: which claims it
provisions, the PersistentVolume it creates, the helper pod it runs, which volumes it
deletes, and its log lines and events, word for word.

Sources, rancher/local-path-provisioner at commit 9fa2a62e (image v0.0.37): provisioner.go
(LPP), main.go, and the external-provisioner library it vendors,
vendor/sigs.k8s.io/sig-storage-lib-external-provisioner/v11/controller/controller.go (EPC)
and volume_store.go (EVS). nodesim/localpath.py acts these decisions out against the API."""

import datetime as dt
import json
import math
import posixpath
import re
from dataclasses import dataclass, field

from kubeproof.nodesim.quantity import parse
from kubeproof.nodesim.timing import LOCAL_PATH_RETRY_BASE

PROVISIONER = "rancher.io/local-path"  # main.go:30 DefaultProvisionerName
ANN_STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"  # EPC:76
ANN_BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"  # EPC:75
ANN_SELECTED_NODE = "volume.kubernetes.io/selected-node"  # EPC:80
ANN_PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"  # EPC:66
ANN_BETA_CLASS = "volume.beta.kubernetes.io/storage-class"  # util.go:87
ANN_NODE_NAME = "local.path.provisioner/selected-node"  # LPP:59
DEFAULT_NODE = "DEFAULT_PATH_FOR_NON_LISTED_NODES"  # LPP:39
AFFINITY_KEY = "kubernetes.io/hostname"  # LPP:37
CMD_TIMEOUT_SECONDS = 120  # LPP:54
HELPER_NAME_MAX = 128  # LPP:68
# EPC:686 ItemExponentialFailureRateLimiter(15 s, 1000 s) (DefaultExponentialBackOffOnError
# true, :194); a claim or volume is given up after 15 failures (:200, :202)
RETRY_MAX, FAILURE_THRESHOLD = 1000.0, 15


class ProvisionError(Exception):
    """An error Provision returns; the library turns it into a ProvisioningFailed event."""


@dataclass
class Config:
    """config.json of local-path-config, canonicalized (LPP:87-120, :890-950)."""

    node_paths: dict[str, list[str]] = field(default_factory=dict)
    shared_path: str = ""
    cmd_timeout: int = CMD_TIMEOUT_SECONDS
    setup_command: str = ""
    teardown_command: str = ""
    applied: str = ""  # json.Marshal of the data, as `Applied config:` logs it (LPP:172-176)


def parse_config(text: str) -> Config:
    """loadConfigFile + canonicalizeConfig. Per-class storageClassConfigs are not modelled:
    the top-level nodePathMap or sharedFileSystemPath applies to every class."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("config.json is not an object")
    paths: dict[str, list[str]] = {}
    for entry in data.get("nodePathMap") or []:
        node = str(entry.get("node") or "")
        if node in paths:
            raise ValueError(f"duplicate node {node}")  # LPP:927
        clean = []
        for p in entry.get("paths") or []:
            if not str(p).startswith("/"):
                raise ValueError(f"path must start with / for path {p} on node {node}")
            clean.append(posixpath.normpath(str(p)))
        paths[node] = clean
    # ConfigData's field order and omitempty (LPP:87-103) for the logged JSON
    out: dict = {}
    for key in ("cmdTimeoutSeconds", "setupCommand", "teardownCommand"):
        if data.get(key):
            out[key] = data[key]
    if data.get("nodePathMap"):
        out["nodePathMap"] = [
            {k: e[k] for k in ("node", "paths") if e.get(k)} for e in data["nodePathMap"]
        ]
    if data.get("sharedFileSystemPath"):
        out["sharedFileSystemPath"] = data["sharedFileSystemPath"]
    out["storageClassConfigs"] = data.get("storageClassConfigs")
    timeout = int(data.get("cmdTimeoutSeconds") or 0)
    return Config(
        node_paths=paths,
        shared_path=str(data.get("sharedFileSystemPath") or ""),
        cmd_timeout=timeout if timeout > 0 else CMD_TIMEOUT_SECONDS,  # LPP:910-914
        setup_command=str(data.get("setupCommand") or ""),
        teardown_command=str(data.get("teardownCommand") or ""),
        applied=json.dumps(out, separators=(",", ":")),
    )


def claim_class(claim: dict) -> str:
    """util.GetPersistentVolumeClaimClass: the beta annotation first, then the spec."""
    annotations = claim["metadata"].get("annotations") or {}
    if ANN_BETA_CLASS in annotations:
        return annotations[ANN_BETA_CLASS]
    return claim["spec"].get("storageClassName") or ""


def should_provision(claim: dict, classes: dict[str, dict]) -> bool:
    """EPC:1227-1266: unbound, the kube-controller-manager has handed it to this provisioner
    (its storage-provisioner annotation), and under WaitForFirstConsumer the scheduler has
    picked a node."""
    if claim["spec"].get("volumeName"):
        return False
    annotations = claim["metadata"].get("annotations") or {}
    named = annotations.get(ANN_STORAGE_PROVISIONER) or annotations.get(
        ANN_BETA_STORAGE_PROVISIONER
    )
    if named != PROVISIONER:
        return False
    cls = classes.get(claim_class(claim))
    if cls is None:
        return False  # getStorageClass fails: retried when the class appears
    if cls.get("volumeBindingMode") == "WaitForFirstConsumer":
        return bool(annotations.get(ANN_SELECTED_NODE))
    return True


def pv_name(claim: dict) -> str:
    return "pvc-" + claim["metadata"]["uid"]  # EPC:1668-1670


def provisioning_message(claim: dict) -> str:
    meta = claim["metadata"]  # EPC:1486, klog.KObj prints namespace/name
    ref = f"{meta['namespace']}/{meta['name']}"
    return f'External provisioner is provisioning volume for claim "{ref}"'


def failed_message(claim: dict, error: str) -> str:
    return f'failed to provision volume with StorageClass "{claim_class(claim)}": {error}'  # :1497


def succeeded_message(name: str) -> str:
    return f"Successfully provisioned volume {name}"  # EVS:179


@dataclass
class Volume:
    """What provisionFor decided: where the data lives and the PV to create."""

    name: str
    path: str
    node: str
    size_bytes: int
    pv: dict


def volume_path(claim: dict, cls: dict, node: str, config: Config) -> tuple[str, bool]:
    """getPathOnNode and the folder name (LPP:225-270, :402-442); the shared filesystem flag.
    A class's pathPattern is not modelled (the default folder name is used)."""
    shared = bool(config.shared_path)
    if shared and config.node_paths:
        raise ProvisionError(
            "both nodePathMap and sharedFileSystemPath are defined. "
            "Please make sure only one is in use"
        )
    if not shared and not config.node_paths:
        raise ProvisionError("both nodePathMap and sharedFileSystemPath are unconfigured")
    requested = (cls.get("parameters") or {}).get("nodePath") or ""
    if shared:
        base = config.shared_path
    else:
        paths = config.node_paths.get(node)
        if paths is None:
            paths = config.node_paths.get(DEFAULT_NODE)
            if paths is None:
                raise ProvisionError(
                    f"config doesn't contain node {node}, and no {DEFAULT_NODE} available"
                )
        if not paths:
            raise ProvisionError(f"no local path available on node {node}")
        if requested and requested not in paths:
            raise ProvisionError(f"config doesn't contain path {requested} on node {node}")
        # upstream picks one of several at random (LPP:261-268); the first, here
        base = requested or paths[0]
    meta = claim["metadata"]
    folder = "_".join([pv_name(claim), meta["namespace"], meta["name"]])  # LPP:408
    return posixpath.join(base, folder), shared


def provision(claim: dict, cls: dict, node: dict | None, config: Config) -> Volume:
    """provisionFor (LPP:369-570) and the library's additions before it stores the PV
    (EPC:1503-1512): claimRef, provisioned-by, the claim's class. addFinalizer is off
    (main.go:309-318 leaves the default, EPC:218), so the PV carries no finalizer of the
    provisioner's; the apiserver adds kubernetes.io/pv-protection."""
    spec = claim["spec"]
    shared = bool(config.shared_path) and not config.node_paths
    if not shared:
        if spec.get("selector") is not None:
            raise ProvisionError("claim.Spec.Selector is not supported")
        for mode in spec.get("accessModes") or []:
            if mode not in ("ReadWriteOnce", "ReadWriteOncePod"):
                raise ProvisionError(
                    "NodePath only supports ReadWriteOnce and ReadWriteOncePod (1.22+) access modes"
                )
        if node is None:
            raise ProvisionError("configuration error, no node was specified")
    node_name = node["metadata"]["name"] if node else ""
    path, shared = volume_path(claim, cls, node_name, config)
    request = ((spec.get("resources") or {}).get("requests") or {}).get("storage", "0")
    volume_type = (claim["metadata"].get("annotations") or {}).get("volumeType") or (
        (cls["metadata"].get("annotations") or {}).get("defaultVolumeType") or "hostPath"
    )  # LPP:506-514
    if volume_type.lower() == "local":  # createPersistentVolumeSource, LPP:952-976
        source = {"local": {"path": path}}
    elif volume_type.lower() == "hostpath":
        source = {"hostPath": {"path": path, "type": "DirectoryOrCreate"}}
    else:
        raise ProvisionError(
            f'failed to create persistent volume source: "{volume_type}" is not a '
            "recognised volume type"
        )
    name, meta = pv_name(claim), claim["metadata"]
    pv_spec: dict = {
        "persistentVolumeReclaimPolicy": cls.get("reclaimPolicy") or "Delete",
        "accessModes": list(spec.get("accessModes") or []),
        "volumeMode": "Filesystem",
        "capacity": {"storage": request},
        **source,
        # ref.GetReference of the claim (EPC:1431)
        "claimRef": {
            "kind": "PersistentVolumeClaim",
            "namespace": meta["namespace"],
            "name": meta["name"],
            "uid": meta["uid"],
            "apiVersion": "v1",
            "resourceVersion": meta.get("resourceVersion"),
        },
        "storageClassName": claim_class(claim),
    }
    if not shared:  # LPP:520-553
        key = (cls.get("parameters") or {}).get("nodeAffinityKey") or AFFINITY_KEY
        value = (node["metadata"].get("labels") or {}).get(key, node_name) if node else ""
        pv_spec["nodeAffinity"] = {
            "required": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": key, "operator": "In", "values": [value]}]}
                ]
            }
        }
    pv = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {
            "name": name,
            "annotations": {ANN_NODE_NAME: node_name, ANN_PROVISIONED_BY: PROVISIONER},
        },
        "spec": pv_spec,
    }
    size = math.ceil(parse(request))  # resource.Quantity.Value() rounds up
    return Volume(name=name, path=path, node=node_name, size_bytes=size, pv=pv)


def should_delete(pv: dict) -> bool:
    """isProvisionerForVolume and shouldDelete without the finalizer (EPC:1155-1181,
    :1270-1304): provisioned by us, not being deleted, Released, reclaim policy Delete."""
    meta = pv["metadata"]
    if (meta.get("annotations") or {}).get(ANN_PROVISIONED_BY) != PROVISIONER:
        return False
    if meta.get("deletionTimestamp"):
        return False
    status = pv.get("status") or {}
    return status.get("phase") == "Released" and (
        pv["spec"].get("persistentVolumeReclaimPolicy") == "Delete"
    )


def delete_target(pv: dict) -> tuple[str, str]:
    """getPathAndNodeForPV (LPP:623-677): the volume's path and its node (from the node
    affinity's single In value; empty on a shared filesystem)."""
    spec = pv["spec"]
    path = (spec.get("hostPath") or spec.get("local") or {}).get("path")
    if not path:
        raise ProvisionError(f"failed to delete volume {pv['metadata']['name']}: no path set")
    terms = ((spec.get("nodeAffinity") or {}).get("required") or {}).get("nodeSelectorTerms") or []
    for term in terms:
        for expr in term.get("matchExpressions") or []:
            if expr.get("operator") == "In" and len(expr.get("values") or []) == 1:
                return path, expr["values"][0]
    return path, ""


def size_of(pv: dict) -> int:
    """The volume's capacity in bytes, VOL_SIZE_BYTES of its teardown (LPP:600)."""
    return math.ceil(parse(((pv["spec"].get("capacity") or {}).get("storage")) or "0"))


def helper_pod(
    template: dict,
    action: str,
    volume: str,
    path: str,
    node: str,
    size_bytes: int,
    config: Config,
    namespace: str,
    service_account: str,
    configmap: str,
) -> dict:
    """createHelperPod (LPP:690-803): the template from helperPod.yaml with the parent dir
    as a hostPath, the setup/teardown scripts from the ConfigMap, the env and args."""
    pod = json.loads(json.dumps(template))
    spec = pod.setdefault("spec", {})
    container = spec["containers"][0]
    parent, leaf = posixpath.split(posixpath.normpath(path))
    volumes: list[dict] = [
        {"name": "data", "hostPath": {"path": parent + "/", "type": "DirectoryOrCreate"}}
    ]
    items = [{"key": k, "path": k} for k, cmd in (("setup", config.setup_command),
             ("teardown", config.teardown_command)) if not cmd]  # fmt: skip
    mounts = container.setdefault("volumeMounts", [])
    if items:
        volumes.append({"name": "script", "configMap": {"name": configmap, "items": items}})
        mounts.append({"name": "script", "mountPath": "/script"})
    mounts.append({"name": "data", "mountPath": parent + "/"})
    vol_dir = posixpath.join(parent, leaf)
    command = {"create": config.setup_command, "delete": config.teardown_command}[action]
    pod["metadata"] = {
        "name": f"{pod.get('metadata', {}).get('name', '')}-{action}-{volume}"[:HELPER_NAME_MAX],
        "namespace": namespace,
    }
    if node and not spec.get("nodeName"):
        spec["nodeName"] = node
    spec["serviceAccountName"] = service_account
    spec["restartPolicy"] = "Never"
    if spec.get("tolerations") is None:
        spec["tolerations"] = [
            {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists",
             "effect": "NoSchedule"}
        ]  # fmt: skip
    spec["volumes"] = [*(spec.get("volumes") or []), *volumes]
    container["command"] = [command] if command else ["/bin/sh", f"/script/{_script(action)}"]
    container["env"] = [
        *(container.get("env") or []),
        {"name": "VOL_DIR", "value": vol_dir},
        {"name": "VOL_MODE", "value": "Filesystem"},
        {"name": "VOL_SIZE_BYTES", "value": str(size_bytes)},
        {"name": "VOL_USER", "value": ""},
        {"name": "VOL_GROUP", "value": ""},
        {"name": "VOL_PERM", "value": ""},
    ]
    container["args"] = ["-p", vol_dir, "-s", str(size_bytes), "-m", "Filesystem", "-a", action]
    return pod


def _script(action: str) -> str:
    return "setup" if action == "create" else "teardown"


def where(node: str, path: str) -> str:
    return f"{node}:{path}" if node else path  # LPP:443-447, :590-598, :833-837


_PLAIN = re.compile(r"^[A-Za-z0-9\-._/@^+]*$")


def logrus(at: float, level: str, message: str) -> str:
    """A logrus TextFormatter line (FullTimestamp, not a terminal: main.go:326): values
    quoted with %q unless made of [A-Za-z0-9-._/@^+] only."""
    stamp = dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f'time="{stamp}" level={level} msg={_quote(message)}'


def _quote(text: str) -> str:
    if text and _PLAIN.match(text):
        return text
    return json.dumps(text, ensure_ascii=False)


def klog(at: float, source: str, message: str, **values: str) -> str:
    """A klog text line of the library's structured logger: I, month-day, time, pid 1
    (the container's first process), file:line, the message and key="value" pairs."""
    stamp = dt.datetime.fromtimestamp(at, dt.UTC).strftime("%m%d %H:%M:%S.%f")
    pairs = "".join(f" {k}={json.dumps(v)}" for k, v in values.items())
    return f'I{stamp}       1 {source}] "{message}"{pairs}'


def start_lines(at: float, config: Config, component: str) -> list[str]:
    """What the provisioner logs as it starts with --debug: the health server
    (main.go:372), the applied config (LPP:176), the start (main.go:319) and the
    library's controller (EPC:838, :887)."""
    return [
        logrus(at, "info", "Health server started on :8080"),
        logrus(at, "debug", f"Applied config: {config.applied}"),
        logrus(at, "debug", "Provisioner started"),
        klog(at, "controller.go:838", "Starting provisioner controller", component=component),
        klog(at, "controller.go:887", "Started provisioner controller", component=component),
    ]


def retry_delay(failures: int) -> float:
    """ItemExponentialFailureRateLimiter: 15 s doubling per failure, at most 1000 s
    (unscaled: the caller applies the timing profile)."""
    return min(LOCAL_PATH_RETRY_BASE * 2 ** max(failures - 1, 0), RETRY_MAX)
