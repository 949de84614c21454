"""The golden snapshot: etcd data of a freshly bootstrapped cluster, so later clusters skip
the bootstrap (namespaces, RBAC, ServiceAccounts, priority classes, flow control).

Taken once, after the first cold start becomes ready, through etcd's snapshot API; restored
into a data directory with etcdutl; each warm start copies that directory. PKI is not part
of it: every cluster makes its own (see pki.py), and the controller manager republishes the
new CA into the restored root CA ConfigMaps.
"""

import base64
import http.client
import json
import shutil
import subprocess
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from kubeproof.cluster.binaries import Binaries, version_dir
from kubeproof.cluster.health import ssl_context
from kubeproof.cluster.layout import Layout
from kubeproof.cluster.versions import versions

# 2: with the CoreDNS addon (addons.py); 3: with kube-proxy (kubeproxy.py); 4: with
# kubeadm's ConfigMaps and RBAC (kubeadmconfig.py)
FORMAT = 4
PLACEHOLDER_PEER = "https://127.0.0.1:2380"


def golden_dir() -> Path:
    return version_dir() / "golden"


def _meta() -> dict:
    v = versions()
    return {"format": FORMAT, "kubernetes": v.kubernetes, "etcd": v.etcd}


def usable() -> bool:
    """A golden snapshot exists and was made by this Kubernetes and etcd version."""
    try:
        meta = json.loads((golden_dir() / "golden.json").read_text())
    except (OSError, ValueError):
        return False
    wanted = _meta()
    return all(meta.get(k) == v for k, v in wanted.items()) and (golden_dir() / "data").is_dir()


def _stream_snapshot(etcd_url: str, layout: Layout, out: Path) -> None:
    ctx = ssl_context(layout.cert("ca"), (layout.cert("etcd-client"), layout.key("etcd-client")))
    host, port = etcd_url.removeprefix("https://").rsplit(":", 1)
    conn = http.client.HTTPSConnection(host, int(port), context=ctx, timeout=30)
    try:
        conn.request("POST", "/v3/maintenance/snapshot", body=b"{}")
        resp = conn.getresponse()
        if resp.status != 200:
            raise RuntimeError(f"etcd snapshot API answered HTTP {resp.status}")
        with out.open("wb") as fh:
            # the gateway streams one JSON message per line, each with a base64 chunk
            for line in resp:
                if line.strip():
                    message = json.loads(line)
                    if "error" in message:
                        raise RuntimeError(f"etcd snapshot failed: {message['error']}")
                    fh.write(base64.b64decode(message["result"].get("blob", "")))
    finally:
        conn.close()


def save(etcd_url: str, layout: Layout, binaries: Binaries) -> bool:
    """Snapshot a ready cluster into the cache. Returns False if another process won the race."""
    target = golden_dir()
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".golden-", dir=target.parent))
    try:
        db = work / "snapshot.db"
        _stream_snapshot(etcd_url, layout, db)
        subprocess.run(
            [
                binaries["etcdutl"],
                "snapshot",
                "restore",
                str(db),
                f"--data-dir={work / 'data'}",
                "--name=default",
                f"--initial-cluster=default={PLACEHOLDER_PEER}",
                f"--initial-advertise-peer-urls={PLACEHOLDER_PEER}",
            ],
            check=True,
            capture_output=True,
        )
        db.unlink()
        meta = _meta() | {"created_at": datetime.now(UTC).isoformat()}
        (work / "golden.json").write_text(json.dumps(meta, indent=2))
        if target.exists():
            shutil.rmtree(target)  # an outdated snapshot of another version or format
        try:
            work.rename(target)
        except OSError:
            return False
        return True
    finally:
        shutil.rmtree(work, ignore_errors=True)


def restore(data_dir: Path) -> None:
    shutil.copytree(golden_dir() / "data", data_dir)


def discard() -> None:
    shutil.rmtree(golden_dir(), ignore_errors=True)
