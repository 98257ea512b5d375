"""Compare across experiments (issue 31) in headless Chromium, as a researcher would: run an
experiment, run it again with one parameter changed, open "Compare with other experiments"
from the second, tick the first and compare. What the page shows is read back: the means and
interval ends of its tables, the bars and error bars its charts draw (through the chart's own
axis), the policies' names and colours, and the parameter that changed, in words.

Runs execute eagerly (test settings) on the small UAV preset, three trials each.
"""

import re

import pandas as pd
import pytest

from hetsite import kinds
from hetsite.models import Experiment
from simcore.bounds import interval

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

POLICIES = ("random", "max-vpe")

# One chart element in: each trace's name, fill colour, and per bar (left to right) the value
# at its top and at its error bar's ends, read from the drawn SVG through the y axis.
READ_BARS = r"""(gd) => {
  const ya = gd._fullLayout._plots.xy.yaxis;
  const base = ya.l2p(0), out = {tol: Math.abs(ya.p2l(0) - ya.p2l(1)), traces: []};
  const rgb = c => "#" + (c.match(/\d+/g) || []).slice(0, 3)
    .map(n => (+n).toString(16).padStart(2, "0")).join("");
  // Plotly draws a bar trace's group without its uid: the groups come in the traces' order.
  const barTraces = gd._fullData.filter(t => t.type === "bar");
  gd.querySelectorAll(".barlayer g.trace").forEach((g, i) => {
    const trace = barTraces[i];
    const bars = [...g.querySelectorAll("g.point path")].map(p => {
      const b = p.getBBox(), top = b.y, bottom = b.y + b.height;
      const far = Math.abs(top - base) > Math.abs(bottom - base) ? top : bottom;
      return {x: b.x + b.width / 2, mean: ya.p2l(far), fill: rgb(getComputedStyle(p).fill)};
    }).sort((a, b) => a.x - b.x);
    const errors = [...g.querySelectorAll("g.errorbar path.yerror")].map(p => {
      const b = p.getBBox();
      return {x: b.x + b.width / 2, high: ya.p2l(b.y), low: ya.p2l(b.y + b.height)};
    }).sort((a, b) => a.x - b.x);
    out.traces.push({name: trace.name, bars: bars, errors: errors});
  });
  return out;
}"""


def number(text: str) -> float:
    return float(text.strip().replace(",", "").replace("−", "-"))


def run_form(page, url, uavs: int, name: str) -> str:
    page.goto(f"{url}/new/uav/?preset=small-baseline")
    for box in page.locator("input[name=policies]").all():
        box.uncheck()
    for policy in POLICIES:
        page.check(f"input[name=policies][value='{policy}']")
    page.fill("input[name=trials]", "3")
    page.fill("#id_name", name)
    uavs_field = page.locator("input[name='p.uavs_mean']")
    if not uavs_field.is_visible():
        page.click("#advanced summary")  # a folded parameter
    uavs_field.fill(str(uavs))
    page.click("#submit")
    page.wait_for_url(re.compile(r"/e/[0-9a-f-]{36}/$"))
    page.wait_for_selector("#exp-status:text('done')", timeout=120_000)
    return page.url.rstrip("/").rsplit("/", 1)[1]


def expected(experiment: Experiment, policy: str, metric: kinds.Metric):
    return interval(experiment.summary_by_policy(0)[policy][metric.key], metric.bounds)


def test_a_researcher_compares_two_experiments_and_reads_means_intervals_and_the_change(
        live_server, page, charts_drawn):
    first_id = run_form(page, live_server.url, 3, "three UAVs")
    second_id = run_form(page, live_server.url, 6, "six UAVs")
    page.click("#compare-experiments")
    page.check(f"#experiment-picker input[data-experiment='{first_id}']")
    page.click("#compare-picked")
    page.wait_for_selector("#param-diff")
    charts_drawn(page)
    sides = {"A": Experiment.objects.get(public_id=second_id),
             "B": Experiment.objects.get(public_id=first_id)}
    assert page.locator("#compare-sides li[data-side=A]").inner_text().startswith(
        "A: six UAVs")

    # The parameter that changed, in words, by its declared label; nothing else changed.
    assert page.locator("#param-diff li").all_inner_texts() == [
        "Mean number of UAVs λ_U: 6 in A, 3 in B"]

    lab = kinds.get_kind("uav")
    for metric in lab.metrics:
        assert metric.scale == 1.0  # shown in stored units: the summary's numbers as they are
        tolerance = 0.5 * 10 ** -metric.digits + 1e-9
        for policy in POLICIES:
            row = page.locator(f"#compare-{metric.key} tr[data-policy='{policy}']")
            cells = row.locator("td")
            assert cells.count() == 2
            for i, letter in enumerate("AB"):
                want = expected(sides[letter], policy, metric)
                mean_text = cells.nth(i).locator(".mean").inner_text()
                assert abs(number(mean_text.split("±")[0]) - want.mean) <= tolerance, (
                    metric.key, policy, letter, mean_text, want)
                low, high = cells.nth(i).locator(".ci").inner_text().strip("[]").split(", ")
                assert abs(number(low) - want.low) <= tolerance, (metric.key, low, want)
                assert abs(number(high) - want.high) <= tolerance, (metric.key, high, want)
                # Inside the metric's range, wherever the t interval reached.
                assert metric.lower is None or number(low) >= metric.lower
                assert metric.upper is None or number(high) <= metric.upper

    # The charts draw the same numbers: bar tops and error-bar ends through the y axis.
    for metric in lab.metrics:
        drawn = page.locator(f"#chart-compare-{metric.key}").evaluate(READ_BARS)
        assert [t["name"] for t in drawn["traces"]] == list(POLICIES)
        tol = drawn["tol"] * 1.5  # paths are rounded to 0.01 px; bars' edges to half a pixel
        for trace in drawn["traces"]:
            policy = trace["name"]
            assert {b["fill"] for b in trace["bars"]} == {lab.policy_color(policy).lower()}
            for letter, bar in zip("AB", trace["bars"], strict=True):
                want = expected(sides[letter], policy, metric)
                assert bar["mean"] == pytest.approx(want.mean, abs=tol), (metric.key, policy)
            for letter, error in zip("AB", trace["errors"], strict=True):
                want = expected(sides[letter], policy, metric)
                assert error["low"] == pytest.approx(want.low, abs=tol), (metric.key, policy)
                assert error["high"] == pytest.approx(want.high, abs=tol), (metric.key, policy)


def test_the_runs_parquet_button_downloads_what_the_runs_stored(live_server, page, tmp_path):
    experiment_id = run_form(page, live_server.url, 3, "to a notebook")
    with page.expect_download() as download:
        page.click("#runs-parquet")
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.name == f"runs-{experiment_id}.parquet"
    frame = pd.read_parquet(path)
    runs = {str(r.public_id): r for r in Experiment.objects.get(public_id=experiment_id).runs.all()}
    assert sorted(frame["run"]) == sorted(runs) and len(runs) == 2 * 3
    units = {m.key: m.unit for m in kinds.get_kind("uav").metrics}
    for _, row in frame.iterrows():
        run = runs[row["run"]]
        assert (row["policy"], row["seed"], row["status"]) == (run.policy, run.seed, "done")
        for key, value in run.summary.items():
            header = f"{key} ({units[key]})" if units.get(key) else key
            assert row[header] == pytest.approx(value, rel=1e-12, abs=0), header
