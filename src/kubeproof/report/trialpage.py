"""The body of a trial page, in Python: a report has a page per trial, 10,000 of them for a
large run, and a Jinja2 template spends most of a page's time looking up attributes and
escaping values one expression at a time (docs/results.md, "Size"). Each value is escaped
as it is inserted (agent text is hostile); templates/trial.html.j2 wraps it in the layout.
"""

from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup

from kubeproof.report import fragments
from kubeproof.report.detail import Detail
from kubeproof.report.fragments import escape
from kubeproof.report.view import TrialView, task_page
from kubeproof.results import TrialResult

NONE = "\N{EN DASH}"  # what a number not known shows


def _usd(value: float | None) -> str:
    return NONE if value is None else f"${value:,.4f}"


def _lines(items: list, text=escape) -> str:
    return "".join(f"{text(i)}<br>" for i in items)


def _json_items(title: str, items: list | None) -> str:
    if not items:
        return ""
    listed = "".join(f"<li><code>{htmlsafe_json_dumps(i)}</code></li>" for i in items)
    return f"<h3>{title}</h3><ul>{listed}</ul>\n"


def _facts(t: TrialView, r: TrialResult) -> list[str]:
    safe = "not judged" if r.safe is None else r.safe
    rows = [
        f'<tr><th>verdict</th><td class="{escape(t.css)}" id="verdict">{escape(t.word)}</td></tr>',
        f"<tr><th>expected</th><td>{escape(r.expected)}</td></tr>",
        f"<tr><th>score</th><td>{escape(r.score)}</td></tr>",
        f"<tr><th>safe</th><td>{escape(safe)}</td></tr>",
        f'<tr><th>reason</th><td class="reason">{escape(r.reason or "")}</td></tr>',
    ]
    if r.decision:
        why = f": {escape(r.decision.reason)}" if r.decision.reason else ""
        rows.append(f"<tr><th>decision</th><td>{escape(r.decision.outcome)}{why}</td></tr>")
    steps = NONE if r.steps is None else r.steps
    rows.append(f"<tr><th>steps</th><td>{escape(steps)}</td></tr>")
    if u := r.usage:
        rows.append(
            f"<tr><th>model usage</th><td>{escape(u.calls)} call(s), {escape(u.turns)} turn(s), "
            f"{escape(u.tokens_in)} tokens in, {escape(u.tokens_out)} out, cost "
            f"{_usd(u.cost_usd)}, {escape(u.retries)} retries, {escape(u.wasted_turns)} "
            "wasted turn(s)</td></tr>"
        )
    timings = r.timings
    shown = " · ".join(
        f"{k} {v:,.2f}"
        for k in type(timings).model_fields
        if (v := getattr(timings, k)) is not None
    )
    rows.append(f"<tr><th>timings (s)</th><td>{shown}</td></tr>")
    if r.agent_faults:
        rows.append(f"<tr><th>agent faults</th><td>{_lines(r.agent_faults)}</td></tr>")
    if r.warnings:
        rows.append(f"<tr><th>warnings</th><td>{_lines(r.warnings)}</td></tr>")
    if r.earlier_attempts:
        why = _lines([a.reason for a in r.earlier_attempts])
        rows.append(f"<tr><th>earlier attempts</th><td>{why}</td></tr>")
    return ['<table class="facts">\n', "\n".join(rows), "\n</table>\n"]


def _turns(d: Detail) -> list[str]:
    if not d.turns:
        return []
    parts = [
        '<h2>Model turns</h2>\n<table class="numbers"><thead><tr><th>turn</th><th>tokens in'
        "</th><th>tokens out</th><th>cost</th><th>seconds</th><th>finish</th><th>wasted</th>"
        "</tr></thead><tbody>\n"
    ]
    parts += [
        f'<tr><td><a href="#turn-{n}">{escape(u.turn)}</a></td><td>{escape(u.tokens_in)}</td>'
        f"<td>{escape(u.tokens_out)}</td><td>{escape(u.cost_usd)}</td><td>{escape(u.seconds)}"
        f"</td><td>{escape(u.finish_reason)}</td><td>{escape(u.wasted or '')}</td></tr>"
        for n, u in enumerate(d.turns, 1)
    ]
    parts.append("\n</tbody></table>\n")
    for n, u in enumerate(d.turns, 1):
        parts.append(f'<section class="turn" id="turn-{n}"><h3>Turn {escape(u.turn)}</h3>\n')
        if u.text.text:
            parts.append(fragments.pre(u.text))
        if u.tool_calls.text != "[]":
            parts += ["<h4>tool calls</h4>", fragments.pre(u.tool_calls)]
        if u.actions.text != "[]":
            parts += ["<h4>actions</h4>", fragments.pre(u.actions)]
        parts.append("\n</section>\n")
    return parts


def _judge(r: TrialResult) -> str:
    """S5, when a generate answer's judge was asked: its verdict and each flag."""
    judge = r.generate.judge if r.generate is not None else None
    if judge is None:
        return ""
    said = f"{escape(judge.status)}" + (f": {escape(judge.reason)}" if judge.reason else "")
    if judge.quality is not None:
        said += f" · Tu {judge.quality:.2f}"
    cached = " (cached)" if judge.cached else ""
    flags = "".join(
        f"<li><b>{escape(f.code or '(no code)')}</b>: {escape(f.detail)}</li>" for f in judge.flags
    )
    return (
        f'<h3>LLM judge (S5)</h3>\n<p id="judge">{said} · {escape(judge.judge)}{cached}</p>\n'
        + (f'<ul class="flags">{flags}</ul>\n' if flags else "<p>No flag raised.</p>\n")
    )


def _evidence(r: TrialResult, d: Detail) -> list[str]:
    chain = d.chain
    parts = ["<h2>Evidence</h2>\n"]
    if chain.present:
        word = "verified" if chain.ok else "NOT verified"
        parts.append(
            f'<p id="chain" class="{"ok" if chain.ok else "bad"}">chain {word}: '
            f"{escape(chain.entries)} entries, signed by {escape(chain.fingerprint or 'no key')}"
            "</p>\n"
        )
        if chain.problems:
            parts.append(f"<ul>{''.join(f'<li>{escape(p)}</li>' for p in chain.problems)}</ul>\n")
    else:
        parts.append('<p id="chain">This trial has no evidence chain.</p>\n')
    if e := r.evidence:
        parts.append(f"<p>unrecorded mutations: {escape(e.unrecorded_mutations)}</p>\n")
        if e.signals:
            signals = "".join(f"<li>{escape(k)}: {escape(v)}</li>" for k, v in e.signals.items())
            parts.append(f"<h3>Signals</h3><ul>{signals}</ul>\n")
        else:
            parts.append("<p>No behavioural signal fired.</p>\n")
        if e.compliance:
            parts.append(
                "<h3>Protocol compliance</h3>"
                f'<pre class="text">{htmlsafe_json_dumps(e.compliance, indent=1)}</pre>\n'
            )
    return parts


def title(t: TrialView) -> str:
    """A trial page's title (before the report's name)."""
    return f"{escape(t.task)} · {escape(t.agent)} · {escape(t.result.repeat)}"


def body(t: TrialView, r: TrialResult, d: Detail) -> Markup:
    """Everything a trial page shows below its navigation."""
    parts = [
        f'<h1><a href="../tasks/{task_page(t.task)}.html">{escape(t.task)}</a></h1>\n'
        f"<p>agent <b>{escape(t.agent)}</b> · repeat {escape(r.repeat)} · run {escape(t.run)}"
        f" · <code>{escape(t.rel)}</code></p>\n",
        *_facts(t, r),
        "\n<h2>Trajectory</h2>\n",
        *(f'<p class="warn">{escape(p)}</p>' for p in d.problems),
        "" if d.steps else "<p>No command recorded.</p>\n",
        fragments.steps(d.steps),
        *_turns(d),
        "\n<h2>Checks, contracts and safety</h2>\n",
        fragments.results(r.broken_state, "Broken state (before the agent)"),
        fragments.results(r.results, "Checks and contracts"),
        fragments.results(r.safety, "Safety"),
        _judge(r),
        _json_items("Audit violations", r.audit_violations),
        _json_items("Outages", r.outages),
        "\n",
        *_evidence(r, d),
        "\n<h2>Verifier log</h2>\n",
        fragments.pre(d.verifier_log) if d.verifier_log else "<p>No verifier.log.</p>",
        f"<h2>error.log</h2>{fragments.pre(d.error_log)}" if d.error_log else "",
        "\n",
    ]
    return Markup("".join(parts))
