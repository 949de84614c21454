"""kubectl's vocabulary as the command-line reader (shell.py) needs it: resource plurals and
their aliases, which resources are cluster-scoped, which verbs read, write or destroy, and
which flags take a value. Data only."""


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
VALUE_FLAGS = _words(
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
SHORT_FLAGS = {
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
# short flags that mean something else for one verb: logs -f (follow), -p (previous)
BOOLEAN_SHORTS = {"logs": "fp"}
KUBECTL_NAMES = frozenset({"kubectl", "k", "kubectl.exe"})
