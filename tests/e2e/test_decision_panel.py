"""The run page's "Why did it do that?" panel in Chromium when answers come back out of order,
and how it prints numbers (outside audit B, items 1, 3 and 8).

Each race is made deterministic by holding one request in Playwright's router until a later
request's answer is shown, then letting it through: the panel must still show the later one
only (the task, title and lines of one story; the chips, count and rows of one run and filter).
"""

import contextlib
import json

import pytest

from hetsite import selectors
from hetsite.models import Status
from hetsite.services import submission
from simcore import explain
from simcore.explain import number_text  # (the pages' and the CLI's rule: app.js must agree)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def make(kind: str, preset: str, policies: list[str]):
    """An explained experiment of one trial, run to the end in this process."""
    experiment = submission.create_experiment(submission.validate_submission(
        kind=kind, preset=preset, policies=policies, trials=1, explain=True))
    experiment.refresh_from_db()
    assert experiment.status == Status.DONE
    return experiment


def numbers_text(d: dict) -> str:
    return ", ".join(f"{k}=({numbers_text(v)})" if isinstance(v, dict) else f"{k}={number_text(v)}"
                     for k, v in explain.numbers(d).items())


def story_line(d: dict, unit: str) -> str:
    return f"t={number_text(d['t'])} {unit} · {d['action']} · {d['reason']}" + (
        f" · {numbers_text(d)}" if numbers_text(d) else "")


def api(page, path: str) -> dict:
    answer = page.request.get(page.url.split("/e/")[0] + path)
    assert answer.ok, answer.text()
    return answer.json()


def show_run(page, run) -> None:
    """Pick ``run`` in "One run in detail" and wait for its decisions panel to be filled."""
    page.select_option("#run-chart-run", str(run.public_id))
    page.click("#run-chart-form button[type=submit]")
    page.wait_for_function(
        "(n) => Array.from(document.querySelectorAll('#decision-filter button'))"
        ".map(b => b.textContent).join() === n", arg=chips(run))
    page.wait_for_selector("#decision-list tbody tr")
    page.wait_for_selector("#decision-tasks tbody tr")


def chips(run) -> str:
    every = json.loads(selectors.result_json(run))["decisions"]
    return ",".join(f"{a} ({n})" for a, n in explain.counts(every).items())


def story_shown(page) -> tuple[str, str, list[str]]:
    return (page.locator("#task-story").get_attribute("data-task"),
            page.inner_text("#task-story-title"),
            page.locator("#task-story-list li").all_inner_texts())


class Held:
    """Requests whose URL contains ``part`` wait in the router until :meth:`release`."""

    def __init__(self, page, part: str):
        self.page, self.routes = page, []
        page.route(lambda url: part in url, lambda route: self.routes.append(route))

    def wait(self) -> None:
        for _ in range(100):
            if self.routes:
                return
            self.page.wait_for_timeout(50)
        raise AssertionError("the held request was never made")

    def release(self) -> None:
        for route in self.routes:
            with contextlib.suppress(Exception):  # (the page gave it up, aborted: fine)
                route.continue_()
        # time for the late answer to reach the page and be drawn, if the page would draw it
        self.page.wait_for_timeout(600)


@pytest.fixture
def swf(live_server, page):
    experiment = make("swf-replay", "swf-small", ["easy", "fcfs"])
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{live_server.url}/e/{experiment.public_id}/")
    return {p: experiment.runs.get(policy=p) for p in ("easy", "fcfs")}


def test_only_the_latest_story_is_shown(swf, page):
    """Task 29's story answer arrives after task 3's: the panel shows task 3's story alone (it
    showed task 29's title over both stories' lines, appended)."""
    run = swf["easy"]
    show_run(page, run)
    held = Held(page, "task=29")
    page.click("#decision-tasks tbody tr[data-task='29']")
    held.wait()
    page.click("#decision-tasks tbody tr[data-task='3']")
    page.wait_for_function("() => /^task 3: \\d/.test("
                           "document.getElementById('task-story-title').textContent)")
    held.release()
    story = api(page, f"/api/runs/{run.public_id}/decisions/?task=3")
    assert story["decisions"] and story["total"] == len(story["decisions"])
    assert story_shown(page) == ("3", f"task 3: {story['total']} decisions",
                                 [story_line(d, "s") for d in story["decisions"]])
    # and as the result has it
    every = json.loads(selectors.result_json(run))["decisions"]
    assert [(d["t"], d["action"]) for d in story["decisions"]] == [
        (d["t"], d["action"]) for d in explain.story(every, 3)]


def listed(page, run) -> list[list[str]]:
    """The cells of ``run``'s first page of decisions, as the panel must print them."""
    p = api(page, f"/api/runs/{run.public_id}/decisions/?page=1")
    return [[number_text(d["t"]), str(d["task"]), d["action"], d["reason"], numbers_text(d)]
            for d in p["decisions"]]


def list_shown(page) -> tuple[list[str], list[str], str, list[list[str]]]:
    """The chips, those pressed, the count and the rows the decision list shows."""
    return (page.locator("#decision-filter button").all_inner_texts(),
            page.eval_on_selector_all("#decision-filter button[aria-pressed=true]",
                                      "bs => bs.map(b => b.dataset.filterAction)"),
            page.inner_text("#decision-list-count"),
            [r.locator("td").all_inner_texts()
             for r in page.locator("#decision-list tbody tr").all()])


def unfiltered(page, run) -> tuple:
    every = json.loads(selectors.result_json(run))["decisions"]
    times = sum(explain.counts(every).values())
    return (chips(run).split(","), [], f"({len(every)} records, {times} counting repeats)",
            listed(page, run))


def test_a_filter_answer_of_the_run_shown_before_is_dropped(swf, page):
    """FCFS filtered by "completed", and EASY shown while that answer is on its way: the panel
    shows EASY's chips, count and rows, unfiltered (it showed FCFS's beside EASY's chart)."""
    show_run(page, swf["fcfs"])
    held = Held(page, "action=completed")
    page.click("#decision-filter button[data-filter-action=completed]")
    held.wait()
    show_run(page, swf["easy"])
    held.release()
    assert list_shown(page) == unfiltered(page, swf["easy"])


def test_the_answer_of_a_filter_undone_is_dropped(swf, page):
    """"held" pressed and at once un-pressed, its answer late: no chip pressed and the whole
    list (it read "(472 held)" under no pressed chip)."""
    show_run(page, swf["easy"])
    held = Held(page, "action=held")
    page.click("#decision-filter button[data-filter-action=held]")
    held.wait()
    with page.expect_response(lambda r: "/decisions/?page=1" in r.url and "action" not in r.url):
        page.click("#decision-filter button[data-filter-action=held]")
    page.wait_for_timeout(100)
    held.release()
    assert list_shown(page) == unfiltered(page, swf["easy"])


def test_numbers_read_by_one_rule_and_the_panel_fits_the_screen(live_server, page):
    """ch4-small's Max UPT log: times with 17 digits print by the rule, the list's header says
    the unit, a missing runner-up reads "none"; the tables scroll in their boxes at 390 px (the
    page does not) and the list fits its box at 1400 px."""
    experiment = make("serial-preemption", "ch4-small", ["max-upt"])
    run = experiment.runs.get()
    page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(f"{live_server.url}/e/{experiment.public_id}/")

    values = [7694634.2, 60829.834109341, 0.000123456, 264.21342723623326, 0.0, -0.0, 5.0, 100.0,
              -264.21342723623326, 0.1 + 0.2, 123456.5, 1234567.5, 1.015625, -1.015625, 2.5,
              999999.7, 99999.95, 99999.97, 0.0036882390481027404, 80.02071329975303, 1e-6,
              9.99999999e-7, 1e-7, -1.23456789e-8, 1e15, 1e20, 1e21, 1.5e300, 123456789012.5]
    shown = page.evaluate("(vs) => vs.map(window.hetsite.numberText)", values)
    assert shown == [number_text(v) for v in values]
    assert shown[:4] == ["7694634", "60829.8", "0.000123456", "264.213"]
    assert page.evaluate("() => [null, true, 'E'].map(window.hetsite.numberText)") == [
        "none", "true", "E"]

    show_run(page, run)
    assert page.inner_text("#decision-list-t") == "t (min)"
    first = api(page, f"/api/runs/{run.public_id}/decisions/?page=1")["decisions"]
    rows = [r.locator("td").all_inner_texts()
            for r in page.locator("#decision-list tbody tr").all()]
    assert rows == [[number_text(d["t"]), str(d["task"]), d["action"], d["reason"],
                     numbers_text(d)] for d in first]
    assert any("runner_up_score=none" in r[4] for r in rows)
    tasks = api(page, f"/api/runs/{run.public_id}/decisions/tasks/?page=1")["tasks"]
    # How each story ended, as the CLI says it (explain.end_text): a repeated wait at its last
    # time, with how many it was the last of.
    assert page.locator("#decision-tasks tbody tr td:nth-child(3)").all_inner_texts() == [
        explain.end_text(x["last"], "min") for x in tasks]
    page.click("#decision-tasks tbody tr[data-task='32']")
    page.wait_for_function("() => /^task 32: \\d/.test("
                           "document.getElementById('task-story-title').textContent)")
    story = api(page, f"/api/runs/{run.public_id}/decisions/?task=32")["decisions"]
    assert story_shown(page)[2] == [story_line(d, "min") for d in story]
    assert any(len(repr(d["t"])) > 10 for d in story)  # (the rule met long times)

    widths = """() => ({page: [document.documentElement.scrollWidth,
                               document.documentElement.clientWidth],
                        list: [document.querySelector('#decision-list').parentElement.scrollWidth,
                               document.querySelector('#decision-list').parentElement.clientWidth]})"""
    wide = page.evaluate(widths)
    assert wide["list"][0] <= wide["list"][1], wide  # every column in sight, none scrolled off
    page.set_viewport_size({"width": 390, "height": 900})
    page.wait_for_timeout(200)
    narrow = page.evaluate(widths)
    assert narrow["page"][0] == narrow["page"][1], narrow
    assert narrow["list"][0] > narrow["list"][1]  # the table scrolls in its own box


def test_the_tasks_table_says_a_story_ended_at_its_last_wait(live_server, page):
    """parallel-energy small, EASY: tasks still held at the end of the day end with a wait
    repeated at every event. The table says when the last of them was, and how many there
    were, as the CLI does (``explain.end_text``), not the first wait's time."""
    experiment = make("parallel-energy", "small", ["easy"])
    run = experiment.runs.get()
    page.goto(f"{live_server.url}/e/{experiment.public_id}/")
    show_run(page, run)
    first = api(page, f"/api/runs/{run.public_id}/decisions/tasks/?page=1")
    number = next(n for n in range(1, first["pages"] + 1) if any(
        x["last"].get("count", 1) > 1 for x in api(
            page, f"/api/runs/{run.public_id}/decisions/tasks/?page={n}")["tasks"]))
    for _ in range(number - 1):
        page.click("button[data-decision-page=tasks][data-step='1']")
    page.wait_for_function("(n) => document.getElementById('decision-tasks-page').textContent"
                           ".startsWith('page ' + n + ' ')", arg=number)
    tasks = api(page, f"/api/runs/{run.public_id}/decisions/tasks/?page={number}")["tasks"]
    unit = first["bounds"]["time_unit"]
    shown = page.locator("#decision-tasks tbody tr td:nth-child(3)").all_inner_texts()
    assert shown == [explain.end_text(x["last"], unit) for x in tasks]
    held = [(x, s) for x, s in zip(tasks, shown, strict=True) if x["last"].get("count", 1) > 1]
    assert held and all(x["last"]["t_last"] > x["last"]["t"] for x, _ in held)
    assert all(s.endswith(f"(the last of {x['last']['count']})") for x, s in held)
