"""Finding, checking and loading task directories. Every problem is reported as
`path:line: message`, and a task with problems is never run. Warnings (`path:line: warning:
message`) name what a task still lacks, such as too few shortcuts or alternatives; they do
not stop a task from running, and fail only `kubeproof tasks lint --strict`."""

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import ValidationError

from kubeproof.errors import KubeproofError
from kubeproof.tasks.locate import toml_error_line, toml_line
from kubeproof.tasks.model import TaskFile
from kubeproof.verify.verifier import lint

# what every task that expects `resolved` should ship (issue 13): cheats that must score 0,
# among them a change-and-revert and a transient harm where the task allows one, and
# different valid fixes that must score 1
MIN_SHORTCUTS = 4
MIN_ALTERNATIVES = 2


@dataclass(frozen=True)
class Problem:
    path: Path
    line: int
    message: str
    warning: bool = False  # a shortfall to fix, not breakage: the task still runs

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {'warning: ' if self.warning else ''}{self.message}"


class TaskInvalid(KubeproofError):
    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass
class Task:
    root: Path
    id: str
    spec: TaskFile
    instruction: str
    setup: list[Path] = field(default_factory=list)  # manifests applied as admin
    breaks: list[Path] = field(default_factory=list)  # break manifests or break.sh
    images: Path | None = None
    solution: Path | None = None
    verifier: Path | None = None
    broken: Path | None = None  # environment/broken.py: assertions the break must satisfy
    shortcuts: list[Path] = field(default_factory=list)  # cheats: each must score 0
    alternatives: list[Path] = field(default_factory=list)  # other valid fixes: each scores 1
    warnings: list[Problem] = field(default_factory=list)
    # issue 16: a Harbor-format task's pieces
    setup_script: Path | None = None  # environment/setup.sh: run as admin after the manifests
    shell_verifier: Path | None = None  # tests/test.sh, when there is no tests/verify.py
    workspace: Path | None = None  # environment/workspace/: given to the agent
    bin: Path | None = None  # environment/bin/: commands on the PATH of every sandbox


def discover(paths: list[Path]) -> list[Path]:
    """Task directories at or below the given paths, sorted."""
    found: set[Path] = set()
    for path in paths:
        if (path / "task.toml").is_file():
            found.add(path)
        elif path.is_dir():
            found.update(p.parent for p in path.rglob("task.toml"))
        else:
            raise KubeproofError(f"{path}: no such task or directory")
    return sorted(found)


def task_id(root: Path) -> str:
    """repair/<area>/<name> from the path under a `tasks/` library, else the name."""
    parts = root.resolve().parts
    if "tasks" in parts:
        return "/".join(parts[len(parts) - parts[::-1].index("tasks") :])
    return root.name


def _manifest_problems(path: Path) -> list[Problem]:
    text = path.read_text()
    try:
        nodes = list(yaml.compose_all(text))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        return [Problem(path, mark.line + 1 if mark else 1, f"invalid YAML: {exc}")]
    problems = []
    for node in nodes:
        if node is None:
            continue
        doc = yaml.safe_load(yaml.serialize(node))
        line = node.start_mark.line + 1
        if not isinstance(doc, dict):
            problems.append(Problem(path, line, "a manifest must be a mapping"))
            continue
        for required in ("apiVersion", "kind"):
            if not doc.get(required):
                problems.append(Problem(path, line, f"manifest has no {required}"))
        if not (doc.get("metadata") or {}).get("name") and doc.get("kind") != "List":
            problems.append(
                Problem(path, line, f"{doc.get('kind', 'manifest')} has no metadata.name")
            )
    return problems


def _spec(root: Path) -> tuple[TaskFile | None, list[Problem]]:
    path = root / "task.toml"
    if not path.is_file():
        return None, [Problem(path, 1, "missing task.toml")]
    text = path.read_text()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return None, [Problem(path, toml_error_line(str(exc)), f"invalid TOML: {exc}")]
    try:
        return TaskFile.model_validate(data), []
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            where = ".".join(str(p) for p in error["loc"])
            problems.append(
                Problem(path, toml_line(text, error["loc"]), f"{where}: {error['msg']}")
            )
        return None, problems


def inspect(root: Path) -> tuple[Task | None, list[Problem]]:
    """The task and every problem found in it (the task is None if task.toml is unusable)."""
    spec, problems = _spec(root)
    instruction_path = root / "instruction.md"
    instruction = instruction_path.read_text() if instruction_path.is_file() else ""
    if not instruction.strip():
        problems.append(Problem(instruction_path, 1, "missing or empty instruction.md"))
    env = root / "environment"
    setup = sorted((env / "setup").glob("*.yaml")) + sorted((env / "setup").glob("*.yml"))
    setup_script = _regular(env / "setup.sh", problems)
    if not setup and setup_script is None:
        problems.append(
            Problem(env / "setup", 1, "no manifests in environment/setup/ and no setup.sh")
        )
    breaks = sorted((env / "break").glob("*.yaml")) if (env / "break").is_dir() else []
    if (env / "break.sh").is_file():
        breaks.append(env / "break.sh")
    declined = spec is not None and spec.kubeproof.expected == "declined"
    # the setup breaks the system itself (an imported Harbor bootstrap): nothing else to do
    by_setup = spec is not None and spec.kubeproof.broken_by_setup
    if by_setup and breaks:
        problems.append(Problem(env, 1, "broken_by_setup: a task with it has no break step"))
    if not breaks and not declined and not by_setup:
        problems.append(
            Problem(env, 1, "no break step: environment/break/*.yaml or environment/break.sh")
        )
    for manifest in [*setup, *(b for b in breaks if b.suffix in (".yaml", ".yml"))]:
        problems += _manifest_problems(manifest)
    images = env / "images.yaml"
    if images.is_file():
        from kubeproof.nodesim.catalog import load as load_catalog

        try:
            load_catalog(images)
        except KubeproofError as exc:
            problems.append(Problem(images, 1, str(exc).removeprefix(f"{images}: ")))
    if spec and spec.kubeproof.nodes.profile:
        profile = env / spec.kubeproof.nodes.profile
        if not profile.is_file():
            problems.append(
                Problem(root / "task.toml", 1, f"node profile {profile} does not exist")
            )
    solution = root / "solution" / "solve.sh"
    if not solution.is_file():
        problems.append(Problem(solution, 1, "missing solution/solve.sh (the oracle)"))
    verifier = root / "tests" / "verify.py"
    shell_verifier = None
    if verifier.is_file():
        problems += [Problem(verifier, line, msg) for line, msg in lint(verifier, "verify")]
    else:  # Harbor's convention: tests/test.sh writes /logs/verifier/reward.txt
        shell_verifier = _regular(root / "tests" / "test.sh", problems)
        if shell_verifier is None:
            problems.append(
                Problem(verifier, 1, "missing tests/verify.py or tests/test.sh (the verifier)")
            )
    broken = env / "broken.py"
    if broken.is_file():
        problems += [Problem(broken, line, msg) for line, msg in lint(broken, "broken")]
    elif not declined and not by_setup:
        problems.append(
            Problem(broken, 1, "missing environment/broken.py (assertions the break satisfies)")
        )
    shortcuts, found = _scripts(root / "tests" / "shortcuts")
    problems += found
    alternatives, found = _scripts(root / "tests" / "alternatives")
    problems += found
    # a shell verifier names no contract a shortcut could be caught by: with one, too few
    # shortcuts is a shortfall (a warning below), not a problem
    if not shortcuts and not declined and shell_verifier is None:
        problems.append(
            Problem(
                root / "tests" / "shortcuts",
                1,
                "no shortcuts: every task ships at least one cheat that must score 0",
            )
        )
    workspace, tools = env / "workspace", env / "bin"
    for folder in (workspace, tools):
        if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
            problems.append(Problem(folder, 1, "must be a folder, not a symlink or file"))
    if spec is None:
        return None, [p for p in problems if not p.warning]
    task = Task(
        root=root,
        id=spec.kubeproof.id or task_id(root),
        spec=spec,
        instruction=instruction,
        setup=setup,
        breaks=breaks,
        images=images if images.is_file() else None,
        solution=solution if solution.is_file() else None,
        verifier=verifier if verifier.is_file() else None,
        broken=broken if broken.is_file() else None,
        shortcuts=shortcuts,
        alternatives=alternatives,
        setup_script=setup_script,
        shell_verifier=shell_verifier,
        workspace=workspace if workspace.is_dir() and not workspace.is_symlink() else None,
        bin=tools if tools.is_dir() and not tools.is_symlink() else None,
    )
    task.warnings = [p for p in problems if p.warning]
    if not declined:
        task.warnings += _shortfalls(root, shortcuts, alternatives)
    return task, [p for p in problems if not p.warning]


def _regular(path: Path, problems: list[Problem]) -> Path | None:
    """`path` if it is a regular file; a problem if it is a symlink or anything else."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        problems.append(Problem(path, 1, "must be a regular file, not a symlink or folder"))
        return None
    return path if path.is_file() else None


def _scripts(folder: Path) -> tuple[list[Path], list[Problem]]:
    """The `*.sh` files under tests/shortcuts/ or tests/alternatives/, which validate plays
    as `script:` agents, and what is wrong with them: each must be a regular file (not a
    symlink, which could point anywhere) starting with a shebang and running something."""
    if not folder.is_dir():
        return [], []
    scripts, problems = [], []
    for path in sorted(folder.iterdir()):
        if path.suffix != ".sh":
            problems.append(
                Problem(path, 1, "not a .sh file: validate never runs it", warning=True)
            )
            continue
        if path.is_symlink() or not path.is_file():
            problems.append(Problem(path, 1, "must be a regular file, not a symlink or folder"))
            continue
        text = path.read_text(errors="replace")
        if not text.startswith("#!"):
            problems.append(Problem(path, 1, "must start with a shebang (#!/bin/sh)"))
        elif not any(ln.strip() and not ln.lstrip().startswith("#") for ln in text.splitlines()):
            problems.append(Problem(path, 1, "runs nothing: no command after the shebang"))
        scripts.append(path)
    return scripts, problems


def _shortfalls(root: Path, shortcuts: list[Path], alternatives: list[Path]) -> list[Problem]:
    """Warnings for a task below the library's targets (declined tasks have none)."""
    found = []
    for folder, have, least, what in (
        ("shortcuts", shortcuts, MIN_SHORTCUTS, "cheats that must score 0"),
        ("alternatives", alternatives, MIN_ALTERNATIVES, "other valid fixes that must score 1"),
    ):
        if len(have) < least:
            found.append(
                Problem(
                    root / "tests" / folder,
                    1,
                    f"{len(have)} {folder}, the target is at least {least} ({what})",
                    warning=True,
                )
            )
    return found


def load(root: Path) -> Task:
    task, problems = inspect(root)
    if problems or task is None:
        raise TaskInvalid(problems)
    return task
