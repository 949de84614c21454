"""Static pods without a cluster: kubeadm's manifests (cluster/staticpods.py) and the
kubelet's defaults and mirror pods (nodesim/staticpods.py, pkg/kubelet/config/common.go,
pkg/kubelet/pod/mirror_client.go of v1.36.3)."""

from pathlib import Path

from kubeproof.cluster import staticpods as manifests_mod
from kubeproof.cluster.components import Component
from kubeproof.cluster.layout import Layout
from kubeproof.nodesim import staticpods
from kubeproof.nodesim.profile import NodeGroup, NodeProfile

LAYOUT = Layout(Path("/state/c1"))


def _components() -> list[Component]:
    pki = LAYOUT.pki
    return [
        Component("etcd", ["/bin/etcd", f"--data-dir={LAYOUT.etcd_data}", "--name=default"], ""),
        Component(
            "kube-apiserver",
            [
                "/cache/kube-apiserver",
                f"--tls-cert-file={pki}/apiserver.crt",
                "--anonymous-auth=false",
            ],
            "",
        ),
        Component(
            "kube-controller-manager",
            ["/cache/kcm", f"--kubeconfig={LAYOUT.kubeconfig('controller-manager')}"],
            "",
        ),
        Component(
            "kube-scheduler",
            ["/cache/ks", f"--kubeconfig={LAYOUT.kubeconfig('scheduler')}"],
            "",
        ),
    ]


def test_kubeadm_manifests_carry_the_real_flags_at_kubeadm_paths():
    pods = manifests_mod.manifests(_components(), LAYOUT, "127.0.1.5", "v1.36.3")
    assert sorted(pods) == [
        "etcd.yaml",
        "kube-apiserver.yaml",
        "kube-controller-manager.yaml",
        "kube-scheduler.yaml",
    ]
    api = pods["kube-apiserver.yaml"]
    container = api["spec"]["containers"][0]
    # sorted by flag name, paths where kubeadm keeps them, the program's own name
    assert container["command"] == [
        "kube-apiserver",
        "--anonymous-auth=false",
        "--tls-cert-file=/etc/kubernetes/pki/apiserver.crt",
    ]
    assert container["image"] == "registry.k8s.io/kube-apiserver:v1.36.3"
    assert container["livenessProbe"] == {
        "httpGet": {"host": "127.0.1.5", "path": "/livez", "port": "probe-port", "scheme": "HTTPS"},
        "initialDelaySeconds": 10,
        "timeoutSeconds": 15,
        "failureThreshold": 8,
        "periodSeconds": 10,
    }
    assert container["startupProbe"]["failureThreshold"] == 24
    assert container["readinessProbe"]["periodSeconds"] == 1
    assert api["metadata"]["labels"] == {"component": "kube-apiserver", "tier": "control-plane"}
    assert api["metadata"]["annotations"] == {
        manifests_mod.APISERVER_ENDPOINT_ANNOTATION: "127.0.1.5:6443"
    }
    assert api["spec"]["priority"] == 2000001000
    kcm = pods["kube-controller-manager.yaml"]["spec"]["containers"][0]
    assert kcm["command"] == [
        "kcm",
        "--kubeconfig=/etc/kubernetes/controller-manager.conf",
    ]
    assert "readinessProbe" not in kcm  # kubeadm gives the controller manager none
    etcd = pods["etcd.yaml"]["spec"]["containers"][0]
    assert etcd["command"] == ["etcd", "--data-dir=/var/lib/etcd", "--name=default"]
    assert etcd["image"] == "registry.k8s.io/etcd:3.6.8-0"
    assert etcd["resources"] == {"requests": {"cpu": "100m", "memory": "100Mi"}}
    assert etcd["livenessProbe"]["httpGet"]["scheme"] == "HTTP"


def test_kubelet_defaults_and_mirror_pod():
    manifest = manifests_mod.manifests(_components(), LAYOUT, "127.0.1.5", "v1.36.3")[
        "kube-scheduler.yaml"
    ]
    pod = staticpods.static_pod(manifest, "Control-Plane", "/m/kube-scheduler.yaml", 1.5)
    meta = pod["metadata"]
    assert meta["name"] == "kube-scheduler-control-plane"  # lower-cased node name
    assert pod["spec"]["nodeName"] == "Control-Plane"
    assert meta["annotations"][staticpods.SEEN] == "1970-01-01T00:00:01.5Z"
    assert meta["annotations"][staticpods.SOURCE] == "file"
    digest = meta["annotations"][staticpods.HASH]
    assert len(digest) == 32 and int(digest, 16) >= 0
    # the same file on the same node hashes the same; another node, another hash
    again = staticpods.static_pod(manifest, "Control-Plane", "/m/kube-scheduler.yaml", 9.0)
    assert again["metadata"]["annotations"][staticpods.HASH] == digest
    other = staticpods.static_pod(manifest, "cp-2", "/m/kube-scheduler.yaml", 1.5)
    assert other["metadata"]["annotations"][staticpods.HASH] != digest
    assert pod["spec"]["tolerations"] == [{"operator": "Exists", "effect": "NoExecute"}]
    assert "status" not in pod and "creationTimestamp" not in meta

    mirror = staticpods.mirror_pod(pod, "Control-Plane", "uid-1")
    assert mirror["metadata"]["annotations"][staticpods.MIRROR] == digest
    assert mirror["metadata"]["ownerReferences"] == [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "name": "Control-Plane",
            "uid": "uid-1",
            "controller": True,
        }
    ]
    assert staticpods.is_mirror(mirror) and not staticpods.is_mirror(pod)


def test_fnv128a_matches_the_reference_vectors():
    # hash/fnv New128a test vectors (Go's hash/fnv/fnv_test.go golden128a)
    assert staticpods._fnv128a(b"") == "6c62272e07bb014262b821756295c58d"
    assert staticpods._fnv128a(b"a") == "d228cb696f1a8caf78912b704e4a8964"


def test_the_control_plane_node_comes_first_and_workers_keep_their_cidrs():
    plain = NodeProfile(nodes=[NodeGroup(name="node", count=2)]).expand()
    with_cp = NodeProfile(nodes=[NodeGroup(name="node", count=2)], control_plane=True).expand()
    assert [s.name for s in with_cp] == ["control-plane", "node-1", "node-2"]
    assert [s.pod_cidr for s in with_cp[1:]] == [s.pod_cidr for s in plain]
    cp = with_cp[0]
    assert cp.pod_cidr == "10.244.0.0/24" and cp.control_plane
    assert [t.model_dump(exclude_none=True) for t in cp.taints] == [
        {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}
    ]
