"""`kubeproof net`: connectivity as Kubernetes semantics define it, read from a live cluster.

Exit codes: 0 allowed (check) or as intended (matrix), 3 denied or mismatched, 1 errors.
"""

import json
import os
from pathlib import Path

import typer
from rich.table import Table

from kubeproof.cli.output import Format, console, emit
from kubeproof.errors import KubeproofError

app = typer.Typer(
    help="Can pod A reach host:port, and if not, why (Services, cluster DNS, NetworkPolicy, "
    "Ingress).",
    no_args_is_help=True,
)
DENIED = 3

KUBECONFIG = typer.Option(None, "--kubeconfig", help="Kubeconfig (default: $KUBECONFIG).")
CLUSTER = typer.Option(None, "--cluster", "-c", help="An embedded cluster's name instead.")
OUTPUT = typer.Option(Format.text, "--output", "-o", help="Output format.")


def _network(kubeconfig: Path | None, cluster: str | None):
    from kubeproof.cluster import EmbeddedCluster, ExternalCluster
    from kubeproof.netsim import Network
    from kubeproof.netsim.live import read

    if cluster:
        source = EmbeddedCluster.existing(cluster)
    else:
        path = kubeconfig or os.environ.get("KUBECONFIG")
        if not path:
            raise KubeproofError("no cluster: pass --kubeconfig, --cluster or set KUBECONFIG")
        source = ExternalCluster(path)
    return Network.from_objects(read(source.client()))


@app.command()
def check(
    source: str = typer.Option(..., "--from", help="Source pod as NAMESPACE/POD."),
    target: str = typer.Option(..., "--to", help="HOST:PORT[/PROTOCOL]; HOST a name or IP."),
    kubeconfig: Path = KUBECONFIG,
    cluster: str = CLUSTER,
    output: Format = OUTPUT,
) -> None:
    """Explain whether SOURCE can connect to TARGET. Exits 3 when it cannot."""
    verdict = _network(kubeconfig, cluster).connect(source, target)
    data = {
        "from": source,
        "to": target,
        "allowed": verdict.allowed,
        "code": verdict.code,
        "reason": verdict.reason,
        "steps": verdict.steps,
        "endpoints": verdict.endpoints,
    }
    if not emit(data, output):
        console.print(verdict.explain(), highlight=False, soft_wrap=True)
    if not verdict.allowed:
        raise typer.Exit(DENIED)


@app.command()
def http(
    source: str = typer.Option(..., "--from", help="Source pod as NAMESPACE/POD."),
    url: str = typer.Option(..., "--url", help="http://HOST[:PORT]/PATH; HOST a name or IP."),
    host: str = typer.Option(None, "--host", help="The Host header (default: the URL's)."),
    kubeconfig: Path = KUBECONFIG,
    cluster: str = CLUSTER,
    output: Format = OUTPUT,
) -> None:
    """GET URL from SOURCE: the connection, and through an ingress-nginx controller the
    route its Ingresses give (or its 404/503). Exits 3 unless the answer is 200."""
    from kubeproof.netsim.http import request

    answer = request(_network(kubeconfig, cluster), source, url, host)
    data = {
        "from": source,
        "url": url,
        "host": host,
        "status": answer.status,
        "code": answer.verdict.code,
        "reason": answer.reason if answer.status else answer.verdict.reason,
        "upstream": answer.upstream,
        "steps": answer.verdict.steps + answer.steps,
    }
    if not emit(data, output):
        console.print(answer.explain(), highlight=False, soft_wrap=True)
    if answer.status != 200:
        raise typer.Exit(DENIED)


@app.command()
def matrix(
    namespaces: str = typer.Option(..., "--namespace", "-n", help="NS[,NS...] to include."),
    targets: str = typer.Option(
        None, "--to", help="Comma-separated HOST:PORT targets (default: every Service port)."
    ),
    intended: Path = typer.Option(
        None,
        "--intended",
        exists=True,
        dir_okay=False,
        help='JSON list of {"from", "to", "allowed"}: report where reality differs.',
    ),
    kubeconfig: Path = KUBECONFIG,
    cluster: str = CLUSTER,
    output: Format = OUTPUT,
) -> None:
    """Connectivity of every pod in the namespaces to every Service port (or --to)."""
    from kubeproof.netsim import matrix as mx

    net = _network(kubeconfig, cluster)
    chosen = [n.strip() for n in namespaces.split(",") if n.strip()]
    sources = mx.default_sources(net, chosen)
    dests = [t.strip() for t in targets.split(",")] if targets else mx.default_targets(net, chosen)
    result = mx.compute(net, sources, dests)
    mismatches = []
    if intended:
        try:
            wanted = {
                (e["from"], e["to"]): bool(e["allowed"]) for e in json.loads(intended.read_text())
            }
        except (ValueError, KeyError, TypeError) as exc:
            raise KubeproofError(
                f'{intended}: expected a JSON list of {{"from", "to", "allowed"}}: {exc}'
            ) from exc
        mismatches = mx.diff(result, wanted)
    data = {
        "sources": sources,
        "targets": dests,
        "cells": mx.to_json(result),
        "mismatches": [
            {
                "from": m.source,
                "to": m.target,
                "intended": m.intended,
                "code": m.verdict.code,
                "steps": m.verdict.steps,
            }
            for m in mismatches
        ],
    }
    if not emit(data, output):
        table = Table("FROM \\ TO", *dests, box=None)
        for s in sources:
            table.add_row(
                s,
                *(
                    "[green]✓[/]" if result[(s, t)].allowed else f"[red]✗ {result[(s, t)].code}[/]"
                    for t in dests
                ),
            )
        console.print(table)
        for m in mismatches:
            console.print(
                f"[bold]mismatch[/] {m.source} -> {m.target}: intended "
                f"{'allowed' if m.intended else 'denied'}\n{m.verdict.explain()}",
                highlight=False,
            )
    if mismatches:
        raise typer.Exit(DENIED)
