"""The generate track: tasks made by seeded parametric templates (KubeBench's and
CloudEval-YAML's kind of task, judged more strictly), and the stages that judge an answer.
docs/generate.md describes the track; this package holds the task model (model.py), the
templates (templates/), the mutants (mutants.py), the suites (suites.py), S0 (extract.py),
S1 (schema.py), the typed checks judged over objects (checks.py, rbac.py), and the live
stages S2-S4 on a real apiserver (live/)."""
