"""Where kubeproof keeps things outside the repository.

Binaries and the golden snapshot are a cache (rebuildable); cluster state directories are
state (live processes point at them). Both can be moved with KUBEPROOF_CACHE_DIR and
KUBEPROOF_STATE_DIR, which tests use to stay out of the user's real clusters.
"""

import os
from pathlib import Path


def cache_root() -> Path:
    if env := os.environ.get("KUBEPROOF_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "kubeproof"


def state_root() -> Path:
    if env := os.environ.get("KUBEPROOF_STATE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "kubeproof"


def clusters_root() -> Path:
    return state_root() / "clusters"
