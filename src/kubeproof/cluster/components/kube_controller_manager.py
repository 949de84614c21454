"""kube-controller-manager: every default controller, each with its own ServiceAccount
credentials so controller RBAC is as on a real cluster."""

from kubeproof.cluster.components import ALWAYS_ALLOW, PORTS, Component, Context


def component(ctx: Context) -> Component:
    pki = ctx.layout.pki
    kubeconfig = ctx.layout.kubeconfig("controller-manager")
    argv = [
        ctx.binaries["kube-controller-manager"],
        f"--kubeconfig={kubeconfig}",
        f"--authentication-kubeconfig={kubeconfig}",
        f"--authorization-kubeconfig={kubeconfig}",
        f"--bind-address={ctx.address}",
        f"--secure-port={PORTS['kube-controller-manager']}",
        ALWAYS_ALLOW,
        # one instance per cluster; electing would make warm starts wait out a stale lease
        "--leader-elect=false",
        f"--root-ca-file={pki / 'ca.crt'}",
        f"--service-account-private-key-file={pki / 'sa.key'}",
        "--use-service-account-credentials=true",
        f"--cluster-signing-cert-file={pki / 'ca.crt'}",
        f"--cluster-signing-key-file={pki / 'ca.key'}",
        "--profiling=false",
    ]
    return Component(
        name="kube-controller-manager",
        argv=argv,
        health_url=f"{ctx.url('kube-controller-manager')}/healthz",
    )
