"""Evidence benchmark: the flight recorder's cost, measured on realistic `command` entries
(~1 KB payloads: a kubectl command, its output, digests and a risk assessment).

- append: entries/s through Recorder.append (canonicalize, hash, write, flush) with the
  default checkpoint every 256 entries, signing included. Target 5,000/s.
- verify: entries/s through verify_chain (parse, canonical-form check, hash, links, order,
  checkpoint signatures). Target 20,000/s.
- per checkpoint: one Ed25519 signature, and a whole checkpoint entry (build, sign, write);
  bytes per entry on disk.

    python benchmarks/evidence.py [--entries 20000] [--rounds 3] [--json [out.json]]

`--json` alone prints only the JSON, to stdout.
"""

import argparse
import hashlib
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rich.table import Table

from kubeproof.evidence import Recorder, generate, verify_chain
from report import publish

TARGETS = {"append_per_s": 5_000, "verify_per_s": 20_000}
AGENT = {"type": "agent", "id": "benchmark"}
VERBS = ["get", "describe", "logs", "rollout status", "apply -f -", "patch", "scale"]


def command_payload(step: int, rng: random.Random) -> dict:
    """A command entry's payload of about 1 KB, like a real kubectl step."""
    name = f"web-{rng.randrange(10_000):04d}"
    rows = "".join(
        f"{name}-{rng.randrange(16**5):05x}   1/1     Running   {rng.randrange(5)}   "
        f"{rng.randrange(60)}m   10.244.{rng.randrange(255)}.{rng.randrange(255)}   node-1\n"
        for _ in range(7)
    )
    stdout = "NAME                READY   STATUS    RESTARTS   AGE   IP            NODE\n" + rows
    return {
        "step": step,
        "command": f"kubectl -n shop {rng.choice(VERBS)} deployment/{name} -o wide",
        "exit_code": 0 if rng.random() < 0.9 else 1,
        "seconds": round(rng.uniform(0.05, 3.0), 4),
        "timed_out": False,
        "stdout_sha256": hashlib.sha256(stdout.encode()).hexdigest(),
        "stderr_sha256": hashlib.sha256(b"").hexdigest(),
        "stdout": stdout,
        "stderr": "",
        "risk": {
            "level": "low",
            "operation": "read",
            "environment": "test",
            "tags": [{"id": "k8s.read", "severity": "low", "detail": "read-only"}],
        },
    }


def measure_append(directory: Path, key, payloads: list[dict]) -> tuple[float, Path]:
    started = time.perf_counter()
    with Recorder(directory, key) as rec:
        for payload in payloads:
            rec.append("command", payload, actor=AGENT)
    return time.perf_counter() - started, directory


def measure_checkpoint(directory: Path, key, payload: dict, n: int = 300) -> float:
    """Median seconds of one checkpoint entry (build, sign, write, flush)."""
    times = []
    with Recorder(directory, key, checkpoint_every=10**9, segment_entries=10**9) as rec:
        for _ in range(n):
            rec.append("command", payload, actor=AGENT)
            t = time.perf_counter()
            rec.seal()
            times.append(time.perf_counter() - t)
    return statistics.median(times)


def median_call(fn, n: int = 2000) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    work = Path(tempfile.mkdtemp(prefix="kubeproof-bench-evidence-"))
    try:
        return run(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(work: Path) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3, help="best of this many")
    parser.add_argument("--json", nargs="?", const="-", help="write the figures here ('-')")
    args = parser.parse_args()
    rng = random.Random(8)
    payloads = [command_payload(step, rng) for step in range(1, args.entries + 1)]
    key = generate()

    append_s, verify_s, chain = [], [], None
    for round_ in range(args.rounds):
        seconds, chain = measure_append(work / f"append-{round_}", key, payloads)
        append_s.append(seconds)
    assert chain is not None
    report = None
    for _ in range(args.rounds):
        t = time.perf_counter()
        report = verify_chain(chain)
        verify_s.append(time.perf_counter() - t)
    assert report is not None and report.ok, report and report.problems[:3]

    digest = bytes(32)
    signature = key.sign(digest)
    public = key.public_key()
    sign_s = median_call(lambda: key.sign(digest))
    check_s = median_call(lambda: public.verify(signature, digest))
    checkpoint_s = measure_checkpoint(work / "checkpoints", key, payloads[0])
    disk = sum(p.stat().st_size for p in chain.glob("segment-*.jsonl"))
    payload_bytes = statistics.mean(len(json.dumps(p)) for p in payloads)

    append_rate = report.entries / min(append_s)
    verify_rate = report.entries / min(verify_s)
    result = {
        "entries": report.entries,
        "checkpoints": report.checkpoints,
        "checkpoint_every": 256,
        "append_per_s": round(append_rate),
        "append_ratio": round(append_rate / TARGETS["append_per_s"], 2),
        "verify_per_s": round(verify_rate),
        "verify_ratio": round(verify_rate / TARGETS["verify_per_s"], 2),
        "append_us_per_entry": round(1e6 / append_rate, 1),
        "verify_us_per_entry": round(1e6 / verify_rate, 1),
        "ed25519_sign_us": round(sign_s * 1e6, 1),
        "ed25519_verify_us": round(check_s * 1e6, 1),
        "checkpoint_entry_us": round(checkpoint_s * 1e6, 1),
        "checkpoint_sign_us_per_entry": round(sign_s * 1e6 / 256, 2),
        "bytes_per_entry": round(disk / report.entries),
        "payload_bytes": round(payload_bytes),
        "targets": TARGETS,
    }
    if args.json == "-":
        print(json.dumps(result, indent=2))
        return 0
    table = Table(
        "measure", "figure", "target", "ratio", title="evidence (targets: 5,000 and 20,000 /s)"
    )
    table.add_row(
        "append + sign",
        f"{append_rate:,.0f} entries/s",
        f"{TARGETS['append_per_s']:,}",
        f"{result['append_ratio']}x",
    )
    table.add_row(
        "verify",
        f"{verify_rate:,.0f} entries/s",
        f"{TARGETS['verify_per_s']:,}",
        f"{result['verify_ratio']}x",
    )
    table.add_row("Ed25519 sign / verify", f"{sign_s * 1e6:.0f} / {check_s * 1e6:.0f} µs", "", "")
    table.add_row("checkpoint entry", f"{checkpoint_s * 1e6:.0f} µs", "", "")
    table.add_row(
        "bytes per entry",
        f"{result['bytes_per_entry']} (payload {result['payload_bytes']})",
        "",
        "",
    )
    publish(table, result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
