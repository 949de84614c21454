"""Address reservations are machine-wide; a dead cluster whose address a live one has since
reserved must neither wait for those ports nor drop the live cluster's reservation."""

import json
import os

from kubeproof.cluster import addresses
from kubeproof.cluster.addresses import release, reserve, taken_over


def test_a_dead_clusters_address_reserved_by_a_live_one_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(addresses.tempfile, "gettempdir", lambda: str(tmp_path))
    dead, live = tmp_path / "dead", tmp_path / "live"
    address = reserve(dead)
    assert not taken_over(address, dead)
    # the dead cluster's harness is gone (no such pid, no component record): free to reserve
    path = addresses.reservations_dir() / address
    path.write_text(json.dumps({"state_dir": str(dead), "pid": 2**22 + 1}))
    assert reserve(live) == address
    assert json.loads(path.read_text()) == {"state_dir": str(live), "pid": os.getpid()}
    assert taken_over(address, dead) and not taken_over(address, live)
    release(address, dead)
    assert path.exists(), "stopping the dead cluster dropped the live one's reservation"
    release(address, live)
    assert not path.exists()
