"""etcd 3.6, one member, TLS with client-certificate auth on both listeners.

TLS is not for secrecy on loopback: it keeps an agent with loopback network access from
writing straight into etcd and around the apiserver's authorization and audit log.
"""

from kubeproof.cluster.components import Component, Context


def component(ctx: Context) -> Component:
    pki = ctx.layout.pki
    client = ctx.url("etcd")
    peer = ctx.url("etcd-peer")
    tls = {
        "cert-file": pki / "etcd.crt",
        "key-file": pki / "etcd.key",
        "trusted-ca-file": pki / "ca.crt",
    }
    argv = [
        ctx.binaries["etcd"],
        "--name=default",
        f"--data-dir={ctx.layout.etcd_data}",
        f"--listen-client-urls={client}",
        f"--advertise-client-urls={client}",
        f"--listen-peer-urls={peer}",
        f"--initial-advertise-peer-urls={peer}",
        f"--initial-cluster=default={peer}",
        "--client-cert-auth=true",
        "--peer-client-cert-auth=true",
        *(f"--{flag}={path}" for flag, path in tls.items()),
        *(f"--peer-{flag}={path}" for flag, path in tls.items()),
        "--unsafe-no-fsync=true",  # a trial cluster is disposable; fsync only costs time
        "--quota-backend-bytes=1073741824",
        "--auto-compaction-mode=periodic",
        "--auto-compaction-retention=5m",
        "--enable-grpc-gateway=true",  # serves /v3/maintenance/snapshot for the golden snapshot
        "--log-level=warn",
    ]
    return Component(
        name="etcd",
        argv=argv,
        health_url=f"{client}/readyz",
        health_cert=(pki / "etcd-client.crt", pki / "etcd-client.key"),
    )
