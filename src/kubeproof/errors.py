"""Errors a user can act on. The CLI prints them as one sentence, never a traceback."""


class KubeproofError(Exception):
    """An expected failure: bad input, a missing tool, a busy port, a component that died.

    `hint` says what to do about it; `log` points at the file with the details.
    """

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None, log: str | None = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.log = log

    def __str__(self) -> str:
        parts = [self.message]
        if self.log:
            parts.append(f"details: {self.log}")
        if self.hint:
            parts.append(self.hint)
        return "\n".join(parts)


class NotFoundError(KubeproofError):
    """A named thing (cluster, component) does not exist."""


class BinariesMissingError(KubeproofError):
    """The control-plane binaries have not been built for this version."""
