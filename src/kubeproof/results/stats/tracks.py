"""Which trials the generate and netpol tracks' tables are computed over: the report's
track sections (report/tracks.py) and `kubeproof runs show` split them the same way."""

from collections.abc import Iterable

from kubeproof.results.trial import TrialResult

Keyed = list[tuple[str, TrialResult]]  # each trial with its agent's key


def by_track(keyed: Iterable[tuple[str, TrialResult]]) -> tuple[Keyed, Keyed]:
    """(the generate track's trials, the netpol track's): a trial is of a track when it
    holds the track's outcome or says it is of it (an errored trial holds no outcome)."""
    generate: Keyed = []
    netpol: Keyed = []
    for agent, r in keyed:
        if r.generate is not None or r.track == "generate":
            generate.append((agent, r))
        elif r.netpol is not None or r.track == "netpol":
            netpol.append((agent, r))
    return generate, netpol
