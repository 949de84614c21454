"""`kubeproof cluster addons`: optional system workloads installed on request (never by
default): the ingress-nginx controller (cluster/ingressnginx.py) and the local-path
dynamic volume provisioner with its default StorageClass (cluster/localpath.py) and k3s's
bundled Traefik (cluster/traefik.py)."""

import typer

from kubeproof.cli.output import console

app = typer.Typer(
    help="Optional addons: install them into a cluster, or print their manifest.",
    no_args_is_help=True,
)


def _addon(name: str):
    from kubeproof.cluster.addons import optional

    return optional(name)


@app.command()
def install(
    addon: str = typer.Argument(..., help="Addon name: ingress-nginx, local-path or traefik."),
    cluster: str = typer.Option(..., "--cluster", "-c", help="Embedded cluster name."),
) -> None:
    """Create the addon's objects in CLUSTER (ones that exist are left as they are)."""
    from kubeproof.cluster import EmbeddedCluster

    created = _addon(addon).install(EmbeddedCluster.existing(cluster).client())
    for ref in created:
        console.print(f"{ref} created", highlight=False)
    if not created:
        console.print(f"{addon}: already installed", highlight=False)


@app.command()
def manifest(
    addon: str = typer.Argument(..., help="Addon name: ingress-nginx, local-path or traefik."),
) -> None:
    """Print the addon's manifest, for `kubectl apply -f -` or a task's environment/setup."""
    typer.echo(_addon(addon).MANIFEST.lstrip("\n"), nl=False)
