"""Who may do what on an embedded cluster: the audit policy records every identity but the
control plane's own housekeeping, the node simulator has least privilege, nothing answers
anonymously but the health endpoints, and CSR-issued certificates authenticate nowhere."""

import base64
import json
import ssl
import time

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from kubeproof.cluster.addons import ADDON_ACCOUNTS
from kubeproof.cluster.audit import (
    CONTROLLER_ACCOUNTS,
    NODESIM_USER,
    POD_NAME_EXTRA,
    WORKLOAD_SOURCE,
    Attribution,
    attributed_to_agent,
    control_plane,
    policy,
    read_events,
)
from kubeproof.cluster.components import PORTS
from kubeproof.cluster.health import https_request

pytestmark = pytest.mark.cluster


def _status(url: str, cert: tuple | None = None, ca=None) -> int:
    ctx = ssl.create_default_context(cafile=str(ca) if ca else None)
    if ca is None:
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
    if cert:
        ctx.load_cert_chain(*map(str, cert))
    return https_request(url, ctx)[0]


def _as_token(sim, token: str, *args: str):
    """kubectl with the token alone (the admin kubeconfig's certificate would win)."""
    ca = sim.layout.pki / "ca.crt"
    flags = [f"--server={sim.server}", f"--certificate-authority={ca}", f"--token={token}"]
    return sim.kubectl("--kubeconfig=/dev/null", *flags, *args, check=False)


def _can(sim, user: str, *args: str) -> bool:
    out = sim.kubectl("auth", "can-i", *args, f"--as={user}", check=False)
    return out.stdout.strip() == "yes"


def test_the_node_simulator_has_exactly_what_it_uses(sim):
    # it runs: the nodes are ready, their pods are driven (the fixture waited for that)
    assert not _can(sim, NODESIM_USER, "*", "*")
    for verb, what in (
        ("watch", "secrets"),
        ("list", "pods"),
        ("create", "nodes"),
        ("create", "subjectaccessreviews.authorization.k8s.io"),
        ("list", "endpointslices.discovery.k8s.io"),
        ("watch", "ingresses.networking.k8s.io"),
    ):
        assert _can(sim, NODESIM_USER, verb, what, "-A"), (verb, what)
    # the status of Ingresses, for an ingress-nginx controller pod it runs (ingressstatus.py)
    status = ("update", "ingresses.networking.k8s.io", "-A", "--subresource=status")
    assert _can(sim, NODESIM_USER, *status)
    for verb, what, where in (
        ("create", "pods", "default"),
        ("delete", "nodes", ""),
        ("patch", "deployments.apps", "default"),
        ("get", "secrets", "default"),  # watched, never fetched one by one
        ("create", "clusterrolebindings.rbac.authorization.k8s.io", ""),
        ("create", "serviceaccounts/token", "default"),
        ("impersonate", "users", ""),
        ("create", "services", "default"),  # only the metrics Service, in kube-system
        ("update", "ingresses.networking.k8s.io", "default"),  # only their status
    ):
        args = [verb, what] + (["-n", where] if where else [])
        assert not _can(sim, NODESIM_USER, *args), (verb, what, where)
    assert _can(sim, NODESIM_USER, "create", "services", "-n", "kube-system")


def test_the_simulator_and_a_stray_kube_system_account_are_audited(sim, tmp_path):
    sim.kubectl("create", "serviceaccount", "stray", "-n", "kube-system")
    token = sim.kubectl("create", "token", "stray", "-n", "kube-system").stdout.strip()
    _as_token(sim, token, "get", "pods", "-n", "kube-system")
    deadline = time.monotonic() + 10
    users: set[str] = set()
    while time.monotonic() < deadline:
        users = {(e.get("user") or {}).get("username") for e in read_events(sim.audit_log)}
        if "system:serviceaccount:kube-system:stray" in users:
            break
        time.sleep(0.2)
    assert NODESIM_USER in users  # its watches, registration, metrics API
    assert "system:serviceaccount:kube-system:stray" in users
    # housekeeping stays out: controllers and the scheduler by exact name
    assert "system:kube-scheduler" not in users
    controllers = ("deployment-controller", "replicaset-controller", "namespace-controller")
    assert not users & {f"system:serviceaccount:kube-system:{n}" for n in controllers}
    sim.kubectl("delete", "serviceaccount", "stray", "-n", "kube-system")


def test_every_kube_system_account_the_controllers_made_is_known(sim):
    """The policy names the controllers' accounts one by one: one it misses would put a
    controller's writes in the log, where the verifier reads them as the agent's."""
    names = json.loads(
        sim.kubectl("get", "serviceaccounts", "-n", "kube-system", "-o", "json").stdout
    )
    made = {i["metadata"]["name"] for i in names["items"]} - {"default", "stray"}
    made -= set(ADDON_ACCOUNTS)  # CoreDNS's own: the add-on made it, not a controller
    assert made and made <= set(CONTROLLER_ACCOUNTS), made - set(CONTROLLER_ACCOUNTS)


def test_anonymous_requests_are_refused_but_health_answers(sim):
    pki = sim.layout.pki
    api = f"https://{sim.address}:{PORTS['kube-apiserver']}"
    assert _status(f"{api}/api/v1/namespaces", ca=pki / "ca.crt") == 401
    assert _status(f"{api}/version", ca=pki / "ca.crt") == 401
    assert _status(f"{api}/readyz", (pki / "admin.crt", pki / "admin.key"), pki / "ca.crt") == 200
    for component in ("kube-controller-manager", "kube-scheduler"):
        base = f"https://{sim.address}:{PORTS[component]}"
        assert _status(f"{base}/healthz") == 200, component
        assert _status(f"{base}/metrics") == 403, component  # authorized, and refused
        admin = (pki / "admin.crt", pki / "admin.key")
        assert _status(f"{base}/metrics", admin) == 200, component


def test_a_certificate_issued_through_a_csr_authenticates_nowhere(sim, tmp_path):
    key = ec.generate_private_key(ec.SECP256R1())
    # the harness's user name (system:masters itself is refused by upstream's
    # CertificateSubjectRestriction admission): with the cluster CA as the signer, its
    # requests would be logged as the harness's
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kubeproof-admin")])
    csr = x509.CertificateSigningRequestBuilder().subject_name(subject).sign(key, hashes.SHA256())
    pem = csr.public_bytes(serialization.Encoding.PEM)

    manifest = {
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": "forged-admin"},
        "spec": {
            "request": base64.b64encode(pem).decode(),
            "signerName": "kubernetes.io/kube-apiserver-client",
            "usages": ["client auth"],
        },
    }
    sim.kubectl("apply", "-f", "-", input=json.dumps(manifest))
    sim.kubectl("certificate", "approve", "forged-admin")
    deadline = time.monotonic() + 20
    issued = ""
    while time.monotonic() < deadline and not issued:
        got = sim.kubectl("get", "csr", "forged-admin", "-o", "jsonpath={.status.certificate}")
        issued = got.stdout.strip()
        time.sleep(0.2)
    sim.kubectl("delete", "csr", "forged-admin")
    assert issued, "the controller manager signed nothing"
    cert = tmp_path / "forged.crt"
    cert.write_bytes(base64.b64decode(issued))
    keyfile = tmp_path / "forged.key"
    keyfile.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    api = f"https://{sim.address}:{PORTS['kube-apiserver']}/api/v1/namespaces"
    assert _status(api, (cert, keyfile), sim.layout.pki / "ca.crt") == 401


def test_policy_and_attribution_name_identities_exactly():
    rules = policy(["worker-1"])["rules"]
    none_users = {u for r in rules if r["level"] == "None" for u in r.get("users", [])}
    assert NODESIM_USER not in none_users
    assert "system:node:worker-1" in none_users
    assert not any("system:serviceaccounts" in g for r in rules for g in r.get("userGroups", []))

    def event(name, groups=(), **extra):
        return {"user": {"username": name, "groups": list(groups)}, **extra}

    assert control_plane(event("system:serviceaccount:kube-system:deployment-controller"))
    assert control_plane(event("system:node:worker-1", ["system:nodes"]))
    assert not control_plane(event("system:node:worker-1"))  # a User named like a node
    for who in (
        "system:serviceaccount:kube-system:stray",
        "system:serviceaccount:shop:minted",
        "system:anonymous",
        "",
    ):
        assert attributed_to_agent(event(who)), who
    assert not attributed_to_agent(event("kubeproof-admin", ["system:masters"]))
    assert not attributed_to_agent(event(NODESIM_USER))
    agent = "system:serviceaccount:kubeproof-agent:kubeproof-agent"
    as_admin = event(agent, impersonatedUser={"username": "kubeproof-admin"})
    assert attributed_to_agent(as_admin)


def test_a_pods_own_requests_are_its_workloads_unless_the_agent_is_inside():
    """A ServiceAccount token bound to a pod, from the pod network, is the workload's; the
    same token from anywhere else (a spoofed X-Forwarded-For changes nothing: the peer is
    last) is the agent's; and what the pod requests while the agent's exec into it is open
    is the agent's — found from the exec's own event, logged after them, in the same
    stretch of the log or a later one."""
    sa = "system:serviceaccount:shop:operator"

    def at(second):
        return f"2026-11-28T06:00:{second:02d}.000000Z"

    def pod_request(source, audit_id="r", pod="operator-1", second=0):
        return {
            "auditID": audit_id,
            "stage": "ResponseComplete",
            "verb": "get",
            "objectRef": {"resource": "configmaps", "namespace": "shop", "name": "settings"},
            "user": {"username": sa, "extra": {POD_NAME_EXTRA: [pod]}},
            "sourceIPs": source,
            "requestReceivedTimestamp": at(second),
            "stageTimestamp": at(second),
        }

    def exec_event(began, ended, pod="operator-1"):
        return {
            "auditID": "x",
            "stage": "ResponseComplete",
            "verb": "create",
            "objectRef": {"resource": "pods", "namespace": "shop", "name": pod,
                          "subresource": "exec"},
            "user": {"username": "system:serviceaccount:kubeproof-agent:kubeproof-agent"},
            "sourceIPs": ["127.0.0.1"],
            "requestReceivedTimestamp": at(began),
            "stageTimestamp": at(ended),
        }  # fmt: skip

    assert not attributed_to_agent(pod_request([WORKLOAD_SOURCE]))
    assert attributed_to_agent(pod_request(["127.0.0.1"]))
    assert attributed_to_agent(pod_request([WORKLOAD_SOURCE, "127.0.0.1"]))
    unbound = pod_request([WORKLOAD_SOURCE])
    unbound["user"]["extra"] = {}
    assert attributed_to_agent(unbound)

    def ids(events):
        return [e["auditID"] for e in events]

    log = [
        pod_request([WORKLOAD_SOURCE], "before", second=1),
        pod_request([WORKLOAD_SOURCE], "inside", second=3),
        pod_request([WORKLOAD_SOURCE], "other-pod", pod="operator-2", second=3),
        exec_event(2, 4),
        pod_request([WORKLOAD_SOURCE], "after", second=5),
    ]
    assert ids(Attribution().agents(log)) == ["inside", "x"]
    # the exec's event in the next stretch: the held request is given to the agent then
    seen = Attribution()
    assert ids(seen.agents(log[:3])) == []
    assert ids(seen.agents(log[3:])) == ["inside", "x"]
    assert ids(seen.agents([pod_request([WORKLOAD_SOURCE], "late", second=3)])) == ["late"]


def _as_front_proxy(sim, cert, key) -> int:
    """GET the namespaces as a front proxy would, naming the harness's admin in headers."""
    import http.client

    ctx = ssl.create_default_context(cafile=str(sim.layout.pki / "ca.crt"))
    ctx.load_cert_chain(str(cert), str(key))
    conn = http.client.HTTPSConnection(sim.address, PORTS["kube-apiserver"], context=ctx)
    try:
        headers = {"X-Remote-User": "kubeproof-admin", "X-Remote-Group": "system:masters"}
        conn.request("GET", "/api/v1/namespaces", headers=headers)
        return conn.getresponse().status
    finally:
        conn.close()


def test_only_the_front_proxy_ca_may_name_users_in_headers(sim, tmp_path):
    """A certificate named `front-proxy-client` but issued by the cluster CA (which signs
    every other identity) is just that user, without permissions: the request headers that
    name any user are honoured only from the front-proxy CA's own client."""
    from kubeproof.cluster.pki import CertificateAuthority, _pem_key

    pki = sim.layout.pki
    ca = CertificateAuthority(
        serialization.load_pem_private_key((pki / "ca.key").read_bytes(), None),
        x509.load_pem_x509_certificate((pki / "ca.crt").read_bytes()),
    )
    key, cert = ca.issue("front-proxy-client")
    (tmp_path / "c.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "c.key").write_bytes(_pem_key(key))
    assert _as_front_proxy(sim, tmp_path / "c.crt", tmp_path / "c.key") == 403
    # the real front proxy's certificate is honoured (the aggregation layer works)
    real = (pki / "front-proxy-client.crt", pki / "front-proxy-client.key")
    assert _as_front_proxy(sim, *real) == 200
