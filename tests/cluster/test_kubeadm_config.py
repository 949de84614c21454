"""kubeadm's ConfigMaps and RBAC without a cluster (cluster/kubeadmconfig.py, kubeadmrbac.py):
rendered from a fake cluster and compared with what `kubeadm init` v1.36.3 writes."""

import base64
import hashlib
from pathlib import Path

import yaml

from kubeproof.cluster import kubeadmconfig, kubeadmrbac
from kubeproof.cluster.binaries import Binaries
from kubeproof.cluster.components import Context, all_components
from kubeproof.cluster.layout import Layout
from kubeproof.cluster.pki import CLIENTS

GOLDEN = Path(__file__).parent / "golden"
LAYOUT = Layout(Path("/state/c1"))
ADDRESS = "127.0.1.5"
COMPONENTS = all_components(
    Context(LAYOUT, ADDRESS, Binaries(Path("/cache/bin")), ("control-plane", "node-1"))
)


def test_cluster_configuration_as_kubeadm_marshals_it():
    """uploadconfig.go:57: the v1beta4 ClusterConfiguration, defaults filled in, our flags
    that kubeadm's commands lack as extraArgs (golden/kubeadm-config.yaml, reviewed against
    manifests.go:185-382 and etcd/local.go:242-284). A component flag added or changed in
    cluster/components/ changes the extraArgs: review the diff, then rewrite the file with
    go_yaml(cluster_configuration(...)) as below."""
    config = kubeadmconfig.cluster_configuration(COMPONENTS, LAYOUT, ADDRESS, "v1.36.3")
    text = kubeadmconfig.go_yaml(config)
    assert text == (GOLDEN / "kubeadm-config.yaml").read_text()
    # kubeadm's own values are not repeated as extraArgs; paths are kubeadm's, not ours
    api = {a["name"]: a["value"] for a in config["apiServer"]["extraArgs"]}
    assert "advertise-address" not in api and "enable-admission-plugins" not in api
    assert api["anonymous-auth"] == "false"
    assert str(LAYOUT.root) not in text


def test_extra_args_with_kubeadm_defaults_give_the_static_pod_commands():
    """ArgumentsToCommand (cmd/kubeadm/app/util/arguments.go): defaults overridden by the
    extra arguments; every flag the static pod shows comes out (flags only kubeadm sets
    cannot be removed and are the difference)."""
    from kubeproof.cluster.staticpods import command

    flags = kubeadmconfig._kubeadm_flags(ADDRESS)
    for component in COMPONENTS[:4]:
        extra = kubeadmconfig.extra_args(component, LAYOUT, ADDRESS)
        merged = flags[component.name] | {a["name"]: a["value"] for a in extra}
        ours = dict(f.removeprefix("--").split("=", 1) for f in command(component, LAYOUT)[1:])
        assert {k: merged[k] for k in ours} == ours


def test_kubelet_config_as_kubeadm_defaults_and_signs_it():
    cm = kubeadmconfig.kubelet_config()
    assert (cm["metadata"]["namespace"], cm["metadata"]["name"]) == (
        "kube-system",
        "kubelet-config",
    )
    text = cm["data"]["kubelet"]
    config = yaml.safe_load(text)
    # componentconfigs/kubelet.go:111-197 Default
    assert config["cgroupDriver"] == "systemd"
    assert config["clusterDNS"] == ["10.96.0.10"]
    assert config["clusterDomain"] == "cluster.local"
    assert config["staticPodPath"] == "/etc/kubernetes/manifests"
    assert config["rotateCertificates"] is True
    assert config["authentication"] == {
        "anonymous": {"enabled": False},
        "webhook": {"cacheTTL": "0s", "enabled": True},
        "x509": {"clientCAFile": "/etc/kubernetes/pki/ca.crt"},
    }
    assert config["authorization"]["mode"] == "Webhook"
    assert (config["healthzBindAddress"], config["healthzPort"]) == ("127.0.0.1", 10248)
    assert "resolvConf" not in config  # Mutate only touches the node's own file
    assert list(config) == sorted(config)
    # checksums.go:29-58: sha256 over the values in key order
    want = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    assert cm["metadata"]["annotations"] == {"kubeadm.kubernetes.io/component-config.hash": want}


def test_cluster_info_is_admin_confs_cluster_as_clientcmd_writes_it():
    pem = b"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"
    cm = kubeadmconfig.cluster_info(pem)
    assert (cm["metadata"]["namespace"], cm["metadata"]["name"]) == ("kube-public", "cluster-info")
    assert list(cm["data"]) == ["kubeconfig"]  # no jws-kubeconfig-*: no bootstrap token
    ca = base64.b64encode(pem).decode()
    assert cm["data"]["kubeconfig"] == (
        "apiVersion: v1\n"
        "clusters:\n"
        "- cluster:\n"
        f"    certificate-authority-data: {ca}\n"
        "    server: https://control-plane:6443\n"
        '  name: ""\n'
        "contexts: null\n"
        'current-context: ""\n'
        "kind: Config\n"
        "users: null\n"
    )


def test_rbac_is_kubeadms_and_grants_no_identity_of_ours_anything(tmp_path):
    layout = Layout(tmp_path)
    layout.pki.mkdir()
    layout.cert("ca").write_bytes(b"PEM")
    objs = kubeadmconfig.objects(COMPONENTS, layout, ADDRESS, "v1.36.3")
    configmaps = [(o.metadata.namespace, o.metadata.name) for o in objs if o.kind == "ConfigMap"]
    assert configmaps == [
        ("kube-system", "kubeadm-config"),
        ("kube-system", "kubelet-config"),
        ("kube-public", "cluster-info"),
    ]
    objs = [o for o in objs if o.kind != "ConfigMap"]
    names = [(o.kind, o.metadata.namespace, o.metadata.name) for o in objs]
    assert names == [
        ("ClusterRoleBinding", None, "kubeadm:cluster-admins"),
        ("Role", "kube-system", "kubeadm:nodes-kubeadm-config"),
        ("RoleBinding", "kube-system", "kubeadm:nodes-kubeadm-config"),
        ("Role", "kube-system", "kubeadm:kubelet-config"),
        ("RoleBinding", "kube-system", "kubeadm:kubelet-config"),
        ("ClusterRole", None, "kubeadm:get-nodes"),
        ("ClusterRoleBinding", None, "kubeadm:get-nodes"),
        ("ClusterRoleBinding", None, "kubeadm:kubelet-bootstrap"),
        ("ClusterRoleBinding", None, "kubeadm:node-autoapprove-bootstrap"),
        ("ClusterRoleBinding", None, "kubeadm:node-autoapprove-certificate-rotation"),
        ("ClusterRoleBinding", None, "kubeadm:apiserver-kubelet-client"),
        ("Role", "kube-public", "kubeadm:bootstrap-signer-clusterinfo"),
        ("RoleBinding", "kube-public", "kubeadm:bootstrap-signer-clusterinfo"),
    ]
    subjects = {(s.kind, s.name) for o in objs if hasattr(o, "subjects") for s in o.subjects}
    assert subjects == {
        ("Group", kubeadmrbac.BOOTSTRAP_GROUP),
        ("Group", "system:nodes"),
        ("Group", "kubeadm:cluster-admins"),
        ("User", "system:anonymous"),
        ("User", "kube-apiserver-kubelet-client"),
    }
    # no certificate of ours is in the group kubeadm makes cluster-admin
    assert not any("kubeadm:cluster-admins" in c.groups for c in CLIENTS)
