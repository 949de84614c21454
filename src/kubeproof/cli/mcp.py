"""`kubeproof mcp`: an MCP server that records an agent's kubectl calls as signed evidence."""

from datetime import UTC, datetime
from pathlib import Path

import typer

from kubeproof.cluster.base import kubectl_binary
from kubeproof.errors import KubeproofError
from kubeproof.evidence import keys


def mcp(
    kubeconfig: Path = typer.Option(
        ..., "--kubeconfig", exists=True, dir_okay=False, help="The agent's kubeconfig."
    ),
    evidence: Path = typer.Option(
        None, "--evidence", help="New directory for the chain (default: evidence/TIMESTAMP)."
    ),
    agent: str = typer.Option("mcp-client", "--agent", help="The agent's name in the chain."),
    audit_log: Path = typer.Option(
        None,
        "--audit-log",
        help="The apiserver's audit log (JSON lines), to record the requests each call made.",
    ),
    audit_user: str = typer.Option(
        "", "--audit-user", help="The kubeconfig's user as the audit log names it."
    ),
    key: Path = typer.Option(None, "--evidence-key", help="Signing key (see `run --help`)."),
    timeout: float = typer.Option(60.0, "--timeout", help="Seconds per kubectl call."),
) -> None:
    """Serve `run_kubectl`, `prescribe` and `report` over MCP (stdio), recording every call.

    Point any MCP-capable agent at it (its command: `kubeproof mcp --kubeconfig PATH`); verify
    what it did afterwards with `kubeproof evidence verify DIR`.
    """
    from kubeproof.evidence.mcp_server import RecordedKubectl, serve

    if audit_log and not audit_user:
        raise KubeproofError("--audit-log needs --audit-user: whose requests to record")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    recorded = RecordedKubectl(
        kubeconfig,
        evidence or Path("evidence") / stamp,
        keys.load_signing_key(key),
        kubectl_binary(),
        agent,
        audit_log,
        audit_user,
        timeout,
    )
    serve(recorded)
