"""A sandboxed command's output, kept the same way for every agent: the first and last halves
of each stream up to a limit, read as it comes so the harness never holds more than that
however much the command prints."""

import subprocess
import threading

OUTPUT_LIMIT = 16_384  # bytes kept per stream: the first and last halves


def truncate(data: bytes, limit: int = OUTPUT_LIMIT) -> tuple[str, bool]:
    if len(data) <= limit:
        return data.decode(errors="replace"), False
    half = limit // 2
    return _cut(data[:half], data[-half:], len(data) - 2 * half), True


def _cut(head: bytes, tail: bytes, cut: int) -> str:
    return (
        head.decode(errors="replace")
        + f"\n... [{cut} bytes truncated] ...\n"
        + tail.decode(errors="replace")
    )


class _Stream:
    def __init__(self, pipe, limit: int):
        self.half = limit // 2
        self.limit = limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.thread.start()

    def _read(self, pipe) -> None:
        with pipe:
            while chunk := pipe.read1(65536):
                self.total += len(chunk)
                room = self.limit - len(self.head)
                if room > 0:
                    self.head += chunk[:room]
                    chunk = chunk[room:]
                self.tail += chunk
                if len(self.tail) > self.limit:
                    del self.tail[: len(self.tail) - self.limit]

    def text(self) -> tuple[str, bool]:
        self.thread.join(timeout=5)
        if self.total <= self.limit:
            return bytes(self.head + self.tail).decode(errors="replace"), False
        whole = bytes(self.head + self.tail)  # at most 2 x limit bytes
        return _cut(whole[: self.half], whole[-self.half :], self.total - 2 * self.half), True


class Capture:
    def __init__(self, proc: subprocess.Popen, stdin: bytes | None, limit: int):
        self.proc = proc
        self.out = _Stream(proc.stdout, limit)
        self.err = _Stream(proc.stderr, limit)
        if stdin is not None:
            threading.Thread(target=self._feed, args=(stdin,), daemon=True).start()

    def _feed(self, data: bytes) -> None:
        try:
            with self.proc.stdin as pipe:
                pipe.write(data)
        except OSError:
            pass  # the command did not read it all

    def wait(self, seconds: float) -> bool:
        try:
            self.proc.wait(timeout=seconds)
            return True
        except subprocess.TimeoutExpired:
            return False

    def finish(self) -> tuple[str, str, bool]:
        stdout, cut_out = self.out.text()
        stderr, cut_err = self.err.text()
        return stdout, stderr, cut_out or cut_err
