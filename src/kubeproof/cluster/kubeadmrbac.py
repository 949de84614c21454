"""The RBAC `kubeadm init` (v1.36.3) creates beside its ConfigMaps (kubeadmconfig.py), as
an operator lists it (`kubectl get clusterrolebindings | grep kubeadm`).

They bind groups no identity here belongs to: `system:bootstrappers:kubeadm:default-node-
token` (this apiserver authenticates no bootstrap token), `system:anonymous` (anonymous
auth is off, components/kube_apiserver.py) and `kubeadm:cluster-admins` (no certificate
carries that group; an agent is a ServiceAccount). `system:nodes` gets read access to the
two kube-system ConfigMaps, as on every kubeadm cluster. So nobody gains a permission.
"""

BOOTSTRAP_GROUP = "system:bootstrappers:kubeadm:default-node-token"  # constants.go:181
NODES_GROUP = "system:nodes"  # constants.go:179
RBAC = "rbac.authorization.k8s.io"


def _role(namespace: str, name: str, configmap: str) -> dict:
    """A Role reading one ConfigMap by name."""
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": "Role",
        "metadata": {"name": name, "namespace": namespace},
        "rules": [
            {
                "apiGroups": [""],
                "resources": ["configmaps"],
                "resourceNames": [configmap],
                "verbs": ["get"],
            }
        ],
    }


def _binding(
    kind: str, name: str, role: str, subjects: list[tuple[str, str]], ns: str = ""
) -> dict:
    """A (Cluster)RoleBinding of `role` (a Role when namespaced) to (kind, name) subjects."""
    meta = {"name": name} | ({"namespace": ns} if ns else {})
    return {
        "apiVersion": f"{RBAC}/v1",
        "kind": kind,
        "metadata": meta,
        "roleRef": {"apiGroup": RBAC, "kind": "Role" if ns else "ClusterRole", "name": role},
        "subjects": [{"apiGroup": RBAC, "kind": k, "name": n} for k, n in subjects],
    }


# phases/uploadconfig/uploadconfig.go:80-122 (kubeadm:nodes-kubeadm-config, :38)
UPLOAD_CONFIG = [
    _role("kube-system", "kubeadm:nodes-kubeadm-config", "kubeadm-config"),
    _binding(
        "RoleBinding",
        "kubeadm:nodes-kubeadm-config",
        "kubeadm:nodes-kubeadm-config",
        [("Group", BOOTSTRAP_GROUP), ("Group", NODES_GROUP)],
        "kube-system",
    ),
]

# phases/kubelet/config.go:163-201 (kubeadm:kubelet-config, constants.go:197)
KUBELET_CONFIG = [
    _role("kube-system", "kubeadm:kubelet-config", "kubelet-config"),
    _binding(
        "RoleBinding",
        "kubeadm:kubelet-config",
        "kubeadm:kubelet-config",
        [("Group", NODES_GROUP), ("Group", BOOTSTRAP_GROUP)],
        "kube-system",
    ),
]

# cmd/phases/init/bootstraptoken.go:93-114 in order: phases/bootstraptoken/node/
# tlsbootstrap.go AllowBootstrapTokensToGetNodes, AllowBootstrapTokensToPostCSRs,
# AutoApproveNodeBootstrapTokens, AutoApproveNodeCertificateRotation,
# AllowAPIServerToAccessKubeletAPI (names constants.go:184-216)
BOOTSTRAP_TOKEN = [
    {
        "apiVersion": f"{RBAC}/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "kubeadm:get-nodes"},
        "rules": [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get"]}],
    },
    _binding(
        "ClusterRoleBinding", "kubeadm:get-nodes", "kubeadm:get-nodes", [("Group", BOOTSTRAP_GROUP)]
    ),
    _binding(
        "ClusterRoleBinding",
        "kubeadm:kubelet-bootstrap",
        "system:node-bootstrapper",
        [("Group", BOOTSTRAP_GROUP)],
    ),
    _binding(
        "ClusterRoleBinding",
        "kubeadm:node-autoapprove-bootstrap",
        "system:certificates.k8s.io:certificatesigningrequests:nodeclient",
        [("Group", BOOTSTRAP_GROUP)],
    ),
    _binding(
        "ClusterRoleBinding",
        "kubeadm:node-autoapprove-certificate-rotation",
        "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
        [("Group", NODES_GROUP)],
    ),
    _binding(
        "ClusterRoleBinding",
        "kubeadm:apiserver-kubelet-client",
        "system:kubelet-api-admin",
        [("User", "kube-apiserver-kubelet-client")],
    ),
]

# phases/bootstraptoken/clusterinfo/clusterinfo.go:83-120 (kubeadm:bootstrap-signer-clusterinfo)
CLUSTER_INFO = [
    _role("kube-public", "kubeadm:bootstrap-signer-clusterinfo", "cluster-info"),
    _binding(
        "RoleBinding",
        "kubeadm:bootstrap-signer-clusterinfo",
        "kubeadm:bootstrap-signer-clusterinfo",
        [("User", "system:anonymous")],
        "kube-public",
    ),
]

# phases/kubeconfig/kubeconfig.go:667-683 EnsureAdminClusterRoleBinding: the group of
# kubeadm's admin.conf (here the admin is system:masters, cluster/pki.py)
CLUSTER_ADMINS = [
    _binding(
        "ClusterRoleBinding",
        "kubeadm:cluster-admins",
        "cluster-admin",
        [("Group", "kubeadm:cluster-admins")],
    ),
]
