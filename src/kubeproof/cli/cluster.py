"""`kubeproof cluster`: start, inspect and stop embedded clusters."""

import shutil
import time
from datetime import UTC, datetime
from pathlib import Path

import typer
from rich.table import Table

from kubeproof.agents.limits import cgroup_parents, sweep_stale
from kubeproof.cli import addons
from kubeproof.cli.output import Format, console, emit
from kubeproof.cluster import EmbeddedCluster
from kubeproof.cluster.addresses import release, taken_over, wait_ports_released
from kubeproof.cluster.components import NAMES
from kubeproof.cluster.health import ComponentStatus
from kubeproof.cluster.process import group_members, stop_group
from kubeproof.cluster.record import (
    ClusterRecord,
    all_records,
    leftover_dirs,
    load,
    owner_gone,
    remove,
)
from kubeproof.errors import KubeproofError, NotFoundError

app = typer.Typer(
    help="Start, inspect and stop embedded clusters (the real control plane as local "
    "processes, each on its own loopback address).",
    no_args_is_help=True,
)

app.add_typer(addons.app, name="addons")  # optional addons (ingress-nginx)

OUTPUT = typer.Option(Format.text, "--output", "-o", help="Output format.")
UNHEALTHY = 4


def _summary(record: ClusterRecord) -> dict:
    return {
        "name": record.name,
        "address": record.address,
        "server": record.server,
        "kubeconfig": str(record.layout.admin_kubeconfig),
        "kubernetesVersion": record.kubernetes_version,
        "startMode": record.start_mode,
        "startupSeconds": record.startup_seconds,
        "nodes": record.nodes,
        "timing": record.timing,
        "stateDir": str(record.state_dir),
        "auditLog": str(record.layout.audit_log),
    }


@app.command()
def up(
    name: str = typer.Option(None, "--name", "-n", help="Cluster name (default kp-N)."),
    address: str = typer.Option(
        None, "--address", help="Loopback address to bind, e.g. 127.0.5.1 (default: a free one)."
    ),
    cold: bool = typer.Option(False, "--cold", help="Bootstrap from scratch, not the snapshot."),
    timeout: float = typer.Option(120, "--timeout", help="Seconds to wait for readiness."),
    nodes: int = typer.Option(1, "--nodes", min=0, help="Simulated worker nodes (0: none)."),
    node_profile: Path = typer.Option(
        None,
        "--node-profile",
        exists=True,
        dir_okay=False,
        help="YAML node profile (names, labels, taints, capacity); overrides --nodes.",
    ),
    images: Path = typer.Option(
        None,
        "--images",
        exists=True,
        dir_okay=False,
        help="YAML behaviour models added to the shipped image catalog.",
    ),
    timing: str = typer.Option(
        "real",
        "--timing",
        help="Simulated kubelet timing: `real` (the kubelet's own back-offs and grace "
        "periods) or `fast` (every duration / 10).",
    ),
    output: Format = OUTPUT,
) -> None:
    """Start an embedded cluster and wait until it is ready. It keeps running after this
    command returns; stop it with `kubeproof cluster down NAME`."""
    with console.status("starting cluster") as status:
        if node_profile:
            from kubeproof.nodesim.profile import load as load_profile

            nodes = load_profile(node_profile)
        if images:
            from kubeproof.nodesim.catalog import load as load_catalog

            load_catalog(images)  # report a bad file now, not from inside the simulator
        cluster = EmbeddedCluster(
            name,
            address=address,
            warm=not cold,
            attached=False,
            timeout=timeout,
            nodes=nodes,
            images=images,
            progress=lambda msg: status.update(msg),
            timing=timing,
        ).start()
    record = cluster.record
    assert record
    if emit(_summary(record), output):
        return
    console.print(
        f"cluster [bold]{record.name}[/] ready at {record.server} "
        f"({record.start_mode} start, {record.startup_seconds:.2f}s)"
    )
    console.print(f"  kubeconfig: {record.layout.admin_kubeconfig}")
    console.print(
        f"  try: kubectl --kubeconfig {record.layout.admin_kubeconfig} get nodes", soft_wrap=True
    )


def _state(record: ClusterRecord) -> str:
    if owner_gone(record):
        return "gone"
    alive = [name for name, c in record.components.items() if c.ref().alive()]
    if len(alive) == 4 + bool(record.nodes):
        return "running"
    return "stopped" if not alive else "degraded"


def _age(record: ClusterRecord) -> str:
    seconds = (datetime.now(UTC) - datetime.fromisoformat(record.created_at)).total_seconds()
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


@app.command("list")
def list_(output: Format = OUTPUT) -> None:
    """List embedded clusters with their state (running, degraded, stopped, gone)."""
    records = all_records()
    rows = [_summary(r) | {"state": _state(r), "age": _age(r)} for r in records]
    if emit(rows, output):
        return
    if not rows:
        console.print("no clusters (start one with `kubeproof cluster up`)")
        return
    table = Table("NAME", "SERVER", "VERSION", "STATE", "AGE", box=None)
    for row in rows:
        table.add_row(
            row["name"], row["server"], row["kubernetesVersion"], row["state"], row["age"]
        )
    console.print(table)


@app.command()
def status(name: str = typer.Argument(..., help="Cluster name."), output: Format = OUTPUT) -> None:
    """Show each component's process and health. Exits 4 if any is not running or not
    healthy (a crashed apiserver, say)."""
    cluster = EmbeddedCluster.existing(name)
    statuses: list[ComponentStatus] = cluster.status()
    healthy = all(s.healthy for s in statuses)
    data = {
        "name": name,
        "healthy": healthy,
        "components": [
            {
                "name": s.name,
                "pid": s.pid,
                "running": s.running,
                "healthy": s.healthy,
                "detail": s.detail,
            }
            for s in statuses
        ],
    }
    if not emit(data, output):
        table = Table("COMPONENT", "PID", "RUNNING", "HEALTHY", "DETAIL", box=None)
        for s in statuses:
            mark = "[green]yes[/]" if s.healthy else "[red]no[/]"
            table.add_row(
                s.name, str(s.pid or "-"), "yes" if s.running else "[red]no[/]", mark, s.detail
            )
        console.print(table)
    if not healthy:
        raise typer.Exit(UNHEALTHY)


@app.command()
def kubeconfig(
    name: str = typer.Argument(..., help="Cluster name."),
    path: bool = typer.Option(False, "--path", help="Print the file's path, not its content."),
) -> None:
    """Print the admin kubeconfig of a cluster (or its path with --path)."""
    record = load(name)
    file = record.layout.admin_kubeconfig
    typer.echo(str(file) if path else file.read_text(), nl=path)


@app.command()
def logs(
    name: str = typer.Argument(..., help="Cluster name."),
    component: str = typer.Argument(
        ..., help=f"One of: {', '.join(NAMES)}, or `audit` for the apiserver audit log."
    ),
    tail: int = typer.Option(0, "--tail", help="Only the last N lines (0: all)."),
    follow: bool = typer.Option(False, "--follow", "-f", help="Keep printing new lines."),
) -> None:
    """Print a component's log, or the apiserver audit log."""
    record = load(name)
    if component == "audit":
        path = record.layout.audit_log
    elif component in NAMES:
        path = record.layout.log(component)
    else:
        raise NotFoundError(f"no component {component!r}; choose one of {', '.join(NAMES)}, audit")
    if not path.exists():
        raise NotFoundError(f"{path} does not exist yet")
    _print_file(path, tail, follow)


def _print_file(path: Path, tail: int, follow: bool) -> None:
    with path.open(errors="replace") as fh:
        lines = fh.readlines()
        for line in lines[-tail:] if tail else lines:
            typer.echo(line, nl=False)
        while follow:
            line = fh.readline()
            if line:
                typer.echo(line, nl=False)
            else:
                time.sleep(0.2)


@app.command()
def down(
    names: list[str] = typer.Argument(None, help="Clusters to stop."),
    all_: bool = typer.Option(
        False, "--all", help="Stop every cluster and clean state left by killed runs."
    ),
    keep_state: bool = typer.Option(
        False, "--keep-state", help="Keep the state directory (logs, audit log, etcd data)."
    ),
) -> None:
    """Stop clusters: every process exits and every port is released."""
    if not names and not all_:
        raise KubeproofError("name a cluster to stop, or pass --all")
    records = all_records() if all_ else [load(n) for n in names]
    for record in records:
        stop_group(record.pgid, [c.ref() for c in record.components.values()])
        if group_members(record.pgid):
            raise KubeproofError(f"cluster {record.name}: processes survived SIGKILL")
        sweep_stale(cgroup_parents())  # sandboxes its node simulator left (agents/limits.py)
        if taken_over(record.address, record.state_dir):
            pass  # a dead cluster's address, since reserved by a live one: not ours to free
        elif busy := wait_ports_released(record.address):
            ports = ", ".join(f"{record.address}:{p}" for p in busy.values())
            raise KubeproofError(f"cluster {record.name}: stopped, but {ports} still bound")
        else:
            release(record.address, record.state_dir)
        if not keep_state:
            remove(record)
        console.print(f"cluster {record.name} stopped")
    if all_ and not keep_state:
        for leftover in leftover_dirs():
            shutil.rmtree(leftover, ignore_errors=True)
            console.print(f"removed leftover state {leftover}")
