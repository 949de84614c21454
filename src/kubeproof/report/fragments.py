"""The parts of a trial page there are many of — outputs, trajectory steps, check tables —
as Python filters rather than Jinja2 loops and macros: a report of 10,000 trials renders
them hundreds of thousands of times, and a Jinja2 loop body or macro call costs several
times an f-string. Every value is escaped as it is inserted (agent text is hostile); the
HTML is what the templates wrote before (tests/report/test_view.py pins it).
"""

from collections.abc import Iterable, Mapping
from typing import Any

from markupsafe import Markup

from kubeproof.report.detail import StepView, Text

try:  # markupsafe's own escaping in C, without building a Markup around each value
    from markupsafe._speedups import _escape_inner  # type: ignore[import-not-found]
except ImportError:  # a pure-Python markupsafe: the same replacements here

    def _escape_inner(s: str, /) -> str:
        return (
            s.replace("&", "&amp;")
            .replace("<", "&lt;")
            .replace(">", "&gt;")
            .replace('"', "&#34;")
            .replace("'", "&#39;")
        )


def escape(value: Any) -> str:
    """The text of `value` (str() of it) with HTML's special characters escaped, exactly as
    markupsafe.escape does, for a value that is not HTML already: a page inserts dozens, and
    markupsafe's wrapper costs several times the escaping (a Markup passed here would be
    escaped again: never pass one)."""
    if type(value) is int:
        return str(value)
    return _escape_inner(value if type(value) is str else str(value))


def pre(text: Text, cls: str = "text") -> Markup:
    """A text in a <pre>, with the cut said."""
    html = f'<pre class="{escape(cls)}">{escape(text.text)}</pre>'
    if text.cut:
        html += (
            f'<p class="truncated">truncated: {int(text.cut):,} more character(s) not shown '
            "(the full text is in the trial directory)</p>"
        )
    return Markup(html)


def _risk(risk: Mapping[str, Any] | None) -> tuple[str, str]:
    """(the heading's risk badge, the list of its tags)."""
    if not risk:
        return "", ""
    badge = (
        f'<span class="risk risk-{escape(risk.get("level", ""))}">risk '
        f"{escape(risk.get('level'))} · {escape(risk.get('operation'))}</span>"
    )
    tags = risk.get("tags")
    if not tags:
        return badge, ""
    items = []
    for tag in tags:
        if isinstance(tag, Mapping):
            items.append(
                f"<li>{escape(tag.get('id'))} ({escape(tag.get('severity'))}): "
                f"{escape(tag.get('detail'))}</li>"
            )
        else:
            items.append(f"<li>{escape(tag)}</li>")
    return badge, f'<ul class="tags">{"".join(items)}</ul>'


def step(s: StepView) -> str:
    origin = f" ({escape(s.origin)})" if s.origin != "agent" else ""
    badge, tags = _risk(s.risk)
    parts = [
        f'<section class="step" id="step-{escape(s.index)}">\n'
        f"<h3>Step {escape(s.index)}{origin}: exit {escape(s.exit_code)}"
        f"{', timed out' if s.timed_out else ''}, {escape(s.seconds)} s\n{badge}</h3>\n",
        pre(s.command, "command"),
        "\n",
    ]
    if s.stdout.text:
        parts += ["<h4>stdout</h4>", pre(s.stdout)]
    if s.stderr.text:
        parts += ["<h4>stderr</h4>", pre(s.stderr, "text stderr")]
    if s.harness_cut:
        parts.append(
            '<p class="truncated">the harness truncated this output when it was recorded</p>'
        )
    parts.append(tags)
    broken = (
        f"<b>{'; '.join(escape(x) for x in s.safety)}</b>" if s.safety else "nothing healthy broken"
    )
    during = (
        f" · outages during the step: {escape(s.collateral)}" if s.collateral is not None else ""
    )
    parts.append(
        f'<p class="monitor">safety monitor after this step: {broken}{during}</p>\n</section>\n'
    )
    return "".join(parts)


def steps(found: Iterable[StepView]) -> Markup:
    """The trajectory: a section per step."""
    return Markup("".join(step(s) for s in found))


def results(items: list | None, title: str) -> Markup:
    """A table of check, contract or safety results under `title`; nothing when empty."""
    if not items:
        return Markup("")
    rows = "".join(
        f'<tr class="{"ok" if c.passed else "bad"}"><td>{"PASS" if c.passed else "FAIL"}</td>'
        f'<td>{escape(c.kind)}</td><td>{escape(c.name)}</td><td class="reason">'
        f"{escape(c.reason)}</td></tr>"
        for c in items
    )
    return Markup(
        f'<h3>{escape(title)}</h3>\n<table class="results"><thead><tr><th></th><th>kind</th>'
        f"<th>name</th><th>reason</th></tr></thead><tbody>\n{rows}</tbody></table>\n"
    )


NONE = "\N{EN DASH}"  # what a value not known shows


def _num(value: float | None) -> str:
    return NONE if value is None else f"{value:,.1f}"


def task_rows(agents: list[str], task: Any, trials: Mapping[int, Any]) -> Markup:
    """A task page's table rows: every agent's trials on the task, in the agents' order."""
    rows = []
    for agent in agents:
        for n in task.trials.get(agent, ()):
            t = trials[n]
            r = t.result
            rows.append(
                f'<tr><td>{escape(agent)}</td><td><a href="../trials/{t.id}.html">'
                f'{escape(r.repeat)}</a></td>\n<td class="{escape(t.css)}">{escape(t.word)}</td>'
                f"<td>{escape(r.score)}</td><td>{NONE if r.safe is None else r.safe}</td>\n"
                f"<td>{escape(r.decision.outcome) if r.decision else NONE}</td>"
                f"<td>{NONE if r.steps is None else r.steps}</td>\n"
                f'<td>{_num(r.timings.total)}</td><td class="reason">{escape(r.reason or "")}'
                "</td></tr>\n"
            )
    return Markup("".join(rows))


def cells(
    agents: Iterable[str], task: Any, trials: Mapping[int, Any], root: str, titled: bool
) -> Markup:
    """One cell per agent of a task's row (the matrix, a comparison): a link per trial,
    coloured by its outcome, `titled` by its reason; `root`: the way to the report's top."""
    out = []
    for agent in agents:
        links = []
        for n in task.trials.get(agent, ()):
            t = trials[n]
            title = f' title="{escape(t.result.reason or "")}"' if titled else ""
            links.append(
                f'<a class="{escape(t.css)}" href="{root}trials/{t.id}.html"{title}>'
                f"{escape(t.word)}</a>"
            )
        out.append(f'<td class="cell">{"".join(links)}</td>')
    return Markup("".join(out))


def pair_rows(tasks: Iterable[Any], a: str, b: str, trials: Mapping[int, Any]) -> Markup:
    """A comparison page's per-task rows: each task either agent has trials on, with both
    agents' cells."""
    rows = []
    for task in tasks:
        if a in task.trials or b in task.trials:
            rows.append(
                f'<tr><td><a href="../tasks/{task.page}.html">{escape(task.task)}</a></td>\n'
                f"{cells((a, b), task, trials, '../', False)}</tr>\n"
            )
    return Markup("".join(rows))


def matrix_rows(tasks: Iterable[Any], agents: list[str], trials: Mapping[int, Any]) -> Markup:
    """The task-by-agent matrix's rows, with the data its filters read."""
    rows = []
    for task in tasks:
        area, difficulty = escape(task.area), escape(task.difficulty)
        rows.append(
            f'<tr data-area="{area}" data-difficulty="{difficulty}">\n'
            f'<td><a href="tasks/{task.page}.html">{escape(task.task)}</a></td><td>{area}</td>'
            f"<td>{difficulty}</td><td>{escape(task.expected)}</td>\n"
            f"{cells(agents, task, trials, '', True)}\n</tr>\n"
        )
    return Markup("".join(rows))
