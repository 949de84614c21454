"""The node simulator: our Python process playing the kubelet of every simulated node
(see kubeproof.nodesim). It runs only when the cluster has nodes."""

import sys

from kubeproof.cluster.components import Component, Context


def component(ctx: Context) -> Component:
    return Component(
        name="nodesim",
        argv=[sys.executable, "-m", "kubeproof.nodesim", f"--state-dir={ctx.layout.root}"],
        health_url=f"{ctx.url('kubelet')}/healthz",
        health_cert=(ctx.layout.cert("admin"), ctx.layout.key("admin")),
        env={"PYTHONUNBUFFERED": "1"},
    )
