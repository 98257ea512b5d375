"""The lab as a researcher uses it (issue 13), in headless Chromium against a live server.

Runs execute eagerly inside the request (the test settings) unless a test starts a real
worker; the small UAV and trace-replay presets take well under a second per run.
"""

import csv
import io
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import expect

from hetsite.models import Experiment
from hetsite.services import submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
UAV = "small-baseline"


def new_context(browser, **kwargs):
    context = browser.new_context(**kwargs)
    context.set_default_timeout(30_000)
    return context


@pytest.fixture
def run_form(submit_experiment):
    """The new-experiment form with this module's defaults (the small UAV preset, Random and
    RBS, one trial); returns the result URL."""
    def run(page, kind="uav", preset=UAV, policies=("random", "rbs"), trials=1, name="",
            extra=None):
        return submit_experiment(page, kind, preset, policies, trials, name=name, extra=extra)
    return run


def make(kind="uav", preset=UAV, policies=("random", "rbs"), dispatch=True, **fields):
    sub = submission.validate_submission(kind=kind, preset=preset, policies=list(policies),
                                         trials=fields.pop("trials", 1), **fields)
    return submission.create_experiment(sub, dispatch=dispatch)


# --- know what was run ---------------------------------------------------------------------

def test_result_page_says_what_was_run_and_the_owner_can_label_it(live_server, browser, run_form):
    context = new_context(browser)
    page = context.new_page()
    url = run_form(page, trials=2, name="mapping every 10 min",
                   extra={"#id_p\\.mapping_interval_min": "10"})
    # The changed parameter first: its label in words, the preset's value, ours, the unit.
    row = page.locator("#changed-params tbody tr")
    assert row.count() == 1
    cells = [c.strip() for c in row.first.locator("th, td").all_inner_texts()]
    assert "Mapping interval" in cells[0] and "." not in cells[0].split("·")[-1]
    assert cells[2] == "10" and cells[3] == "min" and cells[1] != "10"
    # The rest is folded away; seeds and code version are stated.
    assert page.locator("#all-params").get_attribute("open") is None
    assert page.locator("#seeds").inner_text().startswith("0, 1")
    assert page.locator("#code-version").inner_text().strip() not in ("", "unknown")
    # The owner (this browser's cookie) renames, annotates and tags it.
    page.click("#edit summary")
    page.fill("#edit-name", "interval study")
    page.fill("#edit-notes", "checking the mapping interval")
    page.fill("#edit-tags", "Interval, UAV")
    page.click("#save-edit")
    page.wait_for_selector("#notes")
    assert page.locator("#experiment-name").inner_text() == "interval study"
    assert page.locator("#tags").inner_text().split() == ["interval", "uav"]
    # A clone starts with a fresh name, not "(copy)" of the old one.
    page.click("#clone")
    page.wait_for_selector("#experiment-form")
    assert page.locator("#id_name").input_value() == ""
    assert float(page.locator("#id_p\\.mapping_interval_min").input_value()) == 10
    # Someone else with the link sees the same facts but cannot edit.
    other = new_context(browser).new_page()
    other.goto(url)
    assert other.locator("#changed-params").count() == 1
    assert other.locator("#edit").count() == 0 and other.locator("#delete").count() == 0
    context.close()


def test_a_replay_names_its_trace_and_its_size(live_server, page, run_form):
    url = run_form(page, kind="swf-replay", preset="swf-small",
                   policies=("fcfs", "easy"))
    facts = page.locator("#run-facts").inner_text()
    assert "Trace" in facts and "Jobs in the trace" in facts
    assert re.search(r"\d+(\.\d)? (KB|MB|bytes)", facts), facts
    assert url.endswith("/")


# --- find experiments -----------------------------------------------------------------------

def test_home_leads_with_new_experiment_and_browses_every_experiment(live_server, page):
    for i in range(30):
        make(name=f"study {i:02d}", visibility="public", dispatch=False,
             tags="batch" if i % 2 else "other")
    make(kind="swf-replay", preset="swf-small", policies=("easy", "fcfs"), name="replay one",
         visibility="public")
    page.goto(live_server.url + "/")
    first_button = page.locator("main a.button, main button").first
    assert first_button.inner_text() == "New experiment"
    for path in ("/", "/new/uav/", "/compare/"):
        page.goto(live_server.url + path)
        assert page.locator("header nav #nav-new").inner_text() == "New experiment"
    page.goto(live_server.url + "/")
    names = page.locator("#experiments tbody tr td:first-child a").all_inner_texts()
    assert names[0] == "replay one" and len(names) == 25  # newest first, paged
    page.click("#next-page")
    page.wait_for_url("**page=2")  # a click only waits for the navigation to commit
    older = page.locator("#experiments tbody tr td:first-child a").all_inner_texts()
    assert len(older) == 6 and "study 00" in older and not set(older) & set(names)
    # Search covers tags; filters narrow by kind, status and policy.
    page.goto(live_server.url + "/")
    page.fill("#filter-q", "batch")
    page.click("#filters button[type=submit]")
    expect(page.locator("#experiments tbody tr")).to_have_count(15)
    page.goto(live_server.url + "/?kind=swf-replay&status=done&policy=fcfs")
    assert page.locator("#experiments tbody tr td:first-child a").all_inner_texts() == [
        "replay one"]
    page.goto(live_server.url + "/?policy=conservative")
    assert page.locator("#experiments").count() == 0
    assert "No experiment matches" in page.inner_text("#browser")


def test_run_picker_compares_runs_across_experiments_and_explains_mixed_kinds(live_server,
                                                                               page,
                                                                               charts_drawn):
    make(name="uav a", visibility="public")
    make(name="uav b", visibility="public", policies=("max-vpe",))
    make(kind="swf-replay", preset="swf-small", policies=("easy",), name="replay",
         visibility="public")
    page.goto(live_server.url + "/")
    page.click("header nav >> text=Compare runs")
    page.select_option("#picker-kind", "uav")
    page.click("form[role=search] button")
    boxes = page.locator("#run-picker input[name=run]")
    expect(boxes).to_have_count(3)
    boxes.nth(0).check()
    boxes.nth(2).check()
    page.click("#compare-picked")
    page.wait_for_selector(".chart.js-plotly-plot")
    charts_drawn(page)  # the first chart drawn does not mean the others are
    assert page.locator(".chart.js-plotly-plot").count() >= 2
    # Runs of two kinds cannot share axes: say so instead of a 404.
    page.goto(live_server.url + "/compare/")
    page.check("#run-picker input[data-kind=uav] >> nth=0")
    page.check("#run-picker input[data-kind=swf-replay] >> nth=0")
    page.click("#compare-picked")
    message = page.locator("#mixed-kinds")
    assert "different scenario kinds" in message.inner_text()
    assert "swf-replay" in message.inner_text() and "uav" in message.inner_text()


# --- own and hide ----------------------------------------------------------------------------

def test_anonymous_owner_controls_their_experiment_and_a_stranger_cannot(live_server,
                                                                         browser, run_form):
    owner_ctx = new_context(browser)
    owner = owner_ctx.new_page()
    url = run_form(owner, name="my private study")
    owner.click("#edit summary")
    owner.select_option("#edit-visibility", "private")
    owner.click("#save-edit")
    owner.wait_for_selector("#visibility:text('private')")
    owner.goto(live_server.url + "/?mine=1")
    assert "my private study" in owner.inner_text("#experiments")
    exp_id = url.rstrip("/").split("/")[-1]

    stranger_ctx = new_context(browser)
    stranger = stranger_ctx.new_page()
    stranger.goto(live_server.url + "/")
    assert "my private study" not in stranger.inner_text("main")
    assert stranger.goto(url).status == 404
    api = stranger_ctx.request
    assert exp_id not in api.get(f"{live_server.url}/api/experiments/").text()
    assert api.get(f"{live_server.url}/api/experiments/{exp_id}/").status == 404
    # Made unlisted again, the link works for the stranger, read-only.
    owner.goto(url)
    owner.click("#edit summary")
    owner.select_option("#edit-visibility", "unlisted")
    owner.click("#save-edit")
    owner.wait_for_selector("#visibility:text('unlisted')")
    assert stranger.goto(url).status == 200
    assert stranger.locator("#delete").count() == 0 and stranger.locator("#edit").count() == 0
    stranger.goto(live_server.url + "/new/uav/")  # a page with a form: the CSRF cookie
    csrf = stranger_ctx.cookies()
    token = next((c["value"] for c in csrf if c["name"] == "csrftoken"), "")
    for action in ("cancel", "delete"):
        response = api.post(f"{live_server.url}/e/{exp_id}/{action}/",
                            headers={"X-CSRFToken": token, "Referer": url})
        assert response.status == 403 and "CSRF" not in response.text()
    assert api.delete(f"{live_server.url}/api/experiments/{exp_id}/",
                      headers={"X-CSRFToken": token}).status == 403
    assert Experiment.objects.filter(public_id=exp_id).exists()

    # The owner logs in later: the experiment becomes theirs, then they delete it.
    User.objects.create_user("ada", password="pw-123456789")
    owner.goto(live_server.url + "/accounts/login/")
    owner.fill("#id_username", "ada")
    owner.fill("#id_password", "pw-123456789")
    owner.click("main button.primary")
    owner.wait_for_url(live_server.url + "/")
    assert Experiment.objects.get(public_id=exp_id).owner.username == "ada"
    owner.goto(url)
    owner.on("dialog", lambda d: d.accept())
    owner.click("#delete")
    owner.wait_for_url(live_server.url + "/")
    assert not Experiment.objects.filter(public_id=exp_id).exists()
    owner_ctx.close()
    stranger_ctx.close()


# --- forms that forgive ----------------------------------------------------------------------

def test_a_bad_submit_lists_every_error_and_leads_to_each_field(live_server, page):
    page.goto(f"{live_server.url}/new/uav/?preset={UAV}")
    for box in page.locator("input[name=policies]").all():
        box.uncheck()
    page.fill("#id_trials", "0")
    page.fill("#id_p\\.mapping_interval_min", "-5")
    page.click("#submit")
    summary = page.locator("#error-summary")
    summary.wait_for()
    # Every error in one round, focus on the summary, a link to each field.
    assert page.evaluate("document.activeElement.id") == "error-summary"
    links = summary.locator("a")
    targets = [a.get_attribute("href") for a in links.all()]
    assert "#id_trials" in targets and "#policies" in targets
    assert "#id_p.mapping_interval_min" in targets
    assert links.count() == 3
    # Each input names its error through aria-describedby.
    trials = page.locator("#id_trials")
    assert trials.get_attribute("aria-invalid") == "true"
    described = trials.get_attribute("aria-describedby").split()
    error_text = page.locator(f"#{described[-1]}").inner_text()
    assert "greater than or equal to 1" in error_text
    summary.locator("a[href='#id_trials']").click()
    assert page.evaluate("document.activeElement.id") == "id_trials"
    assert Experiment.objects.count() == 0


def test_switching_presets_keeps_choices_and_hides_fields_that_do_not_apply(live_server, page):
    page.goto(f"{live_server.url}/new/parallel-energy/?preset=small")
    page.fill("#id_name", "kept name")
    page.fill("#id_trials", "4")
    for box in page.locator("input[name=policies]").all():
        box.uncheck()
    page.check("input[name=policies][value='easy']")
    page.check("input[name=policies][value='max-upe-ph']")
    page.select_option("#preset-select", "ch3-5k")
    page.wait_for_url(re.compile(r"preset=ch3-5k"))
    assert page.locator("#id_name").input_value() == "kept name"
    assert page.locator("#id_trials").input_value() == "4"
    checked = page.locator("input[name=policies]:checked").evaluate_all(
        "boxes => boxes.map(b => b.value)")
    assert sorted(checked) == ["easy", "max-upe-ph"]
    # Trace and testbed fields apply only to their workload source.
    trace_field = page.locator("[data-field-wrap='p.trace.machine_cores']")
    assert trace_field.is_hidden()
    page.select_option("#id_p\\.workload\\.source", "trace")
    assert trace_field.is_visible()
    assert page.locator("[data-field-wrap='p.testbed.decay_start']").is_hidden()
    # Labels are words, not dotted names.
    label = page.locator("label[for='id_p.time.sim_h']").inner_text()
    assert label.startswith("Simulated time") and "." not in label and "_" not in label
    # Policies can be searched and selected by family.
    page.fill("#policy-search", "upe")
    visible = page.locator("label.policy:visible").count()
    assert 0 < visible < page.locator("label.policy").count()
    page.fill("#policy-search", "")
    family = page.locator(".family").first
    family.locator("[data-select=all]").click()
    boxes = family.locator("input[name=policies]")
    assert boxes.count() == family.locator("input[name=policies]:checked").count()


def test_a_deterministic_kind_defaults_to_one_trial_and_says_why(live_server, page):
    page.goto(f"{live_server.url}/new/swf-replay/")
    assert page.locator("#id_trials").input_value() == "1"
    assert "deterministic" in page.locator("#id_trials_help").inner_text()
    page.goto(f"{live_server.url}/new/uav/")
    assert page.locator("#id_trials").input_value() == "3"


# --- honest results ---------------------------------------------------------------------------

def _trace_colors(page, chart):
    return page.evaluate(
        """id => Object.fromEntries((document.getElementById(id).data || [])
             .filter(t => t.legendgroup && t.line && t.mode === 'lines' && t.fill === undefined)
             .map(t => [t.legendgroup, t.line.color]))""", chart)


def test_one_colour_per_policy_and_a_table_that_reads_at_a_glance(live_server, page, run_form):
    url = run_form(page, policies=("random", "rbs", "max-vpe"), trials=3)
    page.wait_for_selector("#chart-value-over-time.js-plotly-plot")
    colors = _trace_colors(page, "chart-value-over-time")
    swatches = dict(page.locator("#summary-table tbody tr").evaluate_all(
        "rows => rows.map(r => [r.dataset.policy,"
        " getComputedStyle(r.querySelector('.swatch')).backgroundColor])"))
    assert set(colors) == {"random", "rbs", "max-vpe"} and len(set(colors.values())) == 3

    def rgb(hex_color):
        h = hex_color.lstrip("#")
        return "rgb({}, {}, {})".format(*(int(h[i:i + 2], 16) for i in (0, 2, 4)))

    assert {p: rgb(c) for p, c in colors.items()} == swatches
    # A subset keeps the colours.
    page.goto(url + "compare/?p=rbs&p=max-vpe")
    page.wait_for_selector("#chart-value-over-time.js-plotly-plot")
    sub = page.evaluate("""() => Object.fromEntries(document.getElementById(
        'chart-value-over-time').data.filter(t => t.mode === 'lines' && t.fill === undefined)
        .map(t => [t.legendgroup, t.line.color]))""")
    assert sub == {p: colors[p] for p in ("rbs", "max-vpe")}
    # The table: chart names, no wrapping, the best per column marked where the paired
    # trials tell it apart (else the top ones marked indistinguishable), bounded intervals.
    page.goto(url)
    table = page.locator("#summary-table")
    assert table.locator("tbody th").all_inner_texts() == ["random", "rbs", "max-vpe"]
    assert table.evaluate("t => getComputedStyle(t.querySelector('td')).whiteSpace") == "nowrap"
    assert table.locator("td.best, td.tied").count() >= 3
    for k in range(table.locator("thead th.num").count()):
        column = table.locator(f"tbody tr td:nth-child({k + 3})")
        ranks = column.evaluate_all("cells => cells.map(c => c.dataset.rank)")
        assert ranks.count("best") <= 1 and not ("best" in ranks and "indistinguishable" in ranks)
    # Error bars never leave the metric's range (value over Random is at least -100 %).
    page.wait_for_selector("#chart-value[data-drawn='1']")
    bars = page.evaluate("""() => { const d = document.getElementById('chart-value').data[0];
        return d.y.map((y, i) => y - d.error_y.arrayminus[i]); }""")
    assert min(bars) >= 0


def test_replay_table_uses_human_units(live_server, page, run_form):
    run_form(page, kind="swf-replay", preset="swf-small",
             policies=("fcfs", "easy"))
    headers = page.locator("#summary-table thead th").all_inner_texts()
    assert any(h.startswith("utilization (%)") for h in headers)
    assert not any("(s)" in h for h in headers)  # seconds become minutes, hours or days
    wait = next(h for h in headers if h.startswith("mean wait"))
    assert re.match(r"mean wait \((min|h|days)\)", wait), wait


def test_finished_runs_appear_while_running_and_a_cancelled_bar_is_not_full(
        live_server, live_celery, start_worker, page, run_form):
    start_worker(concurrency=1)
    url = run_form(page, kind="parallel-energy", preset="small",
                   policies=("easy", "max-upe-ph", "meta-event"), trials=2)
    # Elapsed time and an estimate while it runs; results before the last run ends.
    page.wait_for_selector("#eta-wrap:not([hidden])", timeout=120_000)
    assert re.search(r"\d+ (s|min)", page.locator("#elapsed").inner_text())
    page.wait_for_selector("#summary-table", timeout=180_000)
    # The first finished runs are in the table while the others still run (no reload).
    assert "so far" in page.locator("#results-title").inner_text()
    assert page.locator("#exp-status").inner_text() in ("running", "queued")
    assert page.locator("#summary-table tbody tr").count() >= 1
    assert page.locator("#live-status").inner_text()  # announced to screen readers
    page.wait_for_selector("#exp-status:text('done')", timeout=240_000)

    # A cancelled experiment shows where it stopped, never a full bar.
    url2 = run_form(page, kind="parallel-energy", preset="small",
                    policies=("easy", "max-upe-ph", "meta-event"), trials=3)
    page.wait_for_selector("#exp-status:text('running')", timeout=120_000)
    page.once("dialog", lambda d: d.accept())  # Cancel asks first
    page.click("#cancel")
    page.wait_for_selector("#exp-status:text('cancelled')", timeout=120_000)
    text = page.locator("#overall-text").inner_text()
    assert text.startswith("cancelled at") and not text.endswith("100%")
    assert url != url2


# --- export and reuse -------------------------------------------------------------------------

def test_every_chart_and_the_summary_export(live_server, page, run_form):
    run_form(page, policies=("random", "rbs"), trials=2)
    page.wait_for_selector("#chart-value.js-plotly-plot")
    for fmt, head in (("svg", b"<svg"), ("png", b"\x89PNG")):
        with page.expect_download() as info:
            page.click(f"[data-export={fmt}][data-target=chart-value]")
        data = Path(info.value.path()).read_bytes()
        assert data[:200].find(head) >= 0, data[:100]
    with page.expect_download() as info:
        page.click("[data-export=csv][data-target=chart-value]")
    rows = list(csv.reader(io.StringIO(Path(info.value.path()).read_text())))
    assert rows[0][:3] == ["trace", "x", "y"] and {r[1] for r in rows[1:]} == {"random", "rbs"}
    with page.expect_download() as info:
        page.click("#summary-csv")
    rows = list(csv.reader(io.StringIO(Path(info.value.path()).read_text())))
    assert rows[0][:3] == ["policy", "policy label", "runs"]
    assert "surveillance value mean (priority-weighted surveils)" in rows[0] and len(rows) == 3
    with page.expect_download() as info:
        page.click("#summary-tex")
    tex = Path(info.value.path()).read_text()
    assert "\\begin{tabular}" in tex and "\\pm" in tex
    assert "\\textbf{" in tex or "\\approx" in tex  # a best, or the ones it cannot be told from


# --- the bugs ------------------------------------------------------------------------------

def test_malformed_ids_unknown_names_and_the_favicon(live_server, page, admin_user):
    base = live_server.url
    assert page.goto(f"{base}/compare/?run=not-a-uuid").status == 404
    assert page.goto(f"{base}/new/uav/?clone=garbage").status == 404
    assert page.goto(f"{base}/api/runs/not-a-uuid/").status == 404
    icon = page.goto(f"{base}/favicon.ico")
    assert icon.status == 200 and "svg" in icon.headers["content-type"]
    page.goto(f"{base}/new/uav/?preset=no-such-preset")
    assert "no preset “no-such-preset”" in page.locator("#notice").inner_text()
    experiment = make(policies=("random", "rbs"))
    page.goto(f"{base}/e/{experiment.public_id}/compare/?p=nope&p=rbs")
    assert "nope" in page.locator("#notice").inner_text()
    # The admin offers no "add" for scenarios and experiments (it could not validate them).
    page.goto(f"{base}/admin/login/")
    page.fill("#id_username", "admin")
    page.fill("#id_password", "password")
    page.click("input[type=submit]")
    page.wait_for_selector("#site-name")
    for model in ("experiment", "scenario"):
        assert page.goto(f"{base}/admin/hetsite/{model}/add/").status == 403
        page.goto(f"{base}/admin/hetsite/{model}/")
        assert page.locator(".object-tools .addlink").count() == 0


def test_side_by_side_keeps_its_size_and_draws_budget_and_goal_in_every_panel(live_server,
                                                                              browser):
    experiment = make(kind="parallel-energy", preset="small", policies=("easy", "max-upe-ph"))
    context = new_context(browser, viewport={"width": 1300, "height": 900})
    page = context.new_page()
    page.goto(f"{live_server.url}/e/{experiment.public_id}/compare/?p=easy&p=max-upe-ph")
    page.wait_for_selector("#chart-energy.js-plotly-plot")
    panels = page.evaluate("""() => { const d = document.getElementById('chart-energy').data;
        const by = {}; d.forEach(t => { (by[t.name] = by[t.name] || []).push(t.xaxis); });
        return by; }""")
    assert sorted(panels["budget"]) == ["x", "x2"] and sorted(panels["goal energy"]) == [
        "x", "x2"]
    height = page.locator("#chart-energy").bounding_box()["height"]
    assert height > 360
    for width in (700, 1300):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(400)  # Plotly's resize handler is debounced
        assert page.locator("#chart-energy").bounding_box()["height"] == pytest.approx(height)
        svg = page.locator("#chart-energy .main-svg").first.bounding_box()
        assert svg["height"] == pytest.approx(height, abs=2)
    context.close()
