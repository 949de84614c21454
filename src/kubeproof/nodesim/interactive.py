"""What `kubectl attach -i` (and `kubectl run -i`, `kubectl debug -i`) types into a container
whose program is a shell reading its stdin (`stdin: true`, no script; process.py keeps it
running): each line runs in the modelled shell (shell.py) and what it prints is the
container's output — its log, which the attach streams back. When kubectl closes stdin the
shell reads EOF: with `stdinOnce` (kubectl run -i sets it) the runtime closes the
container's stdin after that first attach (CRI ContainerConfig stdin_once, k8s.io/cri-api
pkg/apis/runtime/v1/api.proto:1280-1284) and sh exits with its last command's status."""

import dataclasses
import time
from collections.abc import Callable

from aiohttp import WSMsgType, web

from kubeproof.nodesim import execstream, shell
from kubeproof.nodesim.catalog import ImageModel
from kubeproof.nodesim.container import Container
from kubeproof.nodesim.process import interactive_shell

MAX_LINE = 64 << 10  # one typed line (an agent's pipe is hostile)


def reads_stdin(container: Container, model: ImageModel | None) -> bool:
    """A modelled shell waiting on its stdin (a script running for real is not one)."""
    spec = container.spec
    command = [*(spec.get("command") or []), *(spec.get("args") or [])]
    return (
        bool(spec.get("stdin"))
        and model is not None
        and container.live is None
        and interactive_shell(model, command)
    )


async def feed(
    ws: web.WebSocketResponse,
    container: Container,
    run: Callable[[str], shell.Result],
    wake: Callable[[], None],
) -> None:
    """Run each line kubectl sends; at the end of stdin, end the shell if stdinOnce."""
    pending, code = b"", 0
    async for message in ws:
        if message.type != WSMsgType.BINARY or not message.data:
            continue
        channel, payload = message.data[0], message.data[1:]
        if channel == execstream.CLOSE and payload[:1] == bytes([execstream.STDIN]):
            break
        if channel != execstream.STDIN:
            continue
        pending += payload
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            code = _run(line, container, run, code)
        if len(pending) > MAX_LINE:
            pending = b""
    else:
        return  # the socket went without closing stdin: the shell keeps waiting
    if pending:
        code = _run(pending, container, run, code)
    if container.spec.get("stdinOnce") and container.stage == "running":
        _exit(container, code)
        wake()


def _run(line: bytes, container: Container, run: Callable[[str], shell.Result], code: int) -> int:
    text = line.decode(errors="replace").strip()
    if not text:
        return code
    result = run(text)
    now = time.time()
    for out in (result.stdout, result.stderr):  # the log has both streams
        container.logs += [(now, entry) for entry in out.splitlines()]
    return result.code


def _exit(container: Container, code: int) -> None:
    """sh at EOF: it exits now with `code` (Completed, or Error for a non-zero status)."""
    started = container.started_at or time.time()
    if container.plan is None:  # not started: nothing to end
        return
    container.plan = dataclasses.replace(
        container.plan,
        runs_for=max(time.time() - started, 0.0),
        exit_code=code,
        reason="Completed" if code == 0 else "Error",
    )
    container.next_at = time.time()
