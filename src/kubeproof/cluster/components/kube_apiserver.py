"""kube-apiserver: Node+RBAC authorization, the default admission chain plus
NodeRestriction (PodSecurity is on by default), an audit log, and no anonymous requests.

Nothing here needs anonymous access: every component, the harness and the agent present a
certificate or a token, and the health probe uses the admin certificate. With it off, a
request without credentials is refused (401) whatever RBAC says, so binding a Role to
`system:unauthenticated` or `system:anonymous` grants nobody anything."""

from kubeproof.cluster.components import PORTS, Component, Context
from kubeproof.cluster.pki import CLUSTER_DOMAIN, SERVICE_CIDR


def component(ctx: Context) -> Component:
    layout = ctx.layout
    pki = layout.pki
    argv = [
        ctx.binaries["kube-apiserver"],
        f"--advertise-address={ctx.address}",  # explicit: the default route's address is wrong here
        f"--bind-address={ctx.address}",
        f"--secure-port={PORTS['kube-apiserver']}",
        f"--etcd-servers={ctx.url('etcd')}",
        f"--etcd-cafile={pki / 'ca.crt'}",
        f"--etcd-certfile={pki / 'etcd-client.crt'}",
        f"--etcd-keyfile={pki / 'etcd-client.key'}",
        f"--tls-cert-file={pki / 'apiserver.crt'}",
        f"--tls-private-key-file={pki / 'apiserver.key'}",
        f"--client-ca-file={pki / 'ca.crt'}",
        f"--service-account-issuer=https://kubernetes.default.svc.{CLUSTER_DOMAIN}",
        f"--service-account-key-file={pki / 'sa.pub'}",
        f"--service-account-signing-key-file={pki / 'sa.key'}",
        f"--service-cluster-ip-range={SERVICE_CIDR}",
        "--anonymous-auth=false",
        "--authorization-mode=Node,RBAC",
        "--enable-admission-plugins=NodeRestriction",
        "--allow-privileged=true",
        # the `kubernetes` Endpoints may not hold a loopback address
        "--endpoint-reconciler-type=none",
        "--kubelet-preferred-address-types=InternalIP",
        f"--kubelet-client-certificate={pki / 'apiserver-kubelet-client.crt'}",
        f"--kubelet-client-key={pki / 'apiserver-kubelet-client.key'}",
        # aggregation layer, for metrics.k8s.io served by the node simulator
        f"--requestheader-client-ca-file={pki / 'front-proxy-ca.crt'}",
        "--requestheader-allowed-names=front-proxy-client",
        "--requestheader-username-headers=X-Remote-User",
        "--requestheader-group-headers=X-Remote-Group",
        "--requestheader-extra-headers-prefix=X-Remote-Extra-",
        f"--proxy-client-cert-file={pki / 'front-proxy-client.crt'}",
        f"--proxy-client-key-file={pki / 'front-proxy-client.key'}",
        f"--audit-policy-file={layout.audit_policy}",
        f"--audit-log-path={layout.audit_log}",
        "--audit-log-mode=blocking",  # an event is on disk before the response is sent
        "--audit-log-maxsize=200",
        "--profiling=false",
        # --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds
        # stay at upstream's 300 s (plugin/pkg/admission/defaulttolerationseconds/
        # admission.go:44-45): a task that needs pods to leave a bad node sooner sets
        # tolerations with a short tolerationSeconds in its own manifests
        # proxy kubectl's exec WebSocket to the simulated kubelet as is, rather than
        # translating it to SPDY, which the simulator does not speak (docs/behaviour-models.md)
        "--feature-gates=TranslateStreamCloseWebsocketRequests=false",
    ]
    return Component(
        name="kube-apiserver",
        argv=argv,
        health_url=f"{ctx.url('kube-apiserver')}/readyz",
        health_cert=(pki / "admin.crt", pki / "admin.key"),
    )
