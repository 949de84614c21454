"""kube-scheduler with its default profile."""

from kubeproof.cluster.components import Component, Context, client_component_flags


def component(ctx: Context) -> Component:
    return Component(
        name="kube-scheduler",
        argv=[
            ctx.binaries["kube-scheduler"],
            *client_component_flags(ctx, "kube-scheduler", "scheduler"),
        ],
        health_url=f"{ctx.url('kube-scheduler')}/healthz",
    )
