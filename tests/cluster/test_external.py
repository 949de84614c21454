import pytest

from kubeproof.cluster import ExternalCluster
from kubeproof.errors import KubeproofError


def test_unreadable_kubeconfig_is_a_clear_error(tmp_path):
    with pytest.raises(KubeproofError, match="cannot read kubeconfig"):
        ExternalCluster(tmp_path / "missing.kubeconfig")


def test_unknown_context_is_named(cluster):
    with pytest.raises(KubeproofError, match="has no context 'nope'"):
        ExternalCluster(cluster.admin_kubeconfig, context="nope")


def test_external_cluster_wraps_any_kubeconfig(cluster):
    with ExternalCluster(cluster.admin_kubeconfig) as external:
        assert external.server == cluster.server
        names = external.kubectl("get", "ns", "-o", "name").stdout.split()
        assert "namespace/kube-system" in names


def test_unreachable_server_is_reported(tmp_path, cluster):
    text = cluster.admin_kubeconfig.read_text().replace(cluster.server, "https://127.0.0.1:1")
    path = tmp_path / "dead.kubeconfig"
    path.write_text(text)
    with pytest.raises(KubeproofError, match=r"cannot reach https://127\.0\.0\.1:1"):
        ExternalCluster(path).start()
