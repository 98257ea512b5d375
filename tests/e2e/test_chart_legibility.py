"""Charts as they are drawn (issue 31, the pages): no title, note, legend or axis title drawn
over another or over the plot, on the ECDF, Value of Service and paired-difference charts, at a
desktop and a phone width; error bars that stand out from the dark plot."""

import re

import pytest

from hetsite.services import execution, submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The boxes of a chart's text as drawn, and of its plot areas.
BOXES = """(id) => {
  const parts = {title: 'text.gtitle', note: 'text.gtitle-subtitle', legend: 'g.legend',
                 xtitle: 'text[class^=x][class$=title]', ytitle: 'text[class^=y][class$=title]',
                 panel: 'g.annotation', plot: 'rect.nsewdrag',
                 tick: 'g.xtick text, g.ytick text'};
  const out = [];
  for (const [kind, selector] of Object.entries(parts)) {
    document.getElementById(id).querySelectorAll(selector).forEach((node) => {
      const b = node.getBoundingClientRect();
      if (b.width > 0 && b.height > 0) {
        out.push({kind, text: (node.textContent || '').slice(0, 50),
                  x0: b.left, y0: b.top, x1: b.right, y1: b.bottom});
      }
    });
  }
  return out;
}"""
TEXT = {"title", "note", "legend", "xtitle", "ytitle", "panel"}
ABOVE_THE_PLOT = {"title", "note", "legend"}


def overlaps(boxes) -> list[tuple[str, str]]:
    """Pairs of drawn text that cover each other (by more than a pixel), or header text over
    the plot."""
    found = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            kinds = {a["kind"], b["kind"]}
            if not kinds & TEXT or kinds == {"plot"} or kinds == {"panel"}:
                continue
            if "plot" in kinds and not kinds & ABOVE_THE_PLOT:
                continue  # axis titles and ticks sit beside the plot by construction
            if (min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > 1
                    and min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > 1):
                found.append((f"{a['kind']} {a['text']!r}", f"{b['kind']} {b['text']!r}"))
    return found


def finished(kind, preset, policies, trials=2):
    sub = submission.validate_submission(kind=kind, preset=preset, policies=policies,
                                         trials=trials)
    experiment = submission.create_experiment(sub, dispatch=False)
    for pk in experiment.runs.values_list("pk", flat=True):
        execution.execute_run(pk)
    return experiment


def drawn_charts(page, charts_drawn) -> list[str]:
    ids = page.evaluate("Array.from(document.querySelectorAll('.chart[id^=chart-]'))"
                        ".map(e => e.id)")
    for chart in ids:  # every chart near the viewport once, so each is drawn
        page.locator(f"#{chart}").scroll_into_view_if_needed()
    charts_drawn(page)
    return ids


@pytest.mark.parametrize("kind, preset, policies", [
    ("value-of-service", "vos-small",
     ["simple", "max-vptr", "simple-d", "simple-p", "max-value", "max-vpt"]),
    ("swf-replay", "swf-small", ["fcfs", "easy", "conservative"]),
])
def test_no_chart_text_covers_another_at_desktop_and_phone_widths(
        live_server, page, charts_drawn, kind, preset, policies):
    experiment = finished(kind, preset, policies)
    base = f"{live_server.url}/e/{experiment.public_id}"
    seen = set()
    for width in (1400, 390):
        page.set_viewport_size({"width": width, "height": 900})
        # The page's charts with every policy's paired difference to the first, and side by side.
        for url in (f"{base}/?baseline={policies[0]}", f"{base}/compare/"):
            page.goto(url)
            for chart in drawn_charts(page, charts_drawn):
                boxes = page.evaluate(BOXES, chart)
                assert {"title", "ytitle"} <= {b["kind"] for b in boxes}, chart
                assert overlaps(boxes) == [], (width, url, chart)
                seen.add(chart)
    assert any(re.match(r"chart-paired-", c) for c in seen)
    assert {"chart-wait-time"} <= seen  # the ECDF
    if kind == "value-of-service":
        assert {"chart-value-split", "chart-pct-max-vos"} <= seen


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two CSS rgb() colours."""
    def luminance(css):
        channels = [int(v) / 255 for v in re.findall(r"\d+", css)[:3]]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_error_bars_stand_out_from_the_plot_in_either_colour_scheme(live_server, browser,
                                                                   charts_drawn, scheme):
    experiment = finished("value-of-service", "vos-small", ["simple", "max-vptr"], trials=3)
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1400, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{live_server.url}/e/{experiment.public_id}/?baseline=simple")
    drawn_charts(page, charts_drawn)
    colours = page.evaluate("""() => Array.from(document.querySelectorAll('.chart[id^=chart-]'))
      .flatMap((el) => {
        const plot = el.querySelector('rect.nsewdrag');
        const bg = el._fullLayout.plot_bgcolor;
        const probe = document.createElement('span');
        probe.style.color = bg; document.body.appendChild(probe);
        const background = getComputedStyle(probe).color; probe.remove();
        return Array.from(el.querySelectorAll('g.errorbar path')).map((p) => ({
          chart: el.id, bar: getComputedStyle(p).stroke, background, plot: !!plot}));
      })""")
    charts = {c["chart"] for c in colours}
    assert {"chart-pct-max-vos", "chart-value-split"} <= charts
    assert any(c.startswith("chart-paired-") for c in charts)
    for c in colours:
        assert contrast(c["bar"], c["background"]) >= 3, c
    context.close()
