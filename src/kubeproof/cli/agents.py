"""`kubeproof agents`: the agent specs, the named agents of an agents file, and what a spec
resolves to — checked before a long run rather than in its first trial."""

import os
from pathlib import Path

import typer
from rich.table import Table

from kubeproof.agents.spec import KINDS, AgentsFile, AgentSpec, parse
from kubeproof.cli.output import Format, console, emit

app = typer.Typer(help="Agent specs and named agents.", no_args_is_help=True)
AGENTS_FILE = typer.Option(
    None, "--agents-file", help="TOML file of named agents (default: ./kubeproof-agents.toml)."
)
OUTPUT = typer.Option(Format.text, "--output", "-o", help="Output format.")


def describe(agent: AgentSpec) -> dict:
    """What a spec resolves to, as results would record it: never a key."""
    data: dict = {"spec": agent.spec, "kind": agent.kind, "label": agent.label}
    if agent.path:
        data["path"] = str(agent.path)
    if agent.llm:
        data["llm"] = agent.llm.public()
        key = agent.llm.key_env()
        data["api_key"] = f"${key} is {'set' if os.environ.get(key) else 'not set'}"
    if agent.cli:
        data["cli"] = agent.cli.model_dump()
    if agent.a2a:
        data["a2a"] = agent.a2a.model_dump(mode="json")
    return data


@app.command("list")
def list_agents(agents_file: Path = AGENTS_FILE, output: Format = OUTPUT) -> None:
    """The spec forms, and the agents the agents file names."""
    named = AgentsFile.load(agents_file)
    agents = [describe(parse(name, named)) for name in named.agents]
    if emit({"forms": list(KINDS), "named": agents}, output):
        return
    console.print("spec forms: " + ", ".join(KINDS), highlight=False)
    if named.path:
        table = Table("NAME", "KIND", "WHAT", box=None, title=str(named.path))
        for a in agents:
            what = (
                a.get("llm", {}).get("model")
                or a.get("cli", {}).get("command")
                or a.get("a2a", {}).get("url", "")
            )
            table.add_row(a["spec"], a["kind"], what)
        console.print(table)


@app.command()
def show(
    spec: str = typer.Argument(..., help="An agent spec or a name from the agents file."),
    agents_file: Path = AGENTS_FILE,
    output: Format = OUTPUT,
) -> None:
    """Resolve one spec: its kind, directory label and configuration (without keys), and
    whether the API key it reads is set. Exits 1 with the reason if the spec is bad."""
    data = describe(parse(spec, AgentsFile.load(agents_file)))
    if not emit(data, output):
        for key, value in data.items():
            console.print(f"[bold]{key}[/]: {value}", highlight=False)
