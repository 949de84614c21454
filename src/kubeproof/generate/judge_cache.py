"""The LLM judge's cache (S5, docs/generate.md): one file per verdict, named by its content
hash, so a re-run with the same task, answer, stage results, judge model and prompt version
asks the judge nothing. Entries are written to a fresh name and renamed (two runs may share
the cache); an entry that does not read back as a verdict is a miss, never an error."""

import hashlib
import json
import os
import tempfile
from pathlib import Path

from pydantic import ValidationError

from kubeproof.hostile import FILE_LIMIT, HostileInput, loads_json
from kubeproof.results.generate import JudgeOutcome


def key(task_digest: str, answer: str, stages: str, judge: str, prompt_version: str) -> str:
    """sha256 over the task's digest, the answer's, the stage results' (as the judge reads
    them), the judge model and the prompt version."""
    parts = {
        "task": task_digest,
        "answer": hashlib.sha256(answer.encode()).hexdigest(),
        "stages": hashlib.sha256(stages.encode()).hexdigest(),
        "judge": judge,
        "prompt": prompt_version,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


class JudgeCache:
    def __init__(self, root: Path):
        self.root = root

    def _path(self, digest: str) -> Path:
        return self.root / digest[:2] / f"{digest}.json"

    def get(self, digest: str) -> JudgeOutcome | None:
        path = self._path(digest)
        try:
            if path.is_symlink() or path.stat().st_size > FILE_LIMIT:
                return None
            found = JudgeOutcome.model_validate(loads_json(path.read_text(), "cache entry"))
        except (OSError, UnicodeDecodeError, HostileInput, ValidationError):
            return None
        return found if found.key == digest and found.status != "skipped" else None

    def put(self, verdict: JudgeOutcome) -> None:
        path = self._path(verdict.key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, fresh = tempfile.mkstemp(dir=path.parent, prefix=".entry-")
        try:
            with os.fdopen(fd, "w") as out:
                out.write(json.dumps(verdict.record(), indent=1))
            os.replace(fresh, path)
        except BaseException:
            Path(fresh).unlink(missing_ok=True)
            raise
