"""The report as one self-contained HTML file: inline CSS, plots embedded as PNG data.

Nothing in the page refers to another file or the network, so it opens the
same when mailed, attached to a CI job, or read offline.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from html import escape

from matplotlib.figure import Figure

from harness.reporting.report import Report, Table, numeric

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto;
       max-width: 1400px; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.3rem; }
h2 { font-size: 1.25rem; margin-top: 2rem; border-bottom: 1px solid #ddd; padding-bottom: .2rem; }
table { border-collapse: collapse; font-size: 0.9rem; margin: 0.6rem 0; }
th, td { border: 1px solid #ddd; padding: 0.25rem 0.55rem; text-align: left; vertical-align: top; }
th { background: #f3f4f6; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fafafa; }
td.num, #results td { white-space: nowrap; }
#results { font-size: 0.85rem; }
.wide { overflow-x: auto; }
td.status-ok { color: #116611; }
td.status-fail, td.status-error { color: #b00020; font-weight: bold; }
td.status-skipped { color: #777; }
.note { background: #fff8e1; border-left: 4px solid #f0b400; padding: .4rem .8rem;
        margin: .4rem 0; }
.caption { color: #555; font-size: 0.85rem; }
ul.story { font-size: 1.05rem; }
ul.problems li { color: #b00020; }
th { cursor: pointer; }
figure { margin: 1.2rem 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.85rem; }
"""


def figure_png(fig: Figure, dpi: int = 110) -> bytes:
    """A figure rendered as PNG bytes."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, facecolor="white", bbox_inches="tight")
    return buffer.getvalue()


def _table(table: Table) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in table.columns)
    body = []
    for row in table.rows:
        cells = []
        for column, cell in zip(table.columns, row, strict=True):
            classes = []
            if numeric(column) or column in table.numbers:
                classes.append("num")
            if column == "Status":
                classes.append(f"status-{cell.split()[0]}")
            attr = f' class="{" ".join(classes)}"' if classes else ""
            cells.append(f"<td{attr}>{escape(cell)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="wide"><table id="{escape(table.title.lower())}" class="sortable">'
        f"<thead><tr>{head}</tr>"
        f"</thead><tbody>{''.join(body)}</tbody></table></div>"
    )


#: Sorting by a column's header and filtering the results, in the page itself:
#: numbers sort by value (times by their unit), anything else as text.
SCRIPT = """
const UNITS = {ns: 1e-9, "µs": 1e-6, ms: 1e-3, s: 1};
function value(text) {
  const m = text.trim().match(/^([-+]?[0-9.]+(?:e[-+]?[0-9]+)?)\\s*(ns|µs|ms|s)?/i);
  return m ? parseFloat(m[1]) * (m[2] ? UNITS[m[2]] : 1) : null;
}
document.querySelectorAll("table.sortable").forEach((table) => {
  table.querySelectorAll("th").forEach((th, column) => {
    th.title = "sort by this column";
    th.addEventListener("click", () => {
      const body = table.tBodies[0];
      const up = th.dataset.order !== "up";
      th.dataset.order = up ? "up" : "down";
      const rows = Array.from(body.rows);
      rows.sort((a, b) => {
        const x = a.cells[column].textContent, y = b.cells[column].textContent;
        const vx = value(x), vy = value(y);
        const order = vx !== null && vy !== null ? vx - vy : x.localeCompare(y);
        return up ? order : -order;
      });
      rows.forEach((row) => body.appendChild(row));
    });
  });
});
const filter = document.getElementById("filter");
if (filter) {
  filter.addEventListener("input", () => {
    const words = filter.value.toLowerCase().split(/\\s+/).filter(Boolean);
    document.querySelectorAll("#results tbody tr").forEach((row) => {
      const text = row.textContent.toLowerCase();
      row.hidden = !words.every((w) => text.includes(w));
    });
  });
}
"""


def to_html(
    report: Report,
    images: Sequence[tuple[str, bytes]] = (),
    skipped: Sequence[str] = (),
) -> str:
    """The whole page: the run's story and what failed (the first screen), the
    plots, then the results table (sortable, filterable) and the other tables."""
    parts = [f"<h1>{escape(report.title)}</h1>"]
    parts += [f'<p class="note">{escape(n)}</p>' for n in report.notes]
    if report.story:
        items = "".join(f"<li>{escape(line)}</li>" for line in report.story)
        parts.append(f'<h2>Summary</h2><ul class="story">{items}</ul>')
    if report.problems:
        items = "".join(f"<li>{escape(p)}</li>" for p in report.problems)
        parts.append(f'<h3>Rows that are not ok</h3><ul class="problems">{items}</ul>')
    if images or skipped:
        parts.append("<h2>Plots</h2>")
    for caption, png in images:
        data = base64.b64encode(png).decode("ascii")
        parts.append(
            f'<figure><img alt="{escape(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{escape(caption)}</figcaption></figure>"
        )
    if skipped:
        parts.append("<ul>" + "".join(f"<li>{escape(s)}</li>" for s in skipped) + "</ul>")
    for table in report.tables:
        parts.append(f"<h2>{escape(table.title)}</h2>")
        if table.title == "Results":
            parts.append(
                '<p><input id="filter" type="search" size="40" '
                'placeholder="filter rows: words they all contain"> '
                '<span class="caption">click a header to sort</span></p>'
            )
        parts.append(_table(table))
        if table.note:
            parts.append(f'<p class="caption">{escape(table.note)}</p>')
    if report.files:
        items = "".join(f"<li><code>{escape(f)}</code></li>" for f in report.files)
        parts.append(f"<h2>Files</h2><ul>{items}</ul>")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(report.title)}</title><style>{CSS}</style></head>"
        f"<body>{''.join(parts)}<script>{SCRIPT}</script></body></html>\n"
    )
