"""An explained run in Chromium (issue 32): the form's checkbox, a job clicked in the Gantt and a
row clicked in the tasks table tell that job's story as the result's decisions have it, the
action filter lists every decision of an action with its count, and the side-by-side page
prints where EASY and FCFS part ways on swf-small as ``simcore.explain.divergence`` finds it."""

import json

import pytest

from hetsite import selectors
from hetsite.models import Experiment, Run
from simcore import explain

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

KIND, PRESET = "swf-replay", "swf-small"


def js(value) -> str:
    """A JSON number or string as the page's script writes it (String(v))."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dict):  # a repeated decision's latest numbers, "last=(k=v, ...)"
        return "(" + ", ".join(f"{k}={js(v)}" for k, v in value.items()) + ")"
    return str(value)


def story_line(d: dict, unit: str) -> str:
    numbers = ", ".join(f"{k}={js(v)}" for k, v in explain.numbers(d).items())
    return f"t={js(d['t'])} {unit} · {d['action']} · {d['reason']}" + (
        f" · {numbers}" if numbers else "")


def result_of(experiment: Experiment, policy: str) -> tuple[Run, dict]:
    run = experiment.runs.get(policy=policy)
    return run, json.loads(selectors.result_json(run))


def read_story(page) -> tuple[str, list[str]]:
    page.wait_for_selector("#task-story-title:not(:empty)")
    page.wait_for_function("() => !/loading/.test(document.getElementById('task-story-title')"
                           ".textContent)")
    return (page.locator("#task-story").get_attribute("data-task"),
            page.locator("#task-story-list li").all_inner_texts())


def show_gantt(page, run: Run) -> None:
    """Draw ``run``'s job Gantt in "One run in detail" (its decisions panel opens beside)."""
    page.select_option("#run-chart-run", str(run.public_id))
    page.select_option("#run-chart-id", "gantt")
    page.click("#run-chart-form button[type=submit]")
    page.wait_for_function("() => document.getElementById('run-chart').dataset.drawn === '1'")
    page.wait_for_selector("#decision-filter button")


def click_job(page, job: int) -> None:
    """Click job ``job``'s rectangle where the chart drew it (its hover mark at the centre)."""
    page.locator("#run-chart").scroll_into_view_if_needed()
    where = page.evaluate("""(job) => {
        const gd = document.getElementById('run-chart'), L = gd._fullLayout;
        const box = gd.querySelector('.nsewdrag').getBoundingClientRect();
        for (const t of gd.data) {
          const i = (t.customdata || []).findIndex(c => c[0] === job);
          if (i >= 0) return {x: box.left + L.xaxis.l2p(t.x[i]), y: box.top + L.yaxis.l2p(t.y[i])};
        }
        return null;
    }""", job)
    assert where is not None
    page.mouse.move(where["x"], where["y"])
    page.mouse.click(where["x"], where["y"])


def test_click_a_job_read_its_story_filter_by_action_and_compare(live_server, page, fill_form):
    problems = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    fill_form(page, KIND, PRESET, ["easy", "fcfs"], 1)
    page.check("#id_explain")
    page.click("#submit")
    page.wait_for_selector("#exp-status:text('done')", timeout=120_000)
    experiment = Experiment.objects.get()
    assert experiment.explain
    assert page.inner_text("#explained") == "decisions explained"
    run, result = result_of(experiment, "easy")
    every, unit = result["decisions"], result["meta"]["decisions"]["time_unit"]

    # The EASY run with its Gantt: the decisions panel opens beside it.
    show_gantt(page, run)
    chips = page.locator("#decision-filter button").all_inner_texts()
    assert chips == [f"{a} ({n})" for a, n in explain.counts(every).items()]
    # every task's end in its unit, whichever of the panel's two requests came back first
    page.wait_for_selector("#decision-tasks tbody tr")
    ends = page.locator("#decision-tasks tbody tr td:nth-child(3)").all_inner_texts()
    assert ends and all(e.endswith(f" {unit}") for e in ends), ends
    # the whole list counts its records, and the decisions they stand for with repeats
    records, times = len(every), sum(explain.counts(every).values())
    assert times > records
    assert page.inner_text("#decision-list-count") == (
        f"({records} records, {times} counting repeats)")
    bounds = page.inner_text("#decisions-bounds")
    assert f"{len(every)} decisions kept of {result['meta']['decisions']['tasks_seen']} tasks" \
        in bounds

    click_job(page, 29)
    task, lines = read_story(page)
    assert task == "29"
    assert lines == [story_line(d, unit) for d in explain.story(every, 29)]
    assert page.inner_text("#task-story-title") == f"task 29: {len(lines)} decisions"
    assert any(" · backfilled · " in x or " · mapped · " in x for x in lines)

    # A row of the tasks table: the third task the log kept.
    row = page.locator("#decision-tasks tbody tr").nth(2)
    clicked = row.get_attribute("data-task")
    row.click()
    page.wait_for_function(f"() => document.getElementById('task-story').dataset.task === "
                           f"'{clicked}'")
    task, lines = read_story(page)
    assert lines == [story_line(d, unit) for d in explain.story(every, clicked)]
    assert lines  # a kept task has a story

    # "Show me every backfill and its reason": the list holds only those, counted.
    backfills = explain.of_actions(every, ["backfilled"])
    page.click("#decision-filter button[data-filter-action=backfilled]")
    page.wait_for_function("() => /backfilled\\)/.test(document.getElementById("
                           "'decision-list-count').textContent)")
    assert page.inner_text("#decision-list-count") == f"({len(backfills)} backfilled)"
    shown = page.locator("#decision-list tbody tr")
    assert shown.count() == min(50, len(backfills))
    assert set(page.locator("#decision-list tbody tr td:nth-child(3)").all_inner_texts()) == {
        "backfilled"}
    first = backfills[0]
    assert shown.first.locator("td").all_inner_texts() == [
        js(first["t"]), js(first["task"]), "backfilled", first["reason"],
        ", ".join(f"{k}={js(v)}" for k, v in explain.numbers(first).items())]
    page.click("[data-decision-page=list][data-step='1']")
    page.wait_for_function("() => /^page 2 /.test(document.getElementById("
                           "'decision-list-page').textContent)")
    assert page.locator("#decision-list tbody tr").first.locator(
        "td:nth-child(2)").inner_text() == js(backfills[50]["task"])

    # Side by side: where EASY and FCFS part ways, as simcore finds it.
    found = explain.divergence(result, result_of(experiment, "fcfs")[1])
    page.goto(f"{live_server.url}/e/{experiment.public_id}/compare/?p=easy&p=fcfs")
    first = found["first"]
    assert page.inner_text("#first-divergence-t") == js(first["t"])
    rows = [r.locator("td").all_inner_texts()
            for r in page.locator("#divergence-first tbody tr").all()]
    expected = [["only A", js(d["task"]), js(d["t"]), d["action"], d["reason"]]
                for d in first["only_a"]]
    expected += [["meanwhile B", js(d["task"]), js(d["t"]), d["action"], d["reason"]]
                 for d in first["why_not"]["b"]]
    assert [r[:5] for r in rows] == expected
    assert rows[0][3] == "backfilled" and rows[-1][3] == "held"  # EASY passed FCFS's head
    # No word is broken across lines: every line break in the table falls between words.
    broken = page.evaluate("""() => {
        const out = [];
        document.querySelectorAll('#divergence-first td, #divergence-first th').forEach(td => {
          const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const text = n.textContent;
            let top = null;
            for (let i = 0; i < text.length; i++) {
              const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
              const rect = r.getClientRects()[0];
              if (!rect) continue;
              if (top !== null && rect.top > top + 2 && text[i - 1] !== ' ' && text[i] !== ' ')
                out.push(text);
              top = rect.top;
            }
          }
        });
        return out;
    }""")
    assert broken == [], broken
    tasks = page.locator("#divergence-tasks tbody tr td:first-child").all_inner_texts()
    assert tasks == [js(r["task"]) for r in found["tasks"]]
    assert not problems, problems


def test_a_job_named_on_the_form_keeps_its_story_in_a_sampled_run(live_server, page, fill_form,
                                                                  settings):
    """"Keep these tasks' stories": in a run that keeps 1 job in ``stride``, the job named on
    the form tells the whole story an unsampled run tells, and a job left out says why its
    story is empty and how to get it."""
    from scheduling.engine import ENGINE
    from simcore.decisions import DecisionLog, bucket

    settings.HETSITE_EXPLAIN_LIMIT = 100
    fill_form(page, KIND, PRESET, ["easy"], 1)
    assert not page.is_visible("#id_explain_tasks")  # only with Explain decisions
    page.check("#id_explain")
    page.fill("#id_explain_tasks", "29")
    page.click("#submit")
    page.wait_for_selector("#exp-status:text('done')", timeout=120_000)
    experiment = Experiment.objects.get()
    assert experiment.explain_tasks == [29]
    assert page.inner_text("#explain-tasks") == "whole stories kept: 29"
    run, result = result_of(experiment, "easy")
    stride, unit = result["meta"]["decisions"]["stride"], result["meta"]["decisions"]["time_unit"]
    assert stride > 1 and result["meta"]["decisions"]["always"] == [29]
    whole = ENGINE.simulate(ENGINE.preset_scenario(PRESET), "easy", seed=run.seed,
                            explain=DecisionLog(limit=10**6)).decisions
    whole = json.loads(json.dumps(whole, sort_keys=True))  # as the lab stores decisions

    show_gantt(page, run)
    click_job(page, 29)
    task, lines = read_story(page)
    assert task == "29" and lines
    assert lines == [story_line(d, unit) for d in explain.story(whole, 29)]

    left_out = next(j for j in range(1, 501) if bucket(j) % stride and j != 29)
    click_job(page, left_out)
    page.wait_for_function(f"() => document.getElementById('task-story').dataset.task === "
                           f"'{left_out}'")
    task, lines = read_story(page)
    assert lines == []
    assert page.inner_text("#task-story-title") == (
        f"task {left_out}: 0 decisions kept (the log kept 1 task in {stride}; to read this "
        "one's story, clone the experiment and name it under \u201cKeep these tasks' "
        "stories\u201d) Clone it keeping this task's story")

    # One click to that clone: the form comes back explained, with both jobs named.
    page.click("#keep-story")
    page.wait_for_selector("#id_explain_tasks")
    assert page.is_checked("#id_explain") and page.is_visible("#id_explain_tasks")
    assert page.input_value("#id_explain_tasks") == f"29, {left_out}"
    assert f"keeping task {left_out}'s whole story" in page.inner_text("body")
    page.click("#submit")
    page.wait_for_selector("#exp-status:text('done')", timeout=120_000)
    clone = Experiment.objects.exclude(pk=experiment.pk).get()
    assert clone.explain_tasks == [29, left_out]
    _, again = result_of(clone, "easy")
    assert explain.story(again["decisions"], left_out) == explain.story(whole, left_out) != []
