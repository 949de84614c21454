#!/usr/bin/env bash
# The main job: the task library with the reference agents on embedded clusters, a real
# language model (Gemma 3 270M, offline, served by llama.cpp for the run) on a few easy
# tasks with a small step budget, and the HTML report of both runs. The oracle resolves
# every task, the no-op resolves none; the report compares all three.
set -euo pipefail
out="runs/demo-$(date -u +%Y%m%dT%H%M%SZ)"
kubeproof run --tasks 'repair/**' --agent oracle --agent noop -j 4 --out "$out/reference"
echo
kubeproof run --agent 'local:gemma3-270m?max_turns=4&max_tokens=160' -j 2 --out "$out/model" \
  --tasks repair/rbac-access/pod-report-empty \
  --tasks repair/service-routing/blog-posts-missing \
  --tasks repair/config-secrets/payments-worker-stuck
echo
echo "== one trial, as recorded"
trial=$(ls -d "$out"/reference/trials/*/oracle/1 | head -n 1)
python3 - "$trial" <<'PY'
import json, sys
record = json.load(open(f"{sys.argv[1]}/trial.json"))
print(f"{record['task']}: {record['verdict']}, score {record['score']}, safe {record['safe']}")
for r in record["results"] + record["safety"]:
    print(f"  {'PASS' if r['passed'] else 'FAIL'} [{r['kind']}] {r['name']}: {r['reason']}")
print("  timings:", record["timings"])
PY
echo
kubeproof report "$out/reference" "$out/model" -o "$out/report"
echo "the report: $out/report/index.html (open it from the file system; no network needed)"
