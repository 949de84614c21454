"""The lines a client-go program prints when the apiserver refuses it (k8s.io/client-go
v0.36.3, k8s.io/apimachinery v0.36.3, k8s.io/apiserver v0.36.3, k8s.io/klog/v2 v2.140.0):
the error text a refused request returns, and the klog line an informer's reflector logs."""

from datetime import UTC, datetime

# reflect.TypeOf(expectedType).String() of the typed informer for a (group, resource)
# (client-go tools/cache/reflector.go:373-388 getTypeDescriptionFromObject)
GO_TYPES = {
    ("", "pods"): "*v1.Pod",
    ("", "services"): "*v1.Service",
    ("", "endpoints"): "*v1.Endpoints",
    ("", "configmaps"): "*v1.ConfigMap",
    ("", "secrets"): "*v1.Secret",
    ("", "namespaces"): "*v1.Namespace",
    ("", "nodes"): "*v1.Node",
    ("", "serviceaccounts"): "*v1.ServiceAccount",
    ("", "events"): "*v1.Event",
    ("", "persistentvolumeclaims"): "*v1.PersistentVolumeClaim",
    ("apps", "deployments"): "*v1.Deployment",
    ("apps", "statefulsets"): "*v1.StatefulSet",
    ("apps", "daemonsets"): "*v1.DaemonSet",
    ("apps", "replicasets"): "*v1.ReplicaSet",
    ("batch", "jobs"): "*v1.Job",
    ("coordination.k8s.io", "leases"): "*v1.Lease",
    ("discovery.k8s.io", "endpointslices"): "*v1.EndpointSlice",
    ("networking.k8s.io", "ingresses"): "*v1.Ingress",
    ("networking.k8s.io", "networkpolicies"): "*v1.NetworkPolicy",
}
# the reflector's name: the first caller outside client-go/tools/cache/ when a shared
# informer factory starts it (informers/factory.go:177 `informer.RunWithContext(ctx)`),
# trimmed after `/pkg/` (apimachinery pkg/util/naming/from_stack.go:47-74) as a binary
# built from the module cache without -trimpath names it
FACTORY_REFLECTOR = "pkg/mod/k8s.io/client-go@v0.36.3/informers/factory.go:177"
# DefaultWatchErrorHandler's utilruntime.HandleErrorWithContext call; logError logs with
# WithCallDepth(3), so klog names this line (apimachinery pkg/util/runtime/runtime.go:249-253)
WATCH_ERROR_CALLER = "reflector.go:227"
PID = 1  # klog prints the process id; a container's main process is pid 1


def forbidden(
    user: str,
    verb: str,
    resource: str,
    group: str,
    subresource: str,
    namespace: str,
    name: str | None,
) -> str:
    """StatusError.Error() of the 403 the apiserver answers: apierrors.NewForbidden
    (apimachinery pkg/api/errors/errors.go:209-217) around forbiddenMessage (apiserver
    pkg/endpoints/handlers/responsewriters/errors.go:58-79; RBAC gives no reason)."""
    qualified = resource + (f".{group}" if group else "")  # GroupResource.String()
    shown = resource + (f"/{subresource}" if subresource else "")
    where = f"in the namespace {go_quote(namespace)}" if namespace else "at the cluster scope"
    reason = (
        f"User {go_quote(user)} cannot {verb} resource {go_quote(shown)} in API group "
        f"{go_quote(group)} {where}"
    )
    if name:
        return f"{qualified} {go_quote(name)} is forbidden: {reason}"
    return f"{qualified} is forbidden: {reason}"


def reflector_line(now: float, verb: str, group: str, resource: str, error: str) -> str:
    """What an informer logs when its list or watch is refused: ListAndWatch returns the
    list's error wrapped as `failed to list <type>: …` (reflector.go:747) or the watch's
    as is (reflector.go:605-616), and DefaultWatchErrorHandler logs it as `Failed to watch`
    (reflector.go:227) through klog's ErrorS: the header (klog internal/buffer/buffer.go:
    117-154), the quoted message, err, then the logger name `UnhandledError` (runtime.go:
    251, klogr.go:27) before the handler's own keys (klog.go:835-851); the err value is
    err.Error() strconv-quoted (internal/serialize/keyvalues_slog.go:72-73,
    keyvalues.go:270-277)."""
    kind = go_type(group, resource)
    err = f"failed to list {kind}: {error}" if verb == "list" else error
    return (
        f"{klog_header('E', now, WATCH_ERROR_CALLER)}{go_quote('Failed to watch')} "
        f"err={go_quote(err)} logger={go_quote('UnhandledError')} "
        f"reflector={go_quote(FACTORY_REFLECTOR)} type={go_quote(kind)}"
    )


def go_type(group: str, resource: str) -> str:
    if (group, resource) in GO_TYPES:
        return GO_TYPES[(group, resource)]
    # a dynamic informer's: an Unstructured without a kind (reflector.go:378-387)
    return "*unstructured.Unstructured"


def klog_header(severity: str, now: float, caller: str) -> str:
    """`Lmmdd hh:mm:ss.uuuuuu threadid file:line] ` in the container's zone (UTC)."""
    t = datetime.fromtimestamp(now, UTC)
    return f"{severity}{t:%m%d %H:%M:%S}.{t.microsecond:06d} {PID:7d} {caller}] "


def go_quote(text: str) -> str:
    """strconv.Quote for the text Kubernetes names and messages hold."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif not ch.isprintable():
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x80 else f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'
