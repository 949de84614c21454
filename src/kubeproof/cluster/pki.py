"""A cluster's own PKI, made with `cryptography`.

Every cluster gets a fresh CA (ECDSA P-256: key generation takes about a millisecond, so a
new PKI costs nothing on a warm start) and so cannot accept another cluster's credentials.
"""

import datetime as dt
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

SERVICE_CIDR = "10.96.0.0/16"
FIRST_SERVICE_IP = "10.96.0.1"
CLUSTER_DOMAIN = "cluster.local"


@dataclass(frozen=True)
class Identity:
    """A client certificate to issue: file stem, user name and groups."""

    stem: str
    user: str
    groups: tuple[str, ...] = ()


CLIENTS = (
    Identity("admin", "kubeproof-admin", ("system:masters",)),
    Identity("controller-manager", "system:kube-controller-manager"),
    Identity("scheduler", "system:kube-scheduler"),
    Identity("etcd-client", "kube-apiserver-etcd-client"),
    # the node simulator: its watches, Node creation, SubjectAccessReviews and the metrics API
    # registration; RBAC grants exactly these (cluster/components/nodesim.py RBAC), never
    # system:masters
    Identity("nodesim", "kubeproof:nodesim"),
    # no group, as kubeadm's (cmd/kubeadm/app/phases/certs/certlist.go:312-325): its access to
    # the kubelet API is the kubeadm:apiserver-kubelet-client binding (kubeadmrbac.py), and
    # the kubeadm:cluster-admins group that binding's neighbour makes cluster-admin is no one's
    Identity("apiserver-kubelet-client", "kube-apiserver-kubelet-client"),
)


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _name(cn: str, groups: tuple[str, ...] = ()) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, g) for g in groups]
    return x509.Name([*attrs, x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _write(path: Path, data: bytes, private: bool = False) -> None:
    path.write_bytes(data)
    if private:
        path.chmod(0o600)


class CertificateAuthority:
    def __init__(self, key: ec.EllipticCurvePrivateKey, cert: x509.Certificate):
        self.key = key
        self.cert = cert

    @classmethod
    def create(cls, common_name: str) -> "CertificateAuthority":
        key = _key()
        now = dt.datetime.now(dt.UTC)
        name = _name(common_name)
        cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    key_cert_sign=True,
                    crl_sign=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
            .sign(key, hashes.SHA256())
        )
        return cls(key, cert)

    def issue(
        self,
        common_name: str,
        groups: tuple[str, ...] = (),
        *,
        server: bool = False,
        client: bool = True,
        dns_names: tuple[str, ...] = (),
        ips: tuple[str, ...] = (),
    ) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
        key = _key()
        now = dt.datetime.now(dt.UTC)
        usages = [ExtendedKeyUsageOID.SERVER_AUTH] if server else []
        usages += [ExtendedKeyUsageOID.CLIENT_AUTH] if client else []
        builder = (
            x509.CertificateBuilder()
            .subject_name(_name(common_name, groups))
            .issuer_name(self.cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5))
            .not_valid_after(now + dt.timedelta(days=365))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(self.key.public_key()), False
            )
        )
        sans: list[x509.GeneralName] = [x509.DNSName(n) for n in dns_names]
        sans += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ips]
        if sans:
            builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
        return key, builder.sign(self.key, hashes.SHA256())


def apiserver_dns_names() -> tuple[str, ...]:
    return (
        "localhost",
        "kubernetes",
        "kubernetes.default",
        "kubernetes.default.svc",
        f"kubernetes.default.svc.{CLUSTER_DOMAIN}",
    )


def write_pki(
    directory: Path, address: str, cluster_name: str, nodes: list[str] | None = None
) -> None:
    """Write ca, serving certs, client certs (one per simulated node too) and the
    service-account key pair."""
    directory.mkdir(parents=True, exist_ok=True)
    ca = CertificateAuthority.create(f"kubeproof-ca-{cluster_name}")
    _write(directory / "ca.crt", ca.cert.public_bytes(serialization.Encoding.PEM))
    _write(directory / "ca.key", _pem_key(ca.key), private=True)

    servers = {
        "apiserver": ca.issue(
            "kube-apiserver",
            server=True,
            client=False,
            dns_names=apiserver_dns_names(),
            ips=(address, "127.0.0.1", FIRST_SERVICE_IP),
        ),
        # etcd's member certificate serves clients and authenticates to peers
        "etcd": ca.issue("etcd", server=True, dns_names=("localhost",), ips=(address,)),
        "kubelet": ca.issue("kubelet", server=True, client=False, ips=(address,)),
    }
    for stem, (key, cert) in servers.items():
        _write(directory / f"{stem}.crt", cert.public_bytes(serialization.Encoding.PEM))
        _write(directory / f"{stem}.key", _pem_key(key), private=True)

    identities = list(CLIENTS)
    identities += [
        Identity(f"node-{n}", f"system:node:{n}", ("system:nodes",)) for n in nodes or []
    ]
    for ident in identities:
        key, cert = ca.issue(ident.user, ident.groups)
        _write(directory / f"{ident.stem}.crt", cert.public_bytes(serialization.Encoding.PEM))
        _write(directory / f"{ident.stem}.key", _pem_key(key), private=True)

    # The controller manager's CSR signer is a CA of its own that nothing trusts: a
    # certificate an agent gets issued through a CertificateSigningRequest authenticates
    # nowhere (with the cluster CA it could be any user, the harness's admin included, or
    # the front proxy, which may name any user in a header).
    signer = CertificateAuthority.create(f"kubeproof-csr-signer-{cluster_name}")
    _write(directory / "csr-signer.crt", signer.cert.public_bytes(serialization.Encoding.PEM))
    _write(directory / "csr-signer.key", _pem_key(signer.key), private=True)

    # The front proxy (the apiserver towards aggregated APIs: metrics.k8s.io from the
    # simulator) may name any user in a header, so its CA is one of its own, as kubeadm's
    # front-proxy-ca: a certificate from the cluster CA can never act as it.
    front = CertificateAuthority.create(f"kubeproof-front-proxy-ca-{cluster_name}")
    _write(directory / "front-proxy-ca.crt", front.cert.public_bytes(serialization.Encoding.PEM))
    _write(directory / "front-proxy-ca.key", _pem_key(front.key), private=True)
    key, cert = front.issue("front-proxy-client")
    _write(directory / "front-proxy-client.crt", cert.public_bytes(serialization.Encoding.PEM))
    _write(directory / "front-proxy-client.key", _pem_key(key), private=True)

    sa = _key()
    _write(directory / "sa.key", _pem_key(sa), private=True)
    public = sa.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    _write(directory / "sa.pub", public)
