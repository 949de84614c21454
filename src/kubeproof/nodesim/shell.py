"""`kubectl exec` answered from the behaviour model: what common commands print inside a
simulated container (its environment, its mounted files), with real exit codes."""

import shlex
from dataclasses import dataclass

from kubeproof.nodesim.container import Container


@dataclass
class Result:
    stdout: str = ""
    stderr: str = ""
    code: int = 0

    def __add__(self, other: "Result") -> "Result":
        return Result(self.stdout + other.stdout, self.stderr + other.stderr, other.code)


NETWORK = {"wget", "curl", "nc", "nslookup", "dig", "ping", "telnet"}


def environment(container: Container, pod_name: str) -> dict[str, str]:
    base = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOSTNAME": pod_name,
        "HOME": "/root",
        "KUBERNETES_SERVICE_HOST": "10.96.0.1",
        "KUBERNETES_SERVICE_PORT": "443",
        "KUBERNETES_PORT": "tcp://10.96.0.1:443",
    }
    return base | container.env


def run(argv: list[str], container: Container, pod_name: str) -> Result:
    if not argv:
        return Result(stderr="error: you must specify at least one command\n", code=1)
    if argv[0] in ("sh", "bash", "/bin/sh", "/bin/bash") and len(argv) >= 3 and argv[1] == "-c":
        return _script(argv[2], container, pod_name)
    return _command(argv, container, pod_name)


def _script(text: str, container: Container, pod_name: str) -> Result:
    result = Result()
    for part in text.split("&&"):
        for statement in part.split(";"):
            try:
                words = shlex.split(statement)
            except ValueError as exc:
                return result + Result(stderr=f"sh: syntax error: {exc}\n", code=2)
            if words:
                result = result + _command(words, container, pod_name)
        if result.code != 0:
            break
    return result


def _command(argv: list[str], container: Container, pod_name: str) -> Result:
    name, args = argv[0].rsplit("/", 1)[-1], argv[1:]
    files = container.files
    if name in ("env", "printenv"):
        env = environment(container, pod_name)
        if name == "printenv" and args:
            values = [env[a] for a in args if a in env]
            return Result(
                "".join(v + "\n" for v in values), code=0 if len(values) == len(args) else 1
            )
        return Result("".join(f"{k}={v}\n" for k, v in env.items()))
    if name == "cat":
        out, err, code = "", "", 0
        for path in args:
            if path in files:
                out += files[path] if files[path].endswith("\n") else files[path] + "\n"
            else:
                err += f"cat: can't open '{path}': No such file or directory\n"
                code = 1
        return Result(out, err, code)
    if name == "ls":
        target = next((a for a in args if not a.startswith("-")), "/").rstrip("/") or "/"
        entries = sorted(
            {p[len(target) + 1 :].split("/")[0] for p in files if p.startswith(target + "/")}
        )
        if not entries and target not in files:
            return Result(stderr=f"ls: {target}: No such file or directory\n", code=1)
        return Result("".join(e + "\n" for e in entries) if entries else target + "\n")
    if name == "echo":
        return Result(" ".join(args) + "\n")
    if name == "hostname":
        return Result(pod_name + "\n")
    if name in ("true", ":"):
        return Result()
    if name == "false":
        return Result(code=1)
    if name in ("id", "whoami"):
        return Result("uid=0(root) gid=0(root) groups=0(root)\n" if name == "id" else "root\n")
    if name == "pwd":
        return Result("/\n")
    if name == "test" or name == "[":
        path = args[-1] if args else ""
        return Result(
            code=0 if path in files or any(p.startswith(path + "/") for p in files) else 1
        )
    if name in NETWORK:
        return Result(stderr=f"{name}: network access from exec is not simulated yet\n", code=1)
    return Result(
        stderr=f"OCI runtime exec failed: exec failed: unable to start container process: "
        f'exec: "{argv[0]}": executable file not found in $PATH: unknown\n',
        code=126,
    )
