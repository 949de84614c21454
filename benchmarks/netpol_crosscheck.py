"""netsim's NetworkPolicy verdicts against an independent evaluator (cyclonus's matcher behind
the apiserver's defaulting and validation, controlplane/netpolcheck) on seeded random cases:
agreement, and every disagreement in a class that says whose semantics it is
(docs/netsim.md, Cross-check). Each case is judged twice by the engine: as written, and in
its reading-neutral form (crosscheck/neutral.py: every NotIn said so that a missing key means
the same to Kubernetes and to cyclonus), which is the headline agreement; netsim must give the
same verdicts on both forms. Builds the evaluator into the cache first if needed.

    python benchmarks/netpol_crosscheck.py [--cases 5000] [--seed 1] [--json out.json]
"""

import argparse
import sys
import time
from collections import Counter

from rich.table import Table

from kubeproof.netsim.crosscheck import engine
from kubeproof.netsim.crosscheck.cases import cases as make_cases
from kubeproof.netsim.crosscheck.compare import (
    AGREE,
    DEVIATIONS,
    UNEXPLAINED,
    compare,
    netsim_verdicts,
)
from kubeproof.netsim.crosscheck.neutral import reading_neutral
from report import publish

BATCH = 500  # cases per engine process


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json")
    args = parser.parse_args()

    started = time.perf_counter()
    binary = engine.build()
    build_s = time.perf_counter() - started
    counts: Counter[str] = Counter()
    written: Counter[str] = Counter()  # the engine on the cases as written
    transform_differs = 0  # probes where netsim's verdict changes with the neutral form
    examples: dict[str, str] = {}
    allowed = probes = 0
    timings = Counter[str]()
    for first in range(0, args.cases, BATCH):
        t = time.perf_counter()
        batch = make_cases(args.seed, min(BATCH, args.cases - first), start=first)
        timings["generate"] += time.perf_counter() - t
        t = time.perf_counter()
        neutral = [reading_neutral(c) for c in batch]
        timings["generate"] += time.perf_counter() - t
        t = time.perf_counter()
        as_written = engine.judge(binary, [c.engine_input() for c in batch])
        answers = engine.judge(binary, [c.engine_input() for c in neutral])
        timings["engine"] += time.perf_counter() - t
        t = time.perf_counter()
        for case, neutral_case, written_answer, answer in zip(
            batch, neutral, as_written, answers, strict=True
        ):
            mine = netsim_verdicts(case)  # once per case, for both forms
            written.update(r.verdict for r in compare(case, written_answer, mine))
            transform_differs += sum(
                a != b
                for a, b in zip(
                    mine, netsim_verdicts(neutral_case, neutral_case.objects()), strict=True
                )
            )
            for result in compare(case, answer, mine):
                probes += 1
                allowed += result.netsim
                counts[result.verdict] += 1
                if result.verdict != AGREE and result.verdict not in examples:
                    p = result.probe
                    examples[result.verdict] = (
                        f"seed {case.seed} case {case.index}: "
                        f"{p.source.pod or p.source.ip} -> {p.target.pod or p.target.ip} "
                        f"{p.port}/{p.protocol}: netsim {'allows' if result.netsim else 'denies'}"
                    )
        timings["netsim"] += time.perf_counter() - t

    disagreements = probes - counts[AGREE]
    explained = sum(n for name, n in counts.items() if name in DEVIATIONS)
    classes = []
    for name, n in sorted(counts.items(), key=lambda item: -item[1]):
        if name == AGREE:
            continue
        deviation = DEVIATIONS.get(name)
        classes.append(
            {
                "class": name,
                "probes": n,
                "whose": deviation.whose if deviation else "unknown",
                "explanation": deviation.explanation if deviation else "not explained",
                "example": examples[name],
            }
        )
    result = {
        "engine": f"{engine.ENGINE_MODULE} {engine.engine_version()} (matcher)",
        "seed": args.seed,
        "cases": args.cases,
        "probes": probes,
        "netsim_allowed_share": round(allowed / max(probes, 1), 4),
        "agreement": round(counts[AGREE] / max(probes, 1), 6),
        "agreement_engine_deviations_set_aside": round(
            (counts[AGREE] + explained) / max(probes, 1), 6
        ),
        "as_written": {
            "agreement": round(written[AGREE] / max(probes, 1), 6),
            "classes": dict(sorted(written.items())),
        },
        "neutral_form_changes_netsim": transform_differs,
        "disagreements": disagreements,
        "unexplained": counts[UNEXPLAINED],
        "classes": classes,
        "seconds": {
            "build": round(build_s, 2),
            **{k: round(v, 2) for k, v in sorted(timings.items())},
        },
    }
    table = Table("class", "probes", "whose", "explanation", title="netsim vs cyclonus")
    table.add_row(AGREE, str(counts[AGREE]), "", "")
    for c in classes:
        table.add_row(c["class"], str(c["probes"]), c["whose"], c["explanation"])
    publish(table, result, args.json)
    print(
        f"{args.cases} cases, {probes} probes: agreement {100 * result['agreement']:.3f} % "
        f"(reading-neutral form), {disagreements} disagreements, "
        f"{counts[UNEXPLAINED]} unexplained; as written "
        f"{100 * result['as_written']['agreement']:.3f} % "
        f"({written[UNEXPLAINED]} unexplained); the neutral form changed "
        f"{transform_differs} of netsim's verdicts"
    )
    return 1 if counts[UNEXPLAINED] or written[UNEXPLAINED] or transform_differs else 0


if __name__ == "__main__":
    sys.exit(main())
