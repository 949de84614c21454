"""The `kubeproof` command.

Exit codes: 0 success, 1 an error the message explains, 2 bad usage, 4 a cluster that is
not healthy (`cluster status`), 3 unreachable or not as intended (`net`),
1 also when a trial errored (`run`), a task is not valid (`tasks validate`, `tasks prove`) or a
fidelity scenario differs (`fidelity`, which exits 2 on a bad scenario file),
130 interrupted.
"""

import faulthandler
import signal
import sys

import typer

from kubeproof import __version__
from kubeproof.cli import (
    agents,
    cluster,
    evidence,
    fidelity,
    generate_run,
    mcp,
    net,
    netpol,
    report,
    run,
    runs,
    setup,
    tasks,
    tasks_generate,
    tasks_prove,
)
from kubeproof.cli.output import err
from kubeproof.errors import KubeproofError

app = typer.Typer(
    name="kubeproof",
    help="Benchmark AI agents on Kubernetes operations and prove what they did.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(cluster.app, name="cluster")
app.add_typer(net.app, name="net")
app.add_typer(netpol.app, name="netpol")
app.add_typer(tasks.app, name="tasks")
tasks.app.command("generate")(tasks_generate.generate)
tasks.app.command("suites")(tasks_generate.suites_)
tasks.app.command("prove")(tasks_prove.prove)
app.add_typer(generate_run.app, name="generate")
app.add_typer(evidence.app, name="evidence")
app.add_typer(agents.app, name="agents")
app.add_typer(runs.app, name="runs")
app.command("setup")(setup.setup)
app.command("run")(run.run)
app.command("version")(setup.version)
app.command("doctor")(setup.doctor)
app.command("mcp")(mcp.mcp)
app.command("fidelity")(fidelity.fidelity)
app.command("report")(report.report)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kubeproof {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """Benchmark AI agents on Kubernetes operations and prove what they did."""


_stopping = False


def _terminated(signum: int, _frame: object) -> None:
    """SIGTERM ends the command as Ctrl-C would: clusters stopped, local model servers and
    other children torn down, what finished kept (the default action would kill the process
    with none of its cleanup run, leaving its children behind). A second SIGTERM while that
    cleanup runs, or while the trials still running finish, is told so and otherwise ignored:
    raised inside the cleanup it would cut it short (and Python would print "Exception ignored
    in threading._shutdown"). Ctrl-C is how a user abandons those trials."""
    global _stopping
    if _stopping:
        sys.stderr.write(
            "kubeproof: already stopping, cleaning up; Ctrl-C (SIGINT) abandons the trials "
            "still running, SIGKILL ends it at once\n"
        )
        return
    _stopping = True
    raise SystemExit(128 + signum)


def main() -> None:
    # a crash inside a C extension should still say where it happened
    faulthandler.enable()
    signal.signal(signal.SIGTERM, _terminated)
    try:
        app()
    except KubeproofError as exc:
        err(exc)
        sys.exit(exc.exit_code)
