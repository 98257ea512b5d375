"""The wait charts as drawn in headless Chromium, against the runs' stored results (an outside
audit found the ch. 2 and ch. 4 ECDFs in hours under a "min" axis, and Simple's reservations
past the run's end drawn as waits of days with "0% never started").

Read back from the page: the x axis title, the rightmost point of each curve converted back to
data by the axis (``p2l``), the legend's text, the hover box; and the VM timeline's bars. The
expected values come from each run's stored result (its task table, window and summary)."""

import re
import runpy
from pathlib import Path

import numpy as np
import pytest

# (shared with the other chart and export tests)
_shared = runpy.run_path(str(Path(__file__).parents[1] / "_experiments.py"))
make, result_of, column = _shared["make"], _shared["result_of"], _shared["column"]
vos_expected = _shared["vos_expected"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LEGEND = re.compile(r"^(?P<policy>[\w+-]+) · (\d+)% never started(?:, (\d+)% dropped)?$")

# Runs in the page: what a chart drew, per curve, read back through its axes.
DRAWN = r"""(id) => {
  const gd = document.getElementById(id), fl = gd._fullLayout, xa = fl.xaxis;
  const nums = d => (d.match(/-?\d*\.?\d+(e-?\d+)?/gi) || []).map(Number);
  const xs = d => {
    const out = []; let x = 0;
    for (const [, cmd, args] of d.matchAll(/([MLHVZ])([^MLHVZ]*)/gi)) {
      const v = nums(args);
      if (cmd === "M" || cmd === "L") for (let i = 0; i + 1 < v.length; i += 2) out.push(v[i]);
      else if (cmd === "H") for (const a of v) out.push(a);
    }
    return out;
  };
  const curves = [];
  gd.querySelectorAll(".overplot .xy g.trace.scatter").forEach(g => {
    const trace = gd._fullData.find(t => g.classList.contains("trace" + t.uid));
    const line = g.querySelector(".js-line");
    if (!trace || !line) return;
    const right = Math.max(...xs(line.getAttribute("d")));
    curves.push({group: trace.legendgroup, index: trace.index, xmax: xa.p2l(right),
                 pixel: Math.abs(xa.p2l(1) - xa.p2l(0)), points: trace.x.length});
  });
  return {xtitle: ((xa.title || {}).text || ""), curves: curves,
          legend: Array.from(gd.querySelectorAll(".legendtext")).map(t => t.textContent)};
}"""

# Runs in the page: the hover box of one point of a curve, as shown.
HOVER = r"""([id, curve, point]) => {
  const gd = document.getElementById(id);
  Plotly.Fx.hover(gd, [{curveNumber: curve, pointNumber: point}]);
  const box = gd.querySelector(".hoverlayer");
  const text = box ? box.textContent : "";
  Plotly.Fx.unhover(gd);
  return text;
}"""








def close_percent(shown, expected):
    assert abs(shown - 100.0 * expected) <= 0.5 + 1e-9, (shown, 100.0 * expected)


def read_wait_chart(page, url, charts_drawn):
    page.goto(url)
    charts_drawn(page)
    page.locator("#chart-wait-time").scroll_into_view_if_needed()
    return page.evaluate(f"() => ({DRAWN})('chart-wait-time')")


def test_the_vos_wait_ecdf_draws_minutes_and_the_summary_s_never_started_share(
        live_server, page, charts_drawn):
    page.set_viewport_size({"width": 1400, "height": 1000})
    experiment = make("value-of-service", "vos-small", ("simple", "max-vptr"))
    url = f"{live_server.url}/e/{experiment.public_id}/"
    drawn = read_wait_chart(page, url, charts_drawn)
    assert drawn["xtitle"] == "wait (min)"
    legends = {LEGEND.match(t).group("policy"): LEGEND.match(t) for t in drawn["legend"]
               if LEGEND.match(t)}
    assert set(legends) == {"simple", "max-vptr"}, drawn["legend"]
    curves = {c["group"]: c for c in drawn["curves"]}
    for policy in ("simple", "max-vptr"):
        longest, never, dropped = vos_expected(experiment.runs.filter(policy=policy))
        curve = curves[policy]
        # The rightmost drawn point, back through the axis, is the longest wait in minutes.
        assert abs(curve["xmax"] - longest) <= 1.5 * curve["pixel"] + 1e-4 * longest, (
            policy, curve, longest)
        close_percent(int(legends[policy].group(2)), never)
        close_percent(int(legends[policy].group(3) or 0), dropped)
        hover = page.evaluate(f"() => ({HOVER})(['chart-wait-time', {curve['index']}, "
                              f"{curve['points'] - 1}])")
        m = re.search(r"wait ≤ ([\d.]+) min", hover)
        assert m, hover
        assert float(m.group(1)) == pytest.approx(longest, rel=5e-3)  # 3 significant digits
    # The audit's run: Simple books most of its tasks past the end, and they never started.
    simple_never = int(legends["simple"].group(2))
    assert simple_never >= 25


def test_the_ch4_wait_ecdf_draws_minutes(live_server, page, charts_drawn):
    page.set_viewport_size({"width": 1400, "height": 1000})
    experiment = make("serial-preemption", "ch4-small", ("fcfs", "max-util"))
    drawn = read_wait_chart(page, f"{live_server.url}/e/{experiment.public_id}/",
                            charts_drawn)
    assert drawn["xtitle"] == "wait (min)"
    curves = {c["group"]: c for c in drawn["curves"]}
    for policy in ("fcfs", "max-util"):
        longest, waiting, dropped, total = [], [], [], []
        for run in experiment.runs.filter(policy=policy):
            result = result_of(run)
            tasks = result["tasks"]
            # Minutes: the last arrival falls inside the run's duration_min.
            assert max(tasks["arrival"]) <= result["meta"]["scenario"]["params"]["scheduler"][
                "duration_min"]
            start = column(tasks, "start")
            ran = np.isfinite(start)
            longest.append(float(np.max(start[ran] - column(tasks, "arrival")[ran])))
            words = result["extra"]["status_codes"]
            gone = np.asarray([words[str(s)] == "dropped" for s in tasks["status"]])
            dropped.append(int(np.sum(gone & ~ran)))
            waiting.append(int(np.sum(~gone & ~ran)))
            total.append(len(start))
        curve = curves[policy]
        assert abs(curve["xmax"] - np.mean(longest)) <= 1.5 * curve["pixel"] + 1e-4 * np.mean(
            longest), (policy, curve, longest)
        (text,) = [t for t in drawn["legend"] if t.startswith(f"{policy} · ")]
        m = LEGEND.match(text)
        close_percent(int(m.group(2)), np.mean(waiting) / np.mean(total))
        close_percent(int(m.group(3) or 0), np.mean(dropped) / np.mean(total))


def test_the_vm_timeline_ends_with_the_last_task_that_started(live_server, page):
    page.set_viewport_size({"width": 1400, "height": 1000})
    experiment = make("value-of-service", "vos-small", ("simple",), trials=1)
    run = experiment.runs.get()
    result = result_of(run)
    tasks, (_, w1) = result["tasks"], result["extra"]["window_min"]
    start, end = column(tasks, "start"), column(tasks, "end")
    committed = np.asarray(tasks["status"]) == 1
    started, booked = committed & (start < w1), committed & (start >= w1)
    assert booked.sum() > 0
    page.goto(f"{live_server.url}/e/{experiment.public_id}/")
    page.select_option("#run-chart-run", str(run.public_id))
    page.select_option("#run-chart-id", "vm-timeline")
    page.click("#run-chart-form button")
    page.wait_for_function("() => document.getElementById('run-chart').dataset.drawn === '1'")
    drawn = page.evaluate("""() => {
      const gd = document.getElementById('run-chart'), xa = gd._fullLayout.xaxis;
      const t = gd._fullData[0];
      return {tasks: t.customdata.map(c => c[0]), right: xa.range[1],
              ends: t.base.map((b, i) => b + t.x[i]),
              note: Array.from(gd.querySelectorAll('.infolayer text'))
                      .map(e => e.textContent).join(' | ')};
    }""")
    assert set(drawn["tasks"]) == set(np.flatnonzero(started).tolist())
    last_h = float(np.max(end[started])) / 60.0
    assert max(drawn["ends"]) == pytest.approx(last_h, rel=1e-4)
    # The axis ends near the last real end, not at the reservations days later.
    assert drawn["right"] <= last_h * 1.1 < float(np.max(start[booked])) / 60.0
    assert f"{int(booked.sum()):,} reservations booked past the run's end not drawn" in (
        drawn["note"]), drawn["note"]
