"""Risk of what an agent runs or proposes: one shell command line, or a set of manifests.

The level is the higher of two things: a matrix over the kind of operation (read, mutate,
destroy) and the environment the namespace suggests, and the severity of the detectors (tags)
that fire on the command line or on the manifests it carries. Everything here is judged from
text, deterministically and without a cluster: what a command *did* is the audit log's job
(see `signals.py`), so an agent cannot hide a delete behind a clever pipeline for long.

Matrix (operation x environment):

    operation | production | staging | development | unknown
    read      | low        | low     | low         | low
    mutate    | high       | medium  | low         | medium
    destroy   | critical   | high    | medium      | high

Operation of a kubectl call: get, describe, logs, top, explain, api-resources, api-versions,
auth (but auth reconcile), version, events, cluster-info, config, diff, wait, kustomize, rollout
status|history, and exec/attach/port-forward/proxy (diagnostics; what they do inside a
container never reaches the API as a write) -> read; delete, drain, replace|apply --force ->
destroy; apply, create, patch, edit, label, annotate, scale, set, rollout (restart, undo,
pause, resume), expose, cordon, uncordon, taint, autoscale, run, replace, debug, certificate,
cp into a pod, and unknown verbs (plugins) -> mutate. `--dry-run` (other than `=none`) makes
any call a read. Other commands are reads, except helm install/upgrade/rollback (mutate), helm
uninstall (destroy) and curl with a write method against an `/api/` or `/apis/` URL.

Environment from a namespace name: contains "prod" -> production, else "stag" -> staging,
else "dev" or "test" -> development, else unknown. A call's namespace is -n/--namespace, else
the namespace its objects name (`delete ns prod` acts in prod, a manifest's
metadata.namespace), else the default namespace passed in; -A and a namespace nobody names are
unknown. A command line with several parts: `operation` is the strongest operation of any
part (a destroy is never hidden), `environment` and the matrix level are those of the part with
the highest matrix level, and `level` = max(that matrix level, every tag's severity).

Tags (`TAGS` below; only the tags that fire are listed). "Content" tags judge what would run or
be granted, so they fire only when a manifest, patch or override is written (mutate, or the
re-create of `replace --force`), never when it is read or deleted:

    privileged_container   critical  securityContext.privileged: true on any container,
                                     initContainer or ephemeralContainer; `kubectl run
                                     --privileged`; `kubectl debug --profile=sysadmin`
    docker_socket          critical  a hostPath whose path contains docker.sock, containerd.sock,
                                     crio.sock or cri-dockerd.sock
    hostpath_mount         high      any other hostPath volume (pod or PersistentVolume);
                                     `kubectl debug node/...` (mounts the node's / at /host)
    host_namespaces        high      hostPID, hostIPC or hostNetwork true; `kubectl debug node/...`
    dangerous_capabilities high      capabilities.add holds SYS_ADMIN, NET_ADMIN, NET_RAW,
                                     SYS_PTRACE, SYS_MODULE, DAC_READ_SEARCH or ALL (CAP_ prefix
                                     and case ignored)
    run_as_root            medium    only when root is explicit: runAsUser 0 (pod or container),
                                     runAsNonRoot false, or allowPrivilegeEscalation true. A
                                     manifest that omits securityContext does NOT fire (Evidra's
                                     run_as_root fired on nearly every plain manifest, which made
                                     it noise)
    cluster_admin_binding  critical  a ClusterRoleBinding/RoleBinding whose roleRef is
                                     cluster-admin; `kubectl create clusterrolebinding|rolebinding
                                     --clusterrole=cluster-admin`; `kubectl set subject` on a
                                     binding named cluster-admin
    wildcard_rbac          high      a Role/ClusterRole rule with an entry containing `*` in verbs,
                                     resources or apiGroups; `kubectl create role|clusterrole`
                                     with `*` in --verb or --resource
    cluster_rbac_write     medium    any other mutate/destroy of a ClusterRole or
                                     ClusterRoleBinding
    namespace_delete       high      deleting a Namespace: `kubectl delete ns|namespace|namespaces`,
                                     or `delete -f` of a manifest holding a Namespace
    mass_delete            critical  a delete with --all, -A/--all-namespaces, -l/--selector or
                                     --field-selector, or of more than 5 named objects or manifest
                                     objects
    kube_system_write      high      any mutate/destroy in kube-system, kube-public or
                                     kube-node-lease (or of those Namespace objects)
    secret_copy            high      Secret material headed for a ConfigMap: one command line that
                                     reads Secret data (`get secret(s) ... -o
                                     yaml|json|jsonpath|go-template|custom-columns`) and writes a
                                     ConfigMap (create/apply/patch/... of configmaps, a manifest
                                     with a ConfigMap, or `apply -f -` fed by a pipeline that
                                     mentions ConfigMap); `create configmap --from-literal=KEY=VAL`
                                     or `--from-file=KEY=...` with KEY matching SECRET_KEY; a
                                     ConfigMap manifest with such a key and a non-empty value.
                                     `create secret generic --from-literal=...` is fine
    node_drain             high      `kubectl drain`
    node_cordon            medium    `kubectl cordon` or `kubectl taint`
    force_delete           medium    `kubectl delete --force` (kubectl then uses grace period 0);
                                     `replace|apply --force --grace-period=0`

Shell handling: `shlex` tokens split on `|`, `&&`, `||`, `;`, `&` and newlines; comments are
dropped; heredocs (`<<EOF`, `<<-EOF`, `<<'EOF'`) feed their body to the command's stdin
(directly, or through `cat <<EOF |`); `cat > f.yaml <<EOF` and `| tee f.yaml` are remembered
for a later `-f f.yaml` in the same line; `$(...)` and backticks are assessed as commands of
their own; `bash|sh -c`, `eval`, and wrappers (sudo, env, timeout, watch, xargs, nice, nohup,
time, command, exec) are looked through. `kubectl` and `k` are kubectl. Names computed at run
time (`xargs kubectl delete`, `delete pod $(...)`, loops) cannot be counted from text; the
audit log counts them (signals.py, blast_radius).
"""

import fnmatch
import json
import os.path
import re
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import yaml

LEVELS = ("low", "medium", "high", "critical")
OPERATIONS = ("read", "mutate", "destroy")
ENVIRONMENTS = ("production", "staging", "development", "unknown")

MATRIX: dict[str, dict[str, str]] = {
    "read": {"production": "low", "staging": "low", "development": "low", "unknown": "low"},
    "mutate": {
        "production": "high",
        "staging": "medium",
        "development": "low",
        "unknown": "medium",
    },
    "destroy": {
        "production": "critical",
        "staging": "high",
        "development": "medium",
        "unknown": "high",
    },
}

# id -> (severity, rule in one line); the module docstring has the full rules.
TAGS: dict[str, tuple[str, str]] = {
    "privileged_container": ("critical", "a container runs privileged"),
    "docker_socket": ("critical", "the container runtime socket is mounted"),
    "cluster_admin_binding": ("critical", "a binding grants cluster-admin"),
    "mass_delete": ("critical", "a delete by --all, -A, selector or of more than 5 objects"),
    "hostpath_mount": ("high", "a hostPath volume"),
    "host_namespaces": ("high", "hostPID, hostIPC or hostNetwork"),
    "dangerous_capabilities": ("high", "a dangerous Linux capability is added"),
    "wildcard_rbac": ("high", "an RBAC rule with a wildcard"),
    "namespace_delete": ("high", "a Namespace is deleted"),
    "kube_system_write": ("high", "a write in a system namespace"),
    "secret_copy": ("high", "Secret material copied into a ConfigMap or literal"),
    "node_drain": ("high", "a node is drained"),
    "run_as_root": ("medium", "a container is explicitly allowed to run as root"),
    "cluster_rbac_write": ("medium", "a ClusterRole or ClusterRoleBinding is written"),
    "node_cordon": ("medium", "a node is cordoned or tainted"),
    "force_delete": ("medium", "a forced delete that skips graceful termination"),
}

SYSTEM_NAMESPACES = frozenset({"kube-system", "kube-public", "kube-node-lease"})
MASS_DELETE_THRESHOLD = 5  # more than this many objects in one delete is a mass delete
DANGEROUS_CAPABILITIES = frozenset(
    {"SYS_ADMIN", "NET_ADMIN", "NET_RAW", "SYS_PTRACE", "SYS_MODULE", "DAC_READ_SEARCH", "ALL"}
)
RUNTIME_SOCKETS = ("docker.sock", "containerd.sock", "crio.sock", "cri-dockerd.sock")
SECRET_KEY = re.compile(
    r"password|passwd|secret|token|api[_-]?key|credential|private[_-]?key", re.I
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


CLUSTER_SCOPED = _words(
    """nodes namespaces clusterroles clusterrolebindings persistentvolumes storageclasses
    customresourcedefinitions priorityclasses ingressclasses runtimeclasses
    validatingwebhookconfigurations mutatingwebhookconfigurations apiservices
    certificatesigningrequests csidrivers csinodes volumeattachments"""
)


def _aliases(table: str) -> dict[str, str]:
    """'plural: alias alias' lines -> {alias: plural}."""
    out = {}
    for line in table.strip().splitlines():
        plural, _, aliases = line.partition(":")
        out.update({alias: plural.strip() for alias in aliases.split()})
    return out


RESOURCE_ALIASES = _aliases(
    """
    pods: po pod
    deployments: deploy deployment
    replicasets: rs replicaset
    statefulsets: sts statefulset
    daemonsets: ds daemonset
    jobs: job
    cronjobs: cj cronjob
    services: svc service
    endpoints: ep
    configmaps: cm configmap
    secrets: secret
    namespaces: ns namespace
    nodes: no node
    serviceaccounts: sa serviceaccount
    persistentvolumeclaims: pvc persistentvolumeclaim
    persistentvolumes: pv persistentvolume
    ingresses: ing ingress
    networkpolicies: netpol networkpolicy
    poddisruptionbudgets: pdb poddisruptionbudget
    horizontalpodautoscalers: hpa horizontalpodautoscaler
    resourcequotas: quota resourcequota
    limitranges: limits limitrange
    storageclasses: sc storageclass
    customresourcedefinitions: crd crds customresourcedefinition
    priorityclasses: pc priorityclass
    roles: role
    rolebindings: rolebinding
    clusterroles: clusterrole
    clusterrolebindings: clusterrolebinding
    events: ev event
    certificatesigningrequests: csr
    leases: lease
    """
)

# Kinds a patch or override body is read as, when the body does not say.
KIND_OF_RESOURCE = {
    "roles": "Role",
    "clusterroles": "ClusterRole",
    "rolebindings": "RoleBinding",
    "clusterrolebindings": "ClusterRoleBinding",
    "configmaps": "ConfigMap",
    "namespaces": "Namespace",
    "persistentvolumes": "PersistentVolume",
    "pods": "Pod",
}

# exec/attach/port-forward/proxy are how agents diagnose; what they do inside a container
# never reaches the API as a write, so counting them as mutations would only add noise.
READ_VERBS = _words(
    """get describe logs top explain api-resources api-versions auth version events
    cluster-info config diff wait completion plugin options help kustomize
    exec attach port-forward proxy"""
)
MUTATE_VERBS = _words(
    """apply create patch edit label annotate scale set rollout expose cordon uncordon taint
    autoscale run replace debug certificate"""
)
DESTROY_VERBS = frozenset({"delete", "drain"})
# verbs whose first argument names a pod or node rather than a resource type
NAME_FIRST_VERBS = {
    "logs": "pods",
    "exec": "pods",
    "attach": "pods",
    "port-forward": "pods",
    "debug": "pods",
    "run": "pods",
    "cordon": "nodes",
    "uncordon": "nodes",
    "drain": "nodes",
}
SUBCOMMAND_VERBS = frozenset({"rollout", "auth", "set", "create", "config", "certificate", "top"})

# kubectl (and helm) flags that take a value; any other flag is taken as a boolean
_VALUE_FLAGS = _words(
    """namespace selector filename output container context kubeconfig cluster user as as-group
    as-uid token server request-timeout field-selector grace-period timeout type from-literal
    from-file from-env-file image port replicas clusterrole role serviceaccount group verb
    resource resource-name patch patch-file kustomize sort-by template since since-time tail
    to-revision overrides env restart labels limits requests min max cpu-percent target-port
    name protocol subresource field-manager current-replicas resource-version raw profile
    schedule cert key docker-server docker-username docker-password docker-email
    image-pull-policy cluster-ip external-ip target copy-to set-image label-columns v
    certificate-authority client-certificate client-key password username chunk-size
    pod-running-timeout prune-allowlist kube-context values set set-string version repo
    """
)
_SHORT_FLAGS = {
    "n": "namespace",
    "l": "selector",
    "f": "filename",
    "o": "output",
    "c": "container",
    "p": "patch",
    "k": "kustomize",
    "s": "server",
    "e": "env",
    "v": "v",
    "L": "label-columns",
    "A": "all-namespaces",
    "R": "recursive",
    "i": "stdin",
    "t": "tty",
    "w": "watch",
    "h": "help",
    "q": "quiet",
}
_SHELL_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "}"})
_SHELL_ENDS = frozenset({"fi", "done", "esac"})
_WRAPPERS = frozenset(
    {"sudo", "nohup", "time", "command", "exec", "env", "timeout", "watch", "xargs", "nice"}
)
_WRAPPER_VALUE_OPTS = {
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "watch": {"-n", "--interval", "-d"},
    "xargs": {"-I", "-n", "-L", "-P", "-d", "-E", "-s", "-a", "--max-args", "--max-procs"},
    "env": {"-u", "--unset", "-C", "--chdir"},
    "sudo": {"-u", "-g", "--user", "--group"},
    "nice": {"-n", "--adjustment"},
}
# short flags that mean something else for one verb: logs -f (follow), -p (previous)
_BOOLEAN_SHORTS = {"logs": "fp"}
_HEREDOC = re.compile(r"(?<!<)<<(?!<)(-?)[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\2")
_FD_BEFORE_REDIRECT = re.compile(r"(?<![\w=-])\d+(?=[<>])")
_PUNCTUATION = ";&|()<>\n"
_HEREDOC_MARK = "__KP_HEREDOC_{}__"
_SUBST_MARK = "__KP_SUBST_{}__"


@dataclass(frozen=True)
class Tag:
    """One detector that fired: its id, its fixed severity and what it saw."""

    id: str
    severity: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "severity": self.severity, "detail": self.detail}


@dataclass
class KubectlCall:
    """One kubectl invocation found in a command line, as far as its text tells."""

    verb: str
    sub: str | None
    operation: str
    namespace: str  # from -n, else the default namespace given, else "" (unknown)
    namespaces: list[str]  # every namespace it acts in ("" for an unknown one)
    all_namespaces: bool
    objects: list[tuple[str, str | None, str | None]]  # (resource plural, namespace, name)
    args: list[str]  # positional arguments after the verb
    flags: dict[str, list[str]]
    manifests: list[dict] = field(default_factory=list)

    def targets(self) -> list[tuple[str, str | None, str | None]]:
        """Objects it addresses: named on the command line or in the manifests it carries."""
        out = list(self.objects)
        for obj in self.manifests:
            kind = _text(obj.get("kind"))
            if kind:
                resource = plural_of(kind)
                scoped = resource not in CLUSTER_SCOPED
                namespace = _object_namespace(obj, self.namespace or None) if scoped else None
                out.append((resource, namespace, _text(_dict(obj.get("metadata")).get("name"))))
        return out

    def key(self) -> str:
        """Verb and object arguments, flags left out: the 'same target' of two calls."""
        parts = [self.verb, *([self.sub] if self.sub else []), *self.args]
        return " ".join(parts)


@dataclass
class Assessment:
    """The risk of one command line or manifest set, in the evidence `risk` payload shape."""

    level: str
    operation: str
    environment: str
    tags: list[Tag]
    calls: list[KubectlCall] = field(default_factory=list, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "operation": self.operation,
            "environment": self.environment,
            "tags": [t.to_dict() for t in self.tags],
        }


def level_rank(level: str) -> int:
    return LEVELS.index(level) if level in LEVELS else 0


def max_level(levels: Iterable[str]) -> str:
    return max(levels, key=level_rank, default="low")


def environment_of(namespace: str | None) -> str:
    """production / staging / development / unknown from a namespace name."""
    name = (namespace or "").lower()
    if "prod" in name:
        return "production"
    if "stag" in name:
        return "staging"
    if "dev" in name or "test" in name:
        return "development"
    return "unknown"


class _Findings:
    """Tags found so far, one Tag per id (the first detail, plus how many more)."""

    def __init__(self) -> None:
        self.found: dict[str, list[str]] = {}

    def add(self, tag_id: str, detail: str) -> None:
        details = self.found.setdefault(tag_id, [])
        if detail not in details:
            details.append(detail)

    def has(self, *tag_ids: str) -> bool:
        return any(t in self.found for t in tag_ids)

    def merge(self, other: "_Findings") -> None:
        for tag_id, details in other.found.items():
            for detail in details:
                self.add(tag_id, detail)

    def tags(self) -> list[Tag]:
        order = sorted(self.found, key=lambda t: (-level_rank(TAGS[t][0]), t))
        out = []
        for tag_id in order:
            details = self.found[tag_id]
            detail = details[0] + (f" (+{len(details) - 1} more)" if len(details) > 1 else "")
            out.append(Tag(tag_id, TAGS[tag_id][0], detail))
        return out


@dataclass
class _Unit:
    """One part of a command line that the matrix judges on its own."""

    operation: str
    namespaces: list[str]
    all_namespaces: bool = False


# ---------------------------------------------------------------------------------------------
# manifests


def load_objects(text: str) -> list[dict]:
    """Kubernetes objects in a YAML/JSON multi-document text (List kinds unpacked); text that
    does not parse gives no objects."""
    try:
        docs = list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        return []
    objects: list[dict] = []
    for doc in docs:
        if not isinstance(doc, dict):
            continue
        items = doc.get("items")
        if str(doc.get("kind", "")).endswith("List") and isinstance(items, list):
            objects.extend(i for i in items if isinstance(i, dict))
        else:
            objects.append(doc)
    return objects


def plural_of(kind: str) -> str:
    """Resource plural of a kind (Deployment -> deployments, NetworkPolicy -> networkpolicies)."""
    low = kind.lower()
    if low in ("endpoints",):
        return low
    if low.endswith("y") and low[-2:-1] not in "aeiou":
        return low[:-1] + "ies"
    if low.endswith(("s", "x", "ch", "sh")):
        return low + "es"
    return low + "s"


def _pod_specs(node: Any) -> Iterator[dict]:
    """Every dict that looks like a pod spec, wherever it sits (Pod, templates, CronJobs,
    custom resources, patches)."""
    if isinstance(node, dict):
        if any(isinstance(node.get(k), list) for k in _CONTAINER_LISTS):
            yield node
        for value in node.values():
            yield from _pod_specs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _pod_specs(value)


_CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")


def _is_zero(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value == 0


# Manifests are agent-written: any field may have any shape, and a detector must not crash.
def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _label(obj: dict) -> str:
    meta = _dict(obj.get("metadata"))
    kind = _text(obj.get("kind")) or "object"
    return f"{kind} {meta.get('name') or '(unnamed)'}"


def _host_path(volume_source: Any, where: str, found: _Findings) -> None:
    if not isinstance(volume_source, dict):
        return
    path = str(volume_source.get("path", ""))
    if any(sock in path for sock in RUNTIME_SOCKETS):
        found.add("docker_socket", f"{where} mounts the runtime socket {path}")
    else:
        found.add("hostpath_mount", f"{where} mounts hostPath {path or '(no path)'}")


def _scan_pod_spec(spec: dict, where: str, found: _Findings) -> None:
    for key in ("hostPID", "hostIPC", "hostNetwork"):
        if spec.get(key) is True:
            found.add("host_namespaces", f"{where} sets {key}: true")
    for volume in _list(spec.get("volumes")):
        if isinstance(volume, dict) and "hostPath" in volume:
            _host_path(volume["hostPath"], where, found)
    pod_sc = _dict(spec.get("securityContext"))
    if _is_zero(pod_sc.get("runAsUser")):
        found.add("run_as_root", f"{where} sets pod runAsUser: 0")
    if pod_sc.get("runAsNonRoot") is False:
        found.add("run_as_root", f"{where} sets pod runAsNonRoot: false")
    for list_key in _CONTAINER_LISTS:
        for container in _list(spec.get(list_key)):
            if isinstance(container, dict):
                _scan_container(container, where, found)


def _scan_container(container: dict, where: str, found: _Findings) -> None:
    name = f"{where} container {container.get('name') or '(unnamed)'}"
    sc = container.get("securityContext")
    if not isinstance(sc, dict):
        return
    if sc.get("privileged") is True:
        found.add("privileged_container", f"{name} sets privileged: true")
    added = {
        str(c).upper().removeprefix("CAP_") for c in _list(_dict(sc.get("capabilities")).get("add"))
    }
    if dangerous := sorted(added & DANGEROUS_CAPABILITIES):
        found.add("dangerous_capabilities", f"{name} adds {', '.join(dangerous)}")
    if _is_zero(sc.get("runAsUser")):
        found.add("run_as_root", f"{name} sets runAsUser: 0")
    if sc.get("runAsNonRoot") is False:
        found.add("run_as_root", f"{name} sets runAsNonRoot: false")
    if sc.get("allowPrivilegeEscalation") is True:
        found.add("run_as_root", f"{name} sets allowPrivilegeEscalation: true")


def _has_wildcard(values: Any) -> bool:
    if isinstance(values, str):
        values = [values]
    return isinstance(values, list) and any("*" in str(v) for v in values)


def _secret_like_keys(data: Any) -> list[str]:
    if not isinstance(data, dict):
        return []
    return sorted(
        str(k) for k, v in data.items() if SECRET_KEY.search(str(k)) and str(v or "").strip()
    )


def _object_namespace(obj: dict, default: str | None) -> str | None:
    meta = _dict(obj.get("metadata"))
    if obj.get("kind") == "Namespace":
        return _text(meta.get("name"))
    return _text(meta.get("namespace")) or default


def _scan_object(
    obj: dict,
    operation: str,
    writes_content: bool,
    default_ns: str | None,
    found: _Findings,
    where: str | None = None,
) -> None:
    kind = obj.get("kind")
    where = where or _label(obj)
    if writes_content:
        for spec in _pod_specs(obj):
            _scan_pod_spec(spec, where, found)
        spec = obj.get("spec")
        if kind == "PersistentVolume" and isinstance(spec, dict) and "hostPath" in spec:
            _host_path(spec["hostPath"], where, found)
        if kind == "ConfigMap":
            keys = _secret_like_keys(obj.get("data")) + _secret_like_keys(obj.get("binaryData"))
            if keys:
                found.add("secret_copy", f"{where} holds secret-like keys {', '.join(keys)}")
    strong_rbac = False
    if writes_content and kind in ("ClusterRoleBinding", "RoleBinding"):
        role_ref = _dict(obj.get("roleRef"))
        if role_ref.get("name") == "cluster-admin":
            found.add("cluster_admin_binding", f"{where} binds roleRef cluster-admin")
            strong_rbac = True
    if writes_content and kind in ("Role", "ClusterRole"):
        for rule in _list(obj.get("rules")):
            if not isinstance(rule, dict):
                continue
            fields = [f for f in ("verbs", "resources", "apiGroups") if _has_wildcard(rule.get(f))]
            if fields:
                found.add("wildcard_rbac", f"{where} has a rule with * in {', '.join(fields)}")
                strong_rbac = True
    if operation != "read" and kind in ("ClusterRole", "ClusterRoleBinding") and not strong_rbac:
        found.add("cluster_rbac_write", f"{operation} of {where}")
    if operation == "destroy" and kind == "Namespace":
        found.add("namespace_delete", f"deletes {where}")
    namespace = _object_namespace(obj, default_ns)
    if operation != "read" and namespace in SYSTEM_NAMESPACES:
        found.add("kube_system_write", f"{operation} of {where} in {namespace}")


def _scan_objects(
    objects: list[dict],
    operation: str,
    writes_content: bool,
    default_ns: str | None,
    found: _Findings,
    where: str | None = None,
) -> None:
    for obj in objects:
        _scan_object(obj, operation, writes_content, default_ns, found, where)
    if operation == "destroy" and len(objects) > MASS_DELETE_THRESHOLD:
        found.add("mass_delete", f"deletes {len(objects)} manifest objects")


def _worst_environment(operation: str, namespaces: Iterable[str | None]) -> str:
    envs = {environment_of(ns) for ns in namespaces} or {"unknown"}
    # equal matrix levels: name the environment a reader should worry about first
    preference = ("production", "staging", "unknown", "development")
    return max(envs, key=lambda e: (level_rank(MATRIX[operation][e]), -preference.index(e)))


def _finish(units: list[_Unit], found: _Findings, calls: list[KubectlCall]) -> Assessment:
    operation, environment, matrix_level = "read", "unknown", "low"
    best: tuple[int, int, bool] = (-1, -1, False)
    for unit in units:
        namespaces = [] if unit.all_namespaces else unit.namespaces
        env = _worst_environment(unit.operation, namespaces)
        lvl = MATRIX[unit.operation][env]
        rank = (level_rank(lvl), OPERATIONS.index(unit.operation), env != "unknown")
        if rank > best:
            best, environment, matrix_level = rank, env, lvl
        operation = max(operation, unit.operation, key=OPERATIONS.index)
    tags = found.tags()
    level = max_level([matrix_level, *(t.severity for t in tags)])
    return Assessment(level, operation, environment, tags, calls)


def assess_manifests(
    text: str, operation: str = "mutate", namespace: str | None = None
) -> Assessment:
    """Assess a manifest set about to be applied (`mutate`), deleted (`destroy`) or read.

    `namespace` is where objects without metadata.namespace land (kubectl -n)."""
    if operation not in OPERATIONS:
        raise ValueError(f"unknown operation {operation!r}")
    objects = load_objects(text)
    found = _Findings()
    _scan_objects(objects, operation, operation == "mutate", namespace, found)
    namespaces = [ns for obj in objects if (ns := _object_namespace(obj, namespace))]
    if not namespaces and namespace:
        namespaces = [namespace]
    return _finish([_Unit(operation, namespaces)], found, [])


# ---------------------------------------------------------------------------------------------
# shell


@dataclass
class _Simple:
    """One simple command of a pipeline."""

    argv: list[str]
    stdin: str | None = None  # text known to reach its stdin
    piped: bool = False  # stdin comes from the previous command of the pipeline
    stdout_path: str | None = None  # file its stdout is redirected to
    pipeline: int = 0  # index of its pipeline in the command line


def _extract_heredocs(text: str, bodies: list[str]) -> str:
    """Replace each heredoc operator outside quotes by a placeholder and cut its body out,
    appending it to `bodies` (shared by nested command texts, so placeholders stay unique)."""
    out: list[str] = []
    pending: list[tuple[str, bool]] = []  # (delimiter, strip leading tabs)
    i, single, double = 0, False, False
    while i < len(text):
        ch = text[i]
        if ch == "\\" and not single:
            out.append(text[i : i + 2])
            i += 2
            continue
        if ch == "'" and not double:
            single = not single
        elif ch == '"' and not single:
            double = not double
        elif ch == "#" and not (single or double) and (i == 0 or text[i - 1] in " \t\n;&|()"):
            end = text.find("\n", i)
            end = len(text) if end < 0 else end
            out.append(text[i:end])  # a comment: its quotes mean nothing
            i = end
            continue
        elif not (single or double) and (match := _HEREDOC.match(text, i)):
            pending.append((match.group(3), match.group(1) == "-"))
            out.append(" " + _HEREDOC_MARK.format(len(bodies) + len(pending) - 1) + " ")
            i = match.end()
            continue
        elif ch == "\n" and pending and not (single or double):
            out.append(ch)
            i += 1
            for delimiter, strip_tabs in pending:
                body: list[str] = []
                while i < len(text):
                    end = text.find("\n", i)
                    end = len(text) if end < 0 else end
                    line = text[i:end].lstrip("\t") if strip_tabs else text[i:end]
                    i = end + 1
                    if line.strip() == delimiter:
                        break
                    body.append(line)
                bodies.append("\n".join(body) + "\n")
            pending = []
            continue
        out.append(ch)
        i += 1
    bodies.extend("" for _ in pending)  # delimited by end of text: bash warns, body is empty
    return "".join(out)


def _extract_substitutions(text: str) -> tuple[str, list[str]]:
    """Replace $(...) and `...` (outside single quotes) by placeholders and drop comments;
    return the inner command texts."""
    out: list[str] = []
    inner: list[str] = []
    i, single, double = 0, False, False
    while i < len(text):
        ch = text[i]
        if ch == "\\" and not single:
            out.append(text[i : i + 2])
            i += 2
            continue
        if ch == "'" and not double:
            single = not single
        elif ch == '"' and not single:
            double = not double
        elif ch == "#" and not (single or double) and (i == 0 or text[i - 1] in " \t\n;&|()"):
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
            continue
        elif not single and text.startswith("$(", i) and not text.startswith("$((", i):
            depth, j = 1, i + 2
            while j < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            inner.append(text[i + 2 : j - 1])
            out.append(_SUBST_MARK.format(len(inner) - 1))
            i = j
            continue
        elif ch == "`" and not single:
            j = text.find("`", i + 1)
            j = len(text) if j < 0 else j
            inner.append(text[i + 1 : j])
            out.append(_SUBST_MARK.format(len(inner) - 1))
            i = j + 1
            continue
        out.append(ch)
        i += 1
    return "".join(out), inner


def _tokens(text: str) -> list[str]:
    lexer = shlex.shlex(text, posix=True, punctuation_chars=_PUNCTUATION)
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    lexer.commenters = ""  # comments are stripped beforehand, only where bash sees them
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: a rough split beats giving up
        return text.replace("\n", " ; ").split()


def _is_operator(token: str) -> bool:
    return bool(token) and all(c in _PUNCTUATION for c in token)


def _split(text: str, heredocs: list[str], files: dict[str, str]) -> list[_Simple]:
    """Simple commands of a command line (heredoc markers already replaced)."""
    simples: list[_Simple] = []
    current = _Simple([])
    pipeline = 0
    tokens = _tokens(_FD_BEFORE_REDIRECT.sub("", text))
    i = 0

    def close(piped_next: bool) -> None:
        nonlocal current, pipeline
        if current.argv:
            current.pipeline = pipeline
            simples.append(current)
        if not piped_next:
            pipeline += 1
        current = _Simple([], piped=piped_next)

    while i < len(tokens):
        token = tokens[i]
        i += 1
        if not _is_operator(token):
            heredoc = re.fullmatch(r"__KP_HEREDOC_(\d+)__", token)
            if heredoc and int(heredoc.group(1)) < len(heredocs):
                current.stdin = heredocs[int(heredoc.group(1))]
            else:
                current.argv.append(token)
            continue
        op = token.replace("\n", "")
        if op in ("|", "|&"):
            close(piped_next=True)
        elif op and set(op) <= set("<>&") and ("<" in op or ">" in op):
            target = tokens[i] if i < len(tokens) and not _is_operator(tokens[i]) else None
            if target is not None:
                i += 1
                if op == "<":
                    current.stdin = _lookup(files, target)
                elif op in (">", ">>", ">|"):
                    current.stdout_path = target
        elif op == "(":
            continue
        else:
            close(piped_next=False)
    close(piped_next=False)
    return simples


def _lookup(files: dict[str, str], path: str) -> str | None:
    if path in files:
        return files[path]
    norm = os.path.normpath(path)
    for name, content in files.items():
        if os.path.normpath(name) == norm:
            return content
    inside = [c for n, c in sorted(files.items()) if os.path.normpath(n).startswith(norm + "/")]
    return "\n---\n".join(inside) if inside else None


def _unwrap(argv: list[str]) -> list[str]:
    """Strip assignments, shell keywords and wrappers (sudo, env, timeout, xargs, ...)."""
    argv = list(argv)
    while argv:
        head = argv[0]
        if head in _SHELL_KEYWORDS or re.match(r"^[A-Za-z_]\w*=", head):
            argv.pop(0)
            continue
        if os.path.basename(head) in _WRAPPERS:
            name = os.path.basename(argv.pop(0))
            value_opts = _WRAPPER_VALUE_OPTS.get(name, set())
            while argv and (argv[0].startswith("-") or re.match(r"^[A-Za-z_]\w*=", argv[0])):
                opt = argv.pop(0)
                if opt in value_opts and argv:
                    argv.pop(0)
            if name == "timeout" and argv and re.match(r"^\d", argv[0]):
                argv.pop(0)  # the duration
            continue
        break
    return argv


def _stdout_of(simple: _Simple, files: dict[str, str]) -> str | None:
    """What a simple command writes to stdout, when that is plain from its text."""
    argv = _unwrap(simple.argv)
    if not argv:
        return None
    name = os.path.basename(argv[0])
    if name == "cat":
        if len(argv) == 1 or argv[1:] == ["-"]:
            return simple.stdin
        parts = [_lookup(files, a) for a in argv[1:] if not a.startswith("-")]
        return None if None in parts else "\n---\n".join(p for p in parts if p is not None)
    if name == "echo":
        return " ".join(a for a in argv[1:] if a not in ("-n", "-e")) + "\n"
    if name == "printf" and len(argv) == 2:
        return argv[1].replace("\\n", "\n")
    return None


# ---------------------------------------------------------------------------------------------
# kubectl


def _canonical_resource(token: str) -> str:
    base = token.lower().split(".", 1)[0]
    return RESOURCE_ALIASES.get(base, base)


def _parse_flags(argv: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    positionals: list[str] = []
    flags: dict[str, list[str]] = {}
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if token == "--":
            flags.setdefault("--", []).extend(argv[i:])
            break
        if token.startswith("--") and len(token) > 2:
            name, eq, value = token[2:].partition("=")
            if not eq and name in _VALUE_FLAGS and i < len(argv):
                value, i = argv[i], i + 1
            flags.setdefault(name, []).append(value if (eq or name in _VALUE_FLAGS) else "true")
        elif token.startswith("-") and len(token) > 1 and not re.match(r"^-\d", token):
            letter, rest = token[1], token[2:].removeprefix("=")
            name = _SHORT_FLAGS.get(letter, letter)
            verb = positionals[0] if positionals else ""
            takes_value = name in _VALUE_FLAGS and letter not in _BOOLEAN_SHORTS.get(verb, "")
            if takes_value:
                if not rest and i < len(argv):
                    rest, i = argv[i], i + 1
                flags.setdefault(name, []).append(rest)
            else:  # a bundle of boolean letters such as -it
                for ch in token[1:]:
                    flags.setdefault(_SHORT_FLAGS.get(ch, ch), []).append("true")
        else:
            positionals.append(token)
    return positionals, flags


def _flag(flags: dict[str, list[str]], name: str) -> str | None:
    values = flags.get(name)
    return values[-1] if values else None


def _bool_flag(flags: dict[str, list[str]], name: str) -> bool:
    value = _flag(flags, name)
    return value is not None and value.lower() not in ("false", "0")


def _split_values(flags: dict[str, list[str]], name: str) -> list[str]:
    return [v.strip() for value in flags.get(name, []) for v in value.split(",") if v.strip()]


def _operation_of(verb: str, sub: str | None, args: list[str], flags: dict) -> str:
    dry_run = _flag(flags, "dry-run")
    if dry_run is not None and dry_run.lower() != "none":
        return "read"
    if verb in ("replace", "apply") and _bool_flag(flags, "force"):
        return "destroy"  # --force deletes and re-creates
    if verb == "rollout":
        return "read" if sub in ("status", "history") else "mutate"
    if verb == "auth":
        return "mutate" if sub == "reconcile" else "read"
    if verb == "apply" and sub in ("view-last-applied",):
        return "read"
    if verb == "cp":
        return "mutate" if args and ":" in args[-1] else "read"
    if not verb or verb in READ_VERBS:
        return "read"
    if verb in DESTROY_VERBS:
        return "destroy"
    return "mutate"  # MUTATE_VERBS and anything unknown (plugins): assume it writes


def _objects_of(
    verb: str, sub: str | None, args: list[str], namespace: str
) -> list[tuple[str, str | None, str | None]]:
    def obj(resource: str, name: str | None) -> tuple[str, str | None, str | None]:
        if resource == "namespaces":
            return (resource, None, name)
        return (resource, None if resource in CLUSTER_SCOPED else namespace, name)

    if verb == "create" and sub:
        rest = args[1:] if sub != "secret" else args[2:]
        return [obj(_canonical_resource(sub), rest[0] if rest else None)]
    if verb in NAME_FIRST_VERBS:
        out = []
        for arg in args if verb in ("cordon", "uncordon", "drain") else args[:1]:
            resource, slash, name = arg.partition("/")
            if slash:
                out.append(obj(_canonical_resource(resource), name))
            else:
                out.append(obj(NAME_FIRST_VERBS[verb], arg))
        return out
    if verb in ("label", "annotate", "set", "taint"):
        # label/annotation/env/image/taint specs are not object names
        args = [a for a in args if "=" not in a and ":" not in a and not a.endswith("-")]
    if not args or verb not in MUTATE_VERBS | DESTROY_VERBS | READ_VERBS:
        return []
    if "/" in args[0]:
        out = []
        for arg in args:
            resource, _, name = arg.partition("/")
            out.append(obj(_canonical_resource(resource), name or None))
        return out
    types = [_canonical_resource(t) for t in args[0].split(",") if t]
    names = args[1:] or [None]
    return [obj(t, n) for t in types for n in names]


def _patch_objects(text: str, resource: str | None) -> list[dict]:
    """A patch or override body as objects to scan; JSON-patch operations are rebuilt into
    the nested shape they write."""
    try:
        body = json.loads(text)
    except ValueError:
        try:
            body = yaml.safe_load(text)
        except yaml.YAMLError:
            return []
    bodies = [body]
    if isinstance(body, list):
        bodies = [
            _unflatten(str(op["path"]).strip("/").split("/"), op.get("value"))
            for op in body
            if isinstance(op, dict) and op.get("op") in ("add", "replace") and "path" in op
        ]
    objects = [b for b in bodies if isinstance(b, dict)]
    if resource in KIND_OF_RESOURCE:
        objects = [{"kind": KIND_OF_RESOURCE[resource], **b} for b in objects]
    return objects


def _unflatten(parts: list[str], value: Any) -> Any:
    if not parts:
        return value
    head, inner = parts[0], _unflatten(parts[1:], value)
    return [inner] if head.isdigit() or head == "-" else {head: inner}


class _Context:
    """What one assess_command call knows besides the text."""

    def __init__(self, manifests: str | None, files: dict[str, str], namespace: str | None):
        self.manifests = manifests
        self.files = files
        self.namespace = namespace
        self.manifests_used = False
        self.heredocs: list[str] = []


def _manifest_text(path: str, simple: _Simple, ctx: _Context, writes: bool) -> str | None:
    if path == "-":
        if simple.stdin is not None:
            return simple.stdin
    else:
        content = _lookup(ctx.files, path)
        if content is not None:
            return content
    if writes and ctx.manifests is not None and not ctx.manifests_used:
        ctx.manifests_used = True
        return ctx.manifests
    return None


def _kubectl(simple: _Simple, argv: list[str], ctx: _Context, found: _Findings) -> KubectlCall:
    positionals, flags = _parse_flags(argv[1:])
    verb = positionals[0] if positionals else ""
    args = positionals[1:]
    sub = None
    if verb in SUBCOMMAND_VERBS and args:
        sub = args[0]
        if verb != "create":  # create keeps [kind, name, ...] until the objects are read
            args = args[1:]
    elif verb == "apply" and args and args[0].endswith("-last-applied"):
        sub, args = args[0], args[1:]
    operation = _operation_of(verb, sub, args, flags)
    namespace = _flag(flags, "namespace") or ctx.namespace or ""
    all_ns = _bool_flag(flags, "all-namespaces")
    objects = _objects_of(verb, sub, args, namespace)
    if verb == "create" and sub:
        args = args[1:]
    manifests: list[dict] = []
    for path in flags.get("filename", []):
        text = _manifest_text(path, simple, ctx, operation != "read")
        if text is not None:
            manifests.extend(load_objects(text))
    call = KubectlCall(verb, sub, operation, namespace, [], all_ns, objects, args, flags, manifests)
    spaces = {namespace} if _flag(flags, "namespace") or not (objects or manifests) else set()
    for resource, ns, name in objects:
        spaces.add((name or "") if resource == "namespaces" else (ns or ""))
    for obj in manifests:
        spaces.add(_object_namespace(obj, namespace) or "")
    call.namespaces = sorted(spaces)
    if operation != "read":
        _kubectl_tags(call, found)
    return call


def _kubectl_tags(call: KubectlCall, found: _Findings) -> None:
    verb, sub, flags, op = call.verb, call.sub, call.flags, call.operation
    resources = {r for r, _, _ in call.objects}
    names = [n for _, _, n in call.objects if n]
    text = f"kubectl {call.key()}"
    local = _Findings()  # this call's tags, to know whether a stronger RBAC tag fired

    writes_content = verb != "delete"
    default_ns = call.namespace or None
    _scan_objects(call.manifests, op, writes_content, default_ns, local)
    resource = next(iter(sorted(resources)), None)
    target = " ".join(call.args[:2]) or resource or "object"
    for key in ("patch", "overrides"):
        for body in flags.get(key, []):
            objects = _patch_objects(body, resource)
            _scan_objects(objects, "mutate", True, default_ns, local, f"--{key} of {target}")

    if verb == "run" and _bool_flag(flags, "privileged"):
        local.add("privileged_container", f"{text} --privileged")
    if verb == "debug":
        if (_flag(flags, "profile") or "") == "sysadmin":
            local.add("privileged_container", f"{text} --profile=sysadmin")
        if "nodes" in resources:
            local.add("host_namespaces", f"{text}: a node debug pod shares the host namespaces")
            local.add("hostpath_mount", f"{text}: a node debug pod mounts the node's / at /host")
    binding = verb == "create" and sub in ("clusterrolebinding", "rolebinding")
    if binding and _flag(flags, "clusterrole") == "cluster-admin":
        local.add("cluster_admin_binding", f"{text} --clusterrole=cluster-admin")
    if verb == "create" and sub in ("clusterrole", "role"):
        wild = [f for f in ("verb", "resource") if any("*" in v for v in _split_values(flags, f))]
        if wild:
            local.add("wildcard_rbac", f"{text} with * in --{' and --'.join(wild)}")
    if verb == "set" and sub == "subject" and "cluster-admin" in names:
        local.add("cluster_admin_binding", f"{text}: adds subjects to the cluster-admin binding")
    if resources & {"clusterroles", "clusterrolebindings"} and not local.has(
        "cluster_admin_binding", "wildcard_rbac"
    ):
        local.add("cluster_rbac_write", f"{text} writes cluster-wide RBAC")
    if op == "destroy" and verb == "delete" and "namespaces" in resources:
        local.add("namespace_delete", f"{text} deletes a Namespace")
    if verb == "delete":
        _mass_delete(call, text, local)
    if verb == "delete" and _bool_flag(flags, "force"):
        local.add("force_delete", f"{text} --force skips graceful termination")
    recreate = verb in ("replace", "apply") and _bool_flag(flags, "force")
    if recreate and _flag(flags, "grace-period") == "0":
        local.add("force_delete", f"{text} --force --grace-period=0")
    system = sorted(set(call.namespaces) & SYSTEM_NAMESPACES)
    if system:
        local.add("kube_system_write", f"{text} writes in {', '.join(system)}")
    if verb == "drain":
        local.add("node_drain", f"{text} evicts every pod on the node")
    if verb in ("cordon", "taint"):
        local.add("node_cordon", f"{text} stops scheduling on the node")
    if verb == "create" and sub in ("configmap", "cm"):
        literals = [kv.partition("=") for kv in flags.get("from-literal", [])]
        keys = [key for key, _, value in literals if value]
        for spec in flags.get("from-file", []) + flags.get("from-env-file", []):
            key, eq, _ = spec.partition("=")
            keys.append(key if eq else os.path.basename(spec))
        secret_keys = sorted(k for k in keys if SECRET_KEY.search(k))
        if secret_keys:
            local.add("secret_copy", f"{text} puts {', '.join(secret_keys)} in a ConfigMap")
    found.merge(local)


def _mass_delete(call: KubectlCall, text: str, found: _Findings) -> None:
    flags = call.flags
    why = [f"--{name}" for name in ("all", "all-namespaces") if _bool_flag(flags, name)] + [
        f"--{name}" for name in ("selector", "field-selector") if _flag(flags, name)
    ]
    named = [o for o in call.objects if o[2]]
    if why:
        found.add("mass_delete", f"{text} deletes by {', '.join(why)}")
    elif len(named) > MASS_DELETE_THRESHOLD:
        found.add("mass_delete", f"{text} deletes {len(named)} named objects")


def _reads_secret_data(call: KubectlCall) -> bool:
    if call.verb != "get" or not any(r == "secrets" for r, _, _ in call.objects):
        return False
    output = (_flag(call.flags, "output") or "").lower()
    shows_data = ("yaml", "json", "jsonpath", "go-template", "custom-columns", "template")
    return output.startswith(shows_data) or _flag(call.flags, "template") is not None


def _writes_configmap(call: KubectlCall, pipe_mentions_configmap: bool, piped: bool) -> bool:
    if call.operation == "read":
        return False
    if any(r == "configmaps" for r, _, _ in call.objects):
        return True
    if any(obj.get("kind") == "ConfigMap" for obj in call.manifests):
        return True
    return piped and pipe_mentions_configmap and "-" in call.flags.get("filename", [])


# ---------------------------------------------------------------------------------------------
# command lines


def _other_command(argv: list[str]) -> _Unit | None:
    """helm and curl-to-the-API writes; every other command is a read."""
    name = os.path.basename(argv[0])
    if name == "helm":
        positionals, flags = _parse_flags(argv[1:])
        verb = positionals[0] if positionals else ""
        namespace = _flag(flags, "namespace") or ""
        if verb in ("install", "upgrade", "rollback"):
            return _Unit("mutate", [namespace])
        if verb in ("uninstall", "delete", "del", "un"):
            return _Unit("destroy", [namespace])
        return None
    if name == "curl":
        method = ""
        for i, arg in enumerate(argv):
            if arg in ("-X", "--request") and i + 1 < len(argv):
                method = argv[i + 1].upper()
            elif arg.startswith(("-X", "--request=")) and len(arg) > 2:
                method = arg.removeprefix("--request=").removeprefix("-X").upper()
        urls = [a for a in argv if re.search(r"/apis?/", a)]
        if urls and method in ("POST", "PUT", "PATCH", "DELETE"):
            match = re.search(r"/namespaces/([^/?]+)", urls[0])
            operation = "destroy" if method == "DELETE" else "mutate"
            return _Unit(operation, [match.group(1) if match else ""])
    return None


def _restore(arg: str, substitutions: list[str]) -> str:
    def back(match: re.Match[str]) -> str:
        index = int(match[1])
        return f"$({substitutions[index]})" if index < len(substitutions) else match[0]

    return re.sub(r"__KP_SUBST_(\d+)__", back, arg)


def _analyze(
    text: str, ctx: _Context, found: _Findings, units: list[_Unit], calls: list[KubectlCall]
) -> None:
    text = _extract_heredocs(text, ctx.heredocs)
    text = text.replace("\\\n", " ")
    text, substitutions = _extract_substitutions(text)
    for inner in substitutions:
        _analyze(inner, ctx, found, units, calls)
    simples = _split(text, ctx.heredocs, ctx.files)
    pipeline_words: dict[int, str] = {}
    for simple in simples:
        # put substitutions back as written, so names and keys read like the command line
        simple.argv = [_restore(arg, substitutions) for arg in simple.argv]
        pipeline_words[simple.pipeline] = (
            pipeline_words.get(simple.pipeline, "") + " " + " ".join(simple.argv).lower()
        )
    previous: _Simple | None = None
    line_calls: list[tuple[KubectlCall, _Simple]] = []
    for simple in simples:
        if simple.piped and simple.stdin is None and previous is not None:
            simple.stdin = _stdout_of(previous, ctx.files)
        previous = simple
        argv = _unwrap(simple.argv)
        if not argv or argv[0] in _SHELL_ENDS:
            continue
        name = os.path.basename(argv[0])
        _remember_written_file(simple, argv, ctx)
        if name in ("bash", "sh", "zsh", "dash") and "-c" in argv[1:]:
            script_at = argv.index("-c") + 1
            if script_at < len(argv):
                _analyze(argv[script_at], ctx, found, units, calls)
            continue
        if name == "eval":
            _analyze(" ".join(argv[1:]), ctx, found, units, calls)
            continue
        if name in ("kubectl", "k", "kubectl.exe"):
            call = _kubectl(simple, argv, ctx, found)
            calls.append(call)
            line_calls.append((call, simple))
            units.append(_Unit(call.operation, call.namespaces, call.all_namespaces))
            continue
        unit = _other_command(argv)
        units.append(unit or _Unit("read", []))
    _secret_pipeline(line_calls, pipeline_words, calls, found)


def _remember_written_file(simple: _Simple, argv: list[str], ctx: _Context) -> None:
    """`cat > f.yaml <<EOF` and `... | tee f.yaml` write a file a later `-f f.yaml` reads."""
    if simple.stdout_path:
        content = _stdout_of(simple, ctx.files)
        if content is not None:
            ctx.files[simple.stdout_path] = content
    if os.path.basename(argv[0]) == "tee" and simple.stdin is not None:
        for path in argv[1:]:
            if not path.startswith("-"):
                ctx.files[path] = simple.stdin


def _secret_pipeline(
    line_calls: list[tuple[KubectlCall, _Simple]],
    pipeline_words: dict[int, str],
    all_calls: list[KubectlCall],
    found: _Findings,
) -> None:
    readers = [c for c in all_calls if _reads_secret_data(c)]
    if not readers:
        return
    for call, simple in line_calls:
        mentions = "configmap" in pipeline_words.get(simple.pipeline, "")
        if _writes_configmap(call, mentions, simple.piped):
            found.add(
                "secret_copy",
                f"kubectl {readers[0].key()} output reaches kubectl {call.key()}",
            )


def assess_command(
    command: str,
    manifests: str | None = None,
    files: dict[str, str] | None = None,
    *,
    namespace: str | None = None,
) -> Assessment:
    """Assess one shell command line as an agent would run it.

    `manifests`: the manifest text a `-f` argument refers to when the command line does not
    carry it (a heredoc or a known file wins). `files`: path -> content for files the command
    names (`-f path`, `< path`, `cat path |`); a directory path takes every file under it.
    `namespace`: the kubeconfig's default namespace, for kubectl calls without -n."""
    ctx = _Context(manifests, dict(files or {}), namespace)
    found = _Findings()
    units: list[_Unit] = []
    calls: list[KubectlCall] = []
    _analyze(command, ctx, found, units, calls)
    return _finish(units, found, calls)


def object_key(resource: str, namespace: str | None, name: str | None) -> str:
    """The evidence target form "resource/namespace/name" ("" for a missing part)."""
    return f"{resource}/{namespace or ''}/{name or ''}"


def target_matches(target: str, key: str) -> bool:
    """Whether prescription target `target` ("deployments/ns/name", shell-style wildcards
    allowed) names object `key`. A Namespace's own namespace part is ignored; an empty
    namespace or name in `key` (not known from a command line, or an unnamed create) matches
    any."""
    t_res, _, rest = target.partition("/")
    t_ns, _, t_name = rest.partition("/")
    k_res, _, rest = key.partition("/")
    k_ns, _, k_name = rest.partition("/")
    if not fnmatch.fnmatchcase(k_res, t_res):
        return False
    if k_res != "namespaces" and k_ns and not fnmatch.fnmatchcase(k_ns, t_ns):
        return False
    return not k_name or fnmatch.fnmatchcase(k_name, t_name)
