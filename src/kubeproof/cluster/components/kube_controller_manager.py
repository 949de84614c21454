"""kube-controller-manager: every default controller, each with its own ServiceAccount
credentials so controller RBAC is as on a real cluster."""

from kubeproof.cluster.components import Component, Context, client_component_flags

# what trials rely on right after "ready"
REQUIRED_CONTROLLERS = (
    "deployment",
    "replicaset",
    "statefulset",
    "daemonset",
    "job",
    "cronjob",
    "endpointslice",
    "namespace",
    "serviceaccount",
    "root-ca-certificate-publisher",
    "garbage-collector",
    "disruption",
    "node-lifecycle",
    "resourcequota",
)


def component(ctx: Context) -> Component:
    pki = ctx.layout.pki
    argv = [
        ctx.binaries["kube-controller-manager"],
        *client_component_flags(ctx, "kube-controller-manager", "controller-manager"),
        f"--root-ca-file={pki / 'ca.crt'}",
        f"--service-account-private-key-file={pki / 'sa.key'}",
        "--use-service-account-credentials=true",
        # a signer no component trusts (cluster/pki.py): CSRs mint no usable credential
        f"--cluster-signing-cert-file={pki / 'csr-signer.crt'}",
        f"--cluster-signing-key-file={pki / 'csr-signer.key'}",
        # the node lifecycle controller keeps upstream's timing: --node-monitor-period 5 s
        # (k8s.io/cloud-provider/config/v1alpha1/defaults.go:59-60), grace 50 s, startup
        # grace 60 s (pkg/controller/nodelifecycle/config/v1alpha1/defaults.go:45-49)
        # autoscaling reacts within seconds, as trials need
        "--horizontal-pod-autoscaler-sync-period=5s",
    ]
    return Component(
        name="kube-controller-manager",
        argv=argv,
        health_url=f"{ctx.url('kube-controller-manager')}/healthz",
        # /healthz answers ok before the controllers run; each registers a check when started
        required_checks=tuple(f"{c}-controller" for c in REQUIRED_CONTROLLERS),
    )
