"""The generate track's live stages (S2 Ev, S3 Ov, S4 Acc) on a real apiserver: a judge
session per cluster that judges tasks one after another with exact cleanup (session.py),
the judgement itself (judge.py), workers over several clusters (workers.py) and the
validity proof of generated tasks (prove.py). docs/generate.md describes the stages."""
