"""kube-scheduler with its default profile."""

from kubeproof.cluster.components import ALWAYS_ALLOW, PORTS, Component, Context


def component(ctx: Context) -> Component:
    kubeconfig = ctx.layout.kubeconfig("scheduler")
    argv = [
        ctx.binaries["kube-scheduler"],
        f"--kubeconfig={kubeconfig}",
        f"--authentication-kubeconfig={kubeconfig}",
        f"--authorization-kubeconfig={kubeconfig}",
        f"--bind-address={ctx.address}",
        f"--secure-port={PORTS['kube-scheduler']}",
        ALWAYS_ALLOW,
        "--leader-elect=false",
        "--profiling=false",
    ]
    return Component(
        name="kube-scheduler",
        argv=argv,
        health_url=f"{ctx.url('kube-scheduler')}/healthz",
    )
