"""Charts as inline SVG, drawn here so the report needs no script library and no network.

Every label (agent specs, areas) is escaped with markupsafe before it enters the SVG; the
result is a `Markup` the templates insert as it is.
"""

from collections import Counter

from markupsafe import Markup, escape

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b")
ROW = 14  # pixels per bar
LEFT = 170  # pixels for the category labels


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _text(x: float, y: float, text: object, anchor: str = "start", size: int = 11) -> str:
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}">'
        f"{escape(str(text))}</text>"
    )


def _svg(width: int, height: int, title: str, body: list[str]) -> Markup:
    label = escape(title)
    return Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{label}">'
        f"<title>{label}</title>{''.join(body)}</svg>"
    )


def legend(agents: list[str]) -> Markup:
    """The agents' colours, as HTML beside the charts (classes c0..c6 in report.css: the
    page's content security policy allows no inline style)."""
    items = "".join(
        f'<span class="key"><span class="swatch c{i % len(PALETTE)}"></span>{escape(a)}</span>'
        for i, a in enumerate(agents)
    )
    return Markup(f'<div class="legend">{items}</div>')


def rate_bars(
    title: str, groups: list[tuple[str, list[tuple[int, float | None, float | None, float | None]]]]
) -> Markup:
    """Pass rate per category, one bar per agent (by its index) with its Wilson interval as
    a whisker; a category an agent has no judged trial in shows no bar."""
    width, plot = 640, 640 - LEFT - 20
    body = [_text(LEFT, 14, title, size=12)]
    y = 26.0
    for label, bars in groups:
        body.append(_text(LEFT - 6, y + ROW * max(1, len(bars)) / 2 + 4, label, "end"))
        for agent, rate, low, high in bars:
            if rate is not None:
                body.append(
                    f'<rect x="{LEFT}" y="{y + 2:.1f}" width="{rate * plot:.1f}" '
                    f'height="{ROW - 4}" fill="{colour(agent)}"><title>{rate:.0%}</title></rect>'
                )
            if low is not None and high is not None:
                mid = y + ROW / 2
                body.append(
                    f'<line x1="{LEFT + low * plot:.1f}" x2="{LEFT + high * plot:.1f}" '
                    f'y1="{mid:.1f}" y2="{mid:.1f}" stroke="#333" stroke-width="1"/>'
                )
            y += ROW
        y += 8
    for tick in (0, 0.5, 1):
        x = LEFT + tick * plot
        body.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="22" y2="{y:.1f}" stroke="#bbb"/>')
        body.append(_text(x, y + 12, f"{tick:.0%}", "middle"))
    return _svg(width, int(y + 20), title, body)


def scatter(title: str, xlabel: str, points: list[tuple[int, float, float]]) -> Markup:
    """Pass rate (y, 0-100 %) against a cost (x, from 0 to the largest), a dot per agent."""
    width, height, left, bottom = 420, 260, 50, 40
    plot_w, plot_h = width - left - 20, height - bottom - 30
    top = max((x for _, x, _ in points), default=0) or 1.0
    body = [_text(left, 16, title, size=12)]
    body.append(
        f'<rect x="{left}" y="30" width="{plot_w}" height="{plot_h}" fill="none" stroke="#bbb"/>'
    )
    for agent, x, y in points:
        # 8 px inside the frame: a dot at either end stays whole
        cx, cy = left + 8 + x / top * (plot_w - 16), 30 + 8 + (1 - y) * (plot_h - 16)
        body.append(
            f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="6" fill="{colour(agent)}">'
            f"<title>{y:.0%} at {x:.4g}</title></circle>"
        )
    body.append(_text(left - 4, 34, "100%", "end"))
    body.append(_text(left - 4, 30 + plot_h, "0%", "end"))
    body.append(_text(left, 30 + plot_h + 14, "0", "middle"))
    body.append(_text(left + plot_w, 30 + plot_h + 14, f"{top:.4g}", "middle"))
    body.append(_text(left + plot_w / 2, height - 6, xlabel, "middle"))
    return _svg(width, height, title, body)


def histogram(title: str, agent: int, values: list[int]) -> Markup:
    """How many trials took each number of steps (judged trials)."""
    counts = Counter(values)
    width, height, left = 300, 140, 30
    top = max(counts.values(), default=1)
    span = max(counts, default=0) + 1
    bar = (width - left - 10) / span
    body = [_text(left, 14, title, size=12)]
    for steps, n in sorted(counts.items()):
        h = n / top * (height - 50)
        body.append(
            f'<rect x="{left + steps * bar:.1f}" y="{height - 25 - h:.1f}" '
            f'width="{max(1.0, bar - 1):.1f}" height="{h:.1f}" fill="{colour(agent)}">'
            f"<title>{steps} steps: {n} trial(s)</title></rect>"
        )
    body.append(_text(left, height - 12, "0", "middle"))
    body.append(_text(left + (span - 0.5) * bar, height - 12, span - 1, "middle"))
    body.append(_text(left - 4, 30, top, "end"))
    return _svg(width, height, title, body)
