import ipaddress

from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from kubeproof.cluster.pki import write_pki


def _cert(path):
    return x509.load_pem_x509_certificate(path.read_bytes())


def test_every_certificate_chains_to_the_cluster_ca(tmp_path):
    write_pki(tmp_path, "127.0.3.7", "demo")
    ca = _cert(tmp_path / "ca.crt")
    for name in ("apiserver", "etcd", "admin", "controller-manager", "scheduler", "etcd-client"):
        cert = _cert(tmp_path / f"{name}.crt")
        cert.verify_directly_issued_by(ca)
    assert (tmp_path / "ca.key").stat().st_mode & 0o777 == 0o600
    # the front proxy names users in headers: its client chains to a CA of its own
    front = _cert(tmp_path / "front-proxy-client.crt")
    front.verify_directly_issued_by(_cert(tmp_path / "front-proxy-ca.crt"))
    assert front.issuer != ca.subject


def test_apiserver_serving_cert_names_the_cluster_address_and_service_names(tmp_path):
    write_pki(tmp_path, "127.0.3.7", "demo")
    cert = _cert(tmp_path / "apiserver.crt")
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    ips = sans.get_values_for_type(x509.IPAddress)
    assert ipaddress.ip_address("127.0.3.7") in ips
    assert ipaddress.ip_address("10.96.0.1") in ips
    assert "kubernetes.default.svc.cluster.local" in sans.get_values_for_type(x509.DNSName)
    usage = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(usage) == [ExtendedKeyUsageOID.SERVER_AUTH]


def test_admin_is_in_system_masters_and_components_have_their_rbac_users(tmp_path):
    write_pki(tmp_path, "127.0.3.7", "demo")
    admin = _cert(tmp_path / "admin.crt").subject
    assert admin.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)[0].value == "system:masters"
    kcm = _cert(tmp_path / "controller-manager.crt").subject
    assert kcm.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == (
        "system:kube-controller-manager"
    )


def test_two_clusters_get_different_cas(tmp_path):
    write_pki(tmp_path / "a", "127.0.3.7", "a")
    write_pki(tmp_path / "b", "127.0.3.8", "b")
    assert (tmp_path / "a" / "ca.crt").read_bytes() != (tmp_path / "b" / "ca.crt").read_bytes()


def test_the_simulator_is_no_master_and_csrs_have_a_signer_nobody_trusts(tmp_path):
    write_pki(tmp_path, "127.0.3.7", "demo", nodes=["worker-1"])
    nodesim = _cert(tmp_path / "nodesim.crt").subject
    assert nodesim.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "kubeproof:nodesim"
    assert not nodesim.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)
    node = _cert(tmp_path / "node-worker-1.crt").subject
    assert node.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)[0].value == "system:nodes"
    signer, ca = _cert(tmp_path / "csr-signer.crt"), _cert(tmp_path / "ca.crt")
    assert signer.subject != ca.subject and signer.public_key() != ca.public_key()
