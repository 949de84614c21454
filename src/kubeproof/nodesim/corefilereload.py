"""CoreDNS's `reload` plugin in a running CoreDNS container (CoreDNS 1.14.2, the release
kubeadm v1.36.3 installs; github.com/coredns/coredns plugin/reload and github.com/coredns/
caddy caddy.go): it re-reads its Corefile on a ticker and restarts its servers with a
changed one, in place — the container neither exits nor turns unready.

- setup.go:35-66,86-89: the ticker's period is `reload [INTERVAL [JITTER]]` (30 s, 15 s),
  the jitter capped at half the interval, plus a uniform draw in [-JITTER/2, JITTER/2)
  taken once per instance setup (every successful reload draws anew).
- reload.go:70-72: a Corefile started without `reload` never re-reads. Once the ticker
  runs it keeps running after a reload to a Corefile without `reload` (the usage flag is
  `maybeUsed`, not `unused`, when the new instance's hook runs: reload.go:107,120).
- reload.go:88-123, each tick: a file it cannot read is skipped silently; one that does not
  parse as a caddyfile (braces; directive names are not checked there) logs
  `[WARNING] plugin/reload: Corefile parse failed: …` at every tick; an unchanged SHA-512
  does nothing. A changed one is tried once (the SHA is kept even when it fails): caddy.go
  Restart logs `[INFO] Reloading`; a Corefile the server type refuses (an unknown plugin)
  fails: Restart's deferred log prints its local `err`, the bare parse error (`[ERROR]
  Restart failed: <parse error>`, caddy.go:202), and returns it wrapped (caddy.go:250),
  which reload.go:115 logs as `[ERROR] plugin/reload: Corefile changed but reload failed:
  starting with listener file descriptors: <parse error>`; the old servers serve on. Else
  the new instance's hook logs `[INFO] plugin/reload: Running configuration SHA512 = …`
  and caddy `[INFO] Reloading complete` (caddy.go:186,266-268). A restart does not print
  the `.:53` server list again (caddy.go:551, only when not restarting).

Times are scaled by the timing profile (nodesim/timing.py). Plugin setup errors other than
parse errors (bad arguments) are not modelled, at start or on reload.
"""

import random
import re
from collections.abc import Callable

from kubeproof.netsim import corefile
from kubeproof.nodesim.timing import RELOAD_INTERVAL, RELOAD_JITTER, Timing

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def go_seconds(text: str) -> float | None:
    """time.ParseDuration for the plain forms (`30s`, `1m30s`, `500ms`); None if invalid."""
    if text == "0":
        return 0.0
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _UNITS[u] for n, u in parts)


def _reload_args(text: str) -> list[str] | None:
    """The `reload` directive's arguments, None when the Corefile has none."""
    for block in corefile.parse(text):
        for args in block.directives.get("reload", []):
            return args
    return None


class CorefileReload:
    """One CoreDNS process's reload loop: `loaded` is the Corefile its servers run."""

    def __init__(self, path: str, text: str, at: float, timing: Timing, seed: str):
        self.path, self.loaded, self.timing = path, text, timing
        self.rng = random.Random(seed)
        self.sum = corefile.sha512(text)  # reload.go:81, the last file it tried
        args = _reload_args(text)
        self.interval = self._interval(args) if args is not None else 0.0
        self.next_at = at + self.interval if args is not None else float("inf")

    def _interval(self, args: list[str]) -> float:
        interval = go_seconds(args[0]) if args else RELOAD_INTERVAL
        jitter = go_seconds(args[1]) if len(args) > 1 else RELOAD_JITTER
        interval = RELOAD_INTERVAL if interval is None else interval
        jitter = RELOAD_JITTER if jitter is None else min(jitter, interval / 2)
        if jitter > 0:  # rand.Int63n(j) - j/2
            interval += self.rng.random() * jitter - jitter / 2
        return self.timing(interval)

    def advance(self, now: float, read: Callable[[float], str | None]) -> list[tuple[float, str]]:
        """The ticks due by `now`, each reading the file as the container sees it then;
        the log lines they print, with their times."""
        lines: list[tuple[float, str]] = []
        while self.next_at <= now:
            at = self.next_at
            self.next_at = at + self.interval
            lines += [(at, line) for line in self._tick(at, read(at))]
        return lines

    def _tick(self, at: float, text: str | None) -> list[str]:
        if text is None:
            return []  # reload.go:91-94: LoadCaddyfile failed, silently
        try:
            digest = corefile.sha512(text)
        except corefile.CorefileError as exc:
            return [f"[WARNING] plugin/reload: Corefile parse failed: {exc}"]  # reload.go:97
        if digest == self.sum:
            return []
        self.sum = digest
        error = corefile.check(text, self.path)
        if error is not None:
            failed = f"starting with listener file descriptors: {error}"  # caddy.go:250
            return [
                "[INFO] Reloading",
                f"[ERROR] Restart failed: {error}",  # caddy.go:202, the unwrapped err
                f"[ERROR] plugin/reload: Corefile changed but reload failed: {failed}",
            ]
        self.loaded = text
        args = _reload_args(text)
        if args is not None:  # the new instance's setup draws a new period (setup.go:70)
            self.interval = self._interval(args)
        self.next_at = at + self.interval  # the new hook's ticker
        return [
            "[INFO] Reloading",
            f"[INFO] plugin/reload: Running configuration SHA512 = {digest}",
            "[INFO] Reloading complete",
        ]
