#!/usr/bin/env bash
# The main job: the task library with the reference agents on embedded clusters. The
# oracle resolves every task, the no-op resolves none; the run ends in its summary
# (by area, difficulty and agent) and a run directory with every trial's record.
set -euo pipefail
out="runs/demo-$(date -u +%Y%m%dT%H%M%SZ)"
kubeproof run --tasks 'repair/**' --agent oracle --agent noop -j 4 --out "$out"
echo
echo "== one trial, as recorded"
trial=$(ls -d "$out"/trials/*/oracle/1 | head -n 1)
python3 - "$trial" <<'PY'
import json, sys
record = json.load(open(f"{sys.argv[1]}/trial.json"))
print(f"{record['task']}: {record['verdict']}, score {record['score']}, safe {record['safe']}")
for r in record["results"] + record["safety"]:
    print(f"  {'PASS' if r['passed'] else 'FAIL'} [{r['kind']}] {r['name']}: {r['reason']}")
print("  timings:", record["timings"])
PY
