"""Explained runs in the lab (issue 32): the checkbox and the API's ``explain`` record each
run's decisions with the site's bounds and price them; the decisions are read back page by page,
one task's story or some actions at a time, hidden exactly like the run; and the side-by-side
pages show where two runs of one scenario and seed part ways, as ``simcore.explain`` finds it.

Built on swf-replay's ``swf-small`` (its policies record their decisions); Celery is eager here,
so a created experiment has finished when the request returns.
"""

import functools
import json
import math
import re
from unittest import mock

import hypothesis
import pytest
from django.contrib.auth.models import User
from django.template.loader import render_to_string
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st
from rest_framework.test import APIClient

from hetsite import decisions, selectors
from hetsite.models import Experiment, Run, Status
from hetsite.services import submission
from simcore import explain
from simcore.decisions import ACTIONS, bucket
from simcore.errors import ScenarioError

pytestmark = pytest.mark.django_db(transaction=True)

KIND, PRESET = "swf-replay", "swf-small"


def create(client=None, policies=("easy", "fcfs"), **extra) -> dict:
    client = client or APIClient()
    response = client.post("/api/experiments/", {
        "kind": KIND, "preset": PRESET, "policies": list(policies), "trials": 1,
        "explain": True, **extra}, format="json")
    assert response.status_code == 202, response.content
    detail = client.get(f"/api/experiments/{response.json()['id']}/").json()
    assert detail["status"] == Status.DONE, detail
    return detail


def result_of(run_id) -> dict:
    run = Run.objects.get(public_id=run_id)
    return json.loads(selectors.result_json(run))


def test_an_explained_run_keeps_its_decisions_within_the_sites_bounds(settings):
    settings.HETSITE_EXPLAIN_LIMIT = 400
    settings.HETSITE_EXPLAIN_PER_TASK = 4
    body = create(policies=["easy"])
    assert body["explain"] is True
    run = body["runs"][0]
    assert run["explain"] is True
    assert run["decisions_url"] == f"/api/runs/{run['id']}/decisions/"
    result = result_of(run["id"])
    bounds = result["meta"]["decisions"]
    # The site's bounds reached the engine: swf-small's 500 jobs make ~1,250 decisions, so a
    # 400-decision log was sampled, and no story is longer than 4.
    assert (bounds["limit"], bounds["per_task"]) == (400, 4)
    assert bounds["stride"] > 1 and len(result["decisions"]) <= 400
    per_task = {}
    for d in result["decisions"]:
        per_task[repr(d["task"])] = per_task.get(repr(d["task"]), 0) + 1
    assert max(per_task.values()) <= 4
    # What lists show without opening the blob: the bounds and the counts per action.
    assert run["decisions"] == {**bounds, "counts": explain.counts(result["decisions"])}
    # The blob holds the same decisions and the meta two runs are compared by.
    stored = decisions.load(Run.objects.get(public_id=run["id"]))
    assert stored["decisions"] == result["decisions"]
    assert stored["meta"]["seed"] == result["meta"]["seed"]
    assert stored["meta"]["scenario"] == result["meta"]["scenario"]


def test_without_explain_nothing_is_recorded_and_the_result_is_unchanged():
    plain = create(policies=["easy"], explain=False)["runs"][0]
    told = create(policies=["easy"])["runs"][0]
    assert plain["explain"] is False and plain["decisions"] is None
    assert plain["decisions_url"] is None
    a, b = result_of(plain["id"]), result_of(told["id"])
    assert "decisions" not in a and "decisions" not in a["meta"]
    assert Run.objects.get(public_id=plain["id"]).decisions_gz is None
    # Explaining adds its two keys and changes nothing else the run computed.
    for r in (a, b):
        r["meta"].pop("decisions", None)
        r.pop("decisions", None)
        r.pop("timing", None)
        r["meta"].pop("code_version", None)
    assert a == b
    response = APIClient().get(f"/api/runs/{plain['id']}/decisions/")
    assert response.status_code == 404
    assert "did not record its decisions" in response.json()["detail"]


def test_explaining_is_priced_with_its_overhead(settings):
    settings.HETSITE_EXPLAIN_OVERHEAD = 0.25
    common = {"kind": KIND, "preset": PRESET, "policies": ["easy", "fcfs"], "trials": 1}
    plain = submission.validate_submission(**common)
    told = submission.validate_submission(**common, explain=True)
    assert told.estimate_s == pytest.approx(1.25 * plain.estimate_s)
    quote = APIClient().post("/api/experiments/", {**common, "explain": True, "dry_run": True},
                             format="json").json()
    assert quote["estimated_cpu_s"] == pytest.approx(round(told.estimate_s, 3))
    experiment = Experiment.objects.get(public_id=create(**{"policies": ["easy"]})["id"])
    assert experiment.estimate_s == pytest.approx(1.25 * plain.costs[0][0])


@pytest.mark.parametrize("extra, field, says", [
    ({"axes": [{"param": "estimate_scale", "values": [1.0, 2.0]}]}, "explain", "without a sweep"),
    ({"trials": 11}, "explain", "at most 20"),
    ({"explain": "yes please"}, "explain", "valid boolean"),
    ({"explain": False, "explain_tasks": [12]}, "explain_tasks", "only with"),
    ({"explain_tasks": list(range(21))}, "explain_tasks", "at most 20"),
    ({"explain_tasks": ["x" * 101]}, "explain_tasks", "1 to 100 characters"),
    ({"explain_tasks": {"task": 12}}, "explain_tasks", "list of task ids"),
    ({"explain_tasks": [True]}, "explain_tasks", "list of task ids"),
])
def test_explain_is_refused_where_it_does_not_belong(extra, field, says):
    body = {"kind": KIND, "preset": PRESET, "policies": ["easy", "fcfs"], "trials": 1,
            "explain": True, **extra}
    response = APIClient().post("/api/experiments/", body, format="json")
    assert response.status_code == 400
    assert list(response.json()) == [field], response.json()
    assert says in response.json()[field][0]
    assert not Experiment.objects.exists()


def test_the_form_checkbox_starts_an_explained_experiment_and_a_sweep_may_not():
    client = Client()
    page = client.get(f"/new/{KIND}/?preset={PRESET}").content.decode()
    box = re.search(r'<input type="checkbox" name="explain"[^>]*>', page).group(0)
    assert "checked" not in box and "Explain decisions" in page
    form = preset_form(policies=["easy"], trials=1, explain="on")
    swept = client.post(f"/new/{KIND}/", {**form, "sweep_param1": "estimate_scale",
                                           "sweep_values1": "1, 2"})
    assert swept.status_code == 400
    assert "only experiments without a sweep explain" in swept.content.decode()
    response = client.post(f"/new/{KIND}/", form)
    assert response.status_code == 302, response.content.decode()[:2000]
    experiment = Experiment.objects.get()
    assert experiment.explain and experiment.runs.get().decisions_info["counts"]
    # A clone keeps the choice.
    clone = client.get(f"/new/{KIND}/?clone={experiment.public_id}").content.decode()
    assert re.search(r'<input type="checkbox" name="explain"[^>]* checked', clone)


def preset_form(**fields) -> dict:
    """The new-experiment form as the preset fills it in (a browser's POST of it)."""
    from frontend.forms import ExperimentForm
    from hetsite import kinds

    lab = kinds.get_kind(KIND)
    initial = ExperimentForm.initial_for(
        lab, submission.validate_scenario(kind=KIND, preset=PRESET), preset=PRESET)
    data = {k: ("on" if v is True else v) for k, v in initial.items()
            if v is not None and v is not False and not isinstance(v, dict)}
    return {**data, **fields}


@pytest.fixture
def explained():
    """One explained swf-small experiment with EASY and FCFS, and both results."""
    body = create()
    runs = {r["policy"]: r["id"] for r in body["runs"]}
    return {"experiment": body["id"], "runs": runs,
            "results": {p: result_of(i) for p, i in runs.items()}}


def get(client, run_id, path="", **query):
    return client.get(f"/api/runs/{run_id}/decisions/{path}", query)


def test_a_tasks_story_and_the_action_filter_are_the_cli_s(explained):
    api, run = APIClient(), explained["runs"]["easy"]
    result = explained["results"]["easy"]
    every = result["decisions"]
    body = get(api, run, task="29").json()
    assert body["decisions"] == explain.story(every, 29) and body["total"] >= 2
    assert body["counts"] == explain.counts(every)
    assert body["bounds"] == result["meta"]["decisions"]
    held = get(api, run, action="held").json()
    assert held["total"] == len(explain.of_actions(every, ["held"])) > 50
    assert {d["action"] for d in held["decisions"]} == {"held"}
    # Several actions, and an action with a task: the task's decisions of those actions.
    both = get(api, run, action="backfilled,mapped").json()
    assert both["total"] == len(explain.of_actions(every, ["backfilled", "mapped"]))
    assert {d["action"] for d in both["decisions"]} == {"backfilled", "mapped"}
    story = get(api, run, task="29", action="completed").json()
    assert story["decisions"] == explain.of_actions(explain.story(every, 29), ["completed"])
    assert story["total"] == 1


def test_pages_are_bounded_and_walk_the_whole_log(explained):
    api, run = APIClient(), explained["runs"]["easy"]
    every = explained["results"]["easy"]["decisions"]
    pages = math.ceil(len(every) / decisions.PAGE_SIZE)
    first = get(api, run).json()
    assert (first["page"], first["pages"], first["total"]) == (1, pages, len(every))
    walked = []
    for n in range(1, pages + 1):
        body = get(api, run, page=n).json()
        assert len(body["decisions"]) <= decisions.PAGE_SIZE
        walked += body["decisions"]
    assert walked == every
    # ("²" and "٣" pass str.isdigit: int refuses the one and reads the other as 3)
    for bad in ("0", "-1", "x", "1e3", "9" * 20, "9" * 5000, "\u00b2", "\u0663"):
        for path in ("", "tasks/"):
            response = get(api, run, path, page=bad)
            assert response.status_code == 400 and list(response.json()) == ["page"], bad
    past = get(api, run, page=pages + 1)
    assert past.status_code == 400 and "the last is" in past.json()["page"][0]
    tasks = get(api, run, "tasks/").json()
    assert tasks["total"] == explained["results"]["easy"]["meta"]["decisions"]["tasks_kept"]
    assert len(tasks["tasks"]) == decisions.PAGE_SIZE
    fates = explain.fate(every)
    for row in tasks["tasks"]:
        assert row["last"] == fates[row["task"]]
        assert row["decisions"] == len(explain.story(every, row["task"]))


@pytest.mark.parametrize("query, field", [
    ({"action": "teleported"}, "action"),
    ({"action": "held,Dropped"}, "action"),
    ({"task": "x" * 101}, "task"),
])
def test_a_bad_query_is_a_400_naming_its_field(explained, query, field):
    response = get(APIClient(), explained["runs"]["easy"], **query)
    assert response.status_code == 400
    assert list(response.json()) == [field]
    if field == "action":
        assert "known: " + ", ".join(ACTIONS) in response.json()["action"][0]


def test_a_private_runs_decisions_are_hidden_like_the_run():
    owner = User.objects.create_user("owner", password="pw")
    User.objects.create_user("stranger", password="pw")
    User.objects.create_user("staff", password="pw", is_staff=True)
    mine = APIClient()
    mine.login(username="owner", password="pw")
    body = create(mine, visibility="private")
    a, b = (r["id"] for r in body["runs"])
    stranger = APIClient()
    stranger.login(username="stranger", password="pw")
    staff = APIClient()
    staff.login(username="staff", password="pw")
    paths = [f"/api/runs/{a}/decisions/", f"/api/runs/{a}/decisions/?task=29",
             f"/api/runs/{a}/decisions/?action=held", f"/api/runs/{a}/decisions/tasks/",
             f"/api/runs/{a}/decisions/divergence/?with={b}", f"/compare/?run={a}&run={b}",
             f"/e/{body['id']}/compare/?p=easy&p=fcfs"]
    # A run that does not exist: a private one must answer as it does, to the byte.
    nobody = "00000000-0000-4000-8000-000000000000"
    for client in (APIClient(), stranger):
        for path in paths:
            response, missing = client.get(path), client.get(path.replace(a, nobody))
            assert response.status_code == missing.status_code == 404, path
            assert response.content == missing.content, path
        # ... and the run itself, the yardstick.
        assert client.get(f"/api/runs/{a}/").content == client.get(
            f"/api/runs/{nobody}/").content
    for client in (mine, staff):
        for path in paths:
            assert client.get(path).status_code == 200, path
    assert Experiment.objects.get().owner == owner
    # A public run cannot lend a private one's decisions: the other side is checked too.
    public = create(policies=["easy"])["runs"][0]["id"]
    response = APIClient().get(f"/api/runs/{public}/decisions/divergence/?with={b}")
    assert response.status_code == 404


def test_an_anonymous_owners_private_run_is_theirs_by_cookie_and_nobody_elses():
    owner = APIClient()  # keeps the owner cookie its creation set, like a browser
    run = create(owner, policies=["easy"], visibility="private")["runs"][0]["id"]
    assert get(owner, run, task="29").status_code == 200
    assert get(owner, run, "tasks/").status_code == 200
    for other in (APIClient(), Client()):
        assert get(other, run, task="29").status_code == 404
        assert get(other, run, "tasks/").status_code == 404


def test_the_divergence_endpoint_is_simcores(explained):
    runs, results = explained["runs"], explained["results"]
    body = APIClient().get(f"/api/runs/{runs['easy']}/decisions/divergence/",
                           {"with": runs["fcfs"]}).json()
    found = explain.divergence(results["easy"], results["fcfs"])
    assert body["problem"] == "" and body["found"]["first"] == found["first"]
    assert body["found"]["tasks"] == found["tasks"]
    assert body["found"]["policies"] == ["easy", "fcfs"]
    missing = APIClient().get(f"/api/runs/{runs['easy']}/decisions/divergence/")
    assert missing.status_code == 400 and list(missing.json()) == ["with"]


def test_runs_of_different_seeds_or_without_decisions_say_why_they_cannot_be_compared():
    one = create(policies=["easy"])["runs"][0]["id"]
    other = create(policies=["fcfs"], base_seed=7)["runs"][0]["id"]
    plain = create(policies=["fcfs"], explain=False)["runs"][0]["id"]
    api = APIClient()
    seeds = api.get(f"/api/runs/{one}/decisions/divergence/", {"with": other}).json()
    assert seeds["found"] is None and seeds["problem"].startswith("seed: the two runs differ")
    none = api.get(f"/api/runs/{one}/decisions/divergence/", {"with": plain}).json()
    assert none["found"] is None and "has no decisions" in none["problem"]
    page = Client().get(f"/compare/?run={one}&run={other}").content.decode()
    assert "seed: the two runs differ" in page
    page = Client().get(f"/compare/?run={one}&run={other}&run={plain}").content.decode()
    assert "pick exactly two runs" in page


@pytest.mark.parametrize("status, says", [
    (Status.QUEUED, "the run has not finished"),
    (Status.FAILED, "the run failed, so it has no result"),
    (Status.CANCELLED, "the run was cancelled before it finished")])
def test_a_run_picked_that_did_not_finish_is_named_with_what_became_of_it(status, says):
    done, other = (r["id"] for r in create()["runs"])
    Run.objects.filter(public_id=other).update(status=status)
    api = APIClient()
    body = api.get(f"/api/runs/{done}/decisions/divergence/", {"with": other}).json()
    assert body["problem"] == f"the second run (fcfs #0) has no decisions: {says}."
    # the page names it too, where it once dropped it and counted one run picked
    page = Client().get(f"/compare/?run={done}&run={other}").content.decode()
    assert f"the second run (fcfs #0) has no decisions: {says}." in page


def test_odd_numbers_in_the_compare_query_are_read_as_none_not_a_500(explained):
    url = f"/e/{explained['experiment']}/compare/"
    plain = Client().get(url, {"p": ["easy", "fcfs"]}).content.decode()
    t = re.search(r'id="first-divergence-t">([^<]*)<', plain).group(1)
    for trial in ("\u00b2", "9" * 5000, "-1", "0"):
        page = Client().get(url, {"p": ["easy", "fcfs"], "trial": trial})
        assert page.status_code == 200, trial  # the first trial both finished
        assert re.search(r'id="first-divergence-t">([^<]*)<', page.content.decode()).group(1) == t
    # a policy picked twice is one pick
    twice = Client().get(url, {"p": ["easy", "fcfs", "easy", "fcfs"]}).content.decode()
    assert f'id="first-divergence-t">{t}<' in twice and "pick exactly two" not in twice


def test_the_compare_pages_print_the_first_divergence(explained):
    runs, results = explained["runs"], explained["results"]
    found = explain.divergence(results["easy"], results["fcfs"])
    first = found["first"]
    for url in (f"/e/{explained['experiment']}/compare/?p=easy&p=fcfs",
                f"/compare/?run={runs['easy']}&run={runs['fcfs']}"):
        page = Client().get(url).content.decode()
        assert f'id="first-divergence-t">{decisions.number_text(first["t"])}</span>' in page
        for d in first["only_a"]:
            assert f'<tr data-task="{d["task"]}" data-action="{d["action"]}"><td>only A' in page
        assert f"({found['differing_tasks']} end differently" in page
    # Policies the other way round: B's moves become A's.
    page = Client().get(f"/e/{explained['experiment']}/compare/?p=fcfs&p=easy").content.decode()
    for d in first["only_a"]:
        assert f'<tr data-task="{d["task"]}" data-action="{d["action"]}"><td>only B' in page


def test_uav_runs_are_compared_by_target_and_a_one_sided_fate_is_drawn():
    # UAV numbers its surveils in each run's own start order: the two runs are matched by the
    # target each decision names, and the page says so.
    body = create(kind="uav", preset="small-baseline", policies=["max-vpe+pf", "meta+pf"])
    a, b = (r["id"] for r in body["runs"])
    found = explain.divergence(result_of(a), result_of(b))
    assert found["compared_by"] == "target" and found["first"] is not None
    api = APIClient().get(f"/api/runs/{a}/decisions/divergence/", {"with": b}).json()
    assert api["found"]["tasks"] == found["tasks"]
    page = Client().get(f"/compare/?run={a}&run={b}").content.decode()
    assert f"{found['compared_tasks']} targets compared" in page
    assert "Targets whose fate differs most" in page
    for r in found["tasks"]:
        assert r["task"].startswith("target ")
        cells = re.search(rf'<tr data-task="{r["task"]}">(.*?)</tr>', page).group(1)
        ends = [f"{x['action']} at {decisions.number_text(x['t'])}"
                + (f" (where={x['where']})" if "where" in x else "") for x in (r["a"], r["b"])]
        assert re.findall(r"<td[^>]*>(.*?)</td>", cells)[:3] == [r["task"], *ends]
    # A subject only one run decided about is "not kept" on the other side, either side.
    only_b = {**found, "first": None, "tasks": [{"task": "target 2", "a": None, "gap": 0.0,
                                        "b": found["tasks"][0]["b"]}]}
    shown = decisions._shown(only_b)
    b_last = found["tasks"][0]["b"]
    assert shown["tasks"][0]["a"] is None and shown["tasks"][0]["b"]["action"] == b_last["action"]
    html = render_to_string("frontend/_decision_compare.html", {"c": {
        "found": {**found, "first": {"t": 1.0}}, "shown": shown, "problem": ""}})
    row = re.search(r'<tr data-task="target 2">(.*?)</tr>', html).group(1)
    assert re.findall(r"<td>(.*?)</td>", row)[:3] == [
        "target 2", "not kept", f"{b_last['action']} at {decisions.number_text(b_last['t'])}"]


def test_sampled_uav_runs_compare_on_the_targets_both_kept(settings):
    # Past the site's bound a UAV log keeps whole targets, the same ones in both runs: the
    # page compares them where a log sampled by surveil would be refused.
    settings.HETSITE_EXPLAIN_LIMIT = 200
    body = create(kind="uav", preset="small-baseline", policies=["max-vpe+pf", "meta+pf"])
    a, b = (result_of(r["id"]) for r in body["runs"])
    infos = [r["meta"]["decisions"] for r in (a, b)]
    assert all(i["stride"] > 1 and i["sampled_by"] == "target" for i in infos)
    stride = max(i["stride"] for i in infos)
    kept = {f"target {d['target']}" for r in (a, b) for d in r["decisions"]
            if bucket(f"target {d['target']}") % stride == 0}
    found = explain.divergence(a, b)
    assert found["compared_tasks"] == len(kept) > 0
    assert {r["task"] for r in found["tasks"]} <= kept
    ids = [r["id"] for r in body["runs"]]
    page = Client().get(f"/compare/?run={ids[0]}&run={ids[1]}").content.decode()
    assert f"{len(kept)} targets compared (the logs kept 1 target in {stride})" in page
    assert "decision-compare-problem" not in page and found["first"] is not None
    # the first difference of sampled logs is the first among what both kept only
    assert (f"Among the {len(kept)} targets both logs kept, they part ways at" in page
            and "the whole runs may part earlier, in what the logs did not keep" in page)


def test_the_compare_pages_list_twenty_moves_a_side_and_link_the_rest():
    a = [{"t": 0.0, "task": k, "action": "mapped", "reason": "r", "where": 0} for k in range(25)]
    b = [x | {"where": 1} for x in a]
    meta = {"policy": "p", "seed": 1, "scenario": {}, "decisions": {"time_unit": "s"}}
    found = explain.divergence({"meta": meta, "decisions": a}, {"meta": meta, "decisions": b})
    shown = decisions._shown(found)
    firsts = [r for r in shown["rows"] if r["who"] == "only A"]
    assert [r["task"] for r in firsts[:-1]] == list(range(decisions.SHOWN_MOVES))
    assert firsts[-1] == {"who": "only A", "more": 25 - decisions.SHOWN_MOVES}
    run_a, run_b = ({"public_id": f"{i}" * 8, "policy": "p", "trial": 0, "seed": 1}
                    for i in (1, 2))
    html = render_to_string("frontend/_decision_compare.html", {"c": {
        "a": run_a, "b": run_b, "found": found, "shown": shown, "problem": ""}})
    assert html.count('<td>only A</td><td>') == decisions.SHOWN_MOVES
    link = "/api/runs/11111111/decisions/divergence/?with=22222222"
    more = f'and {25 - decisions.SHOWN_MOVES} more at this instant (<a href="{link}"'
    assert html.count(more) == 4  # only A, meanwhile B, only B, meanwhile A


def test_a_log_written_out_of_time_order_is_read_in_time_order_as_the_cli_reads_it():
    # parallel-energy writes completions and reservation starts late, with their own earlier
    # t: the pages list, tell and compare by time, as ``explain`` does, and the compare page
    # finds the instant the CLI finds (conservative and easy on small part at 5261.42 s, not
    # at task 7's completion at 5237.39 s, which both made).
    body = create(kind="parallel-energy", preset="small", policies=["conservative", "easy"])
    runs = {r["policy"]: r["id"] for r in body["runs"]}
    cons, easy = (result_of(runs[p]) for p in ("conservative", "easy"))
    written = cons["decisions"]
    in_time = sorted(written, key=lambda x: x["t"])
    assert in_time != written
    api, run = APIClient(), runs["conservative"]
    pages = get(api, run).json()["pages"]
    walked = [x for n in range(1, pages + 1) for x in get(api, run, page=n).json()["decisions"]]
    assert walked == in_time
    completed = get(api, run, action="completed").json()
    assert completed["decisions"] == [x for x in in_time if x["action"] == "completed"][:50]
    task = next(x["task"] for i, x in enumerate(written) if i and x["t"] < written[i - 1]["t"])
    assert get(api, run, task=str(task)).json()["decisions"] == [
        x for x in in_time if x["task"] == task]
    tasks = get(api, run, "tasks/").json()["tasks"]
    firsts: dict = {}
    for x in in_time:
        firsts.setdefault(x["task"], x["t"])
    assert [(r["task"], r["t_first"]) for r in tasks] == list(firsts.items())[:50]
    found = APIClient().get(f"/api/runs/{run}/decisions/divergence/",
                            {"with": runs["easy"]}).json()["found"]
    assert found["first"] == explain.divergence(cons, easy)["first"]
    assert found["first"]["t"] == pytest.approx(5261.4156, abs=1e-3)
    page = Client().get(f"/compare/?run={run}&run={runs['easy']}").content.decode()
    assert 'id="first-divergence-t">5261.42</span>' in page


@functools.cache
def example_run() -> tuple[Run, list]:
    """A finished explained run of swf-example under EASY, as stored, without a database."""
    import scheduling.engine as engine

    result = engine.simulate(engine.preset_scenario("swf-example"), policy="easy", seed=0,
                             explain=True).to_dict()
    blob, info = decisions.packed(result)
    return Run(status=Status.DONE, policy="easy", decisions_gz=blob,
               decisions_info=info), result["decisions"]


@hypothesis.settings(max_examples=60, deadline=None)
@given(actions=st.sets(st.sampled_from(ACTIONS)), pick=st.integers(0, 10**6),
       whole=st.booleans(), size=st.integers(1, 7))
def test_walking_the_pages_of_any_filter_gives_simcores_answer(actions, pick, whole, size):
    run, every = example_run()
    tasks = sorted({d["task"] for d in every})
    task = None if whole else str(tasks[pick % len(tasks)])
    expected = every if task is None else explain.story(every, task)
    expected = explain.of_actions(expected, actions) if actions else expected
    with mock.patch.object(decisions, "PAGE_SIZE", size):  # small pages: many of them
        first = decisions.decisions_page(run, task=task, action=",".join(sorted(actions)))
        walked = [d for n in range(1, first["pages"] + 1) for d in decisions.decisions_page(
            run, task=task, action=",".join(sorted(actions)), page=n)["decisions"]]
        assert first["pages"] == max(1, math.ceil(len(expected) / size))
        with pytest.raises(ScenarioError) as past:
            decisions.decisions_page(run, task=task, action=",".join(sorted(actions)),
                                     page=first["pages"] + 1 + pick % 3)
    assert walked == expected and first["total"] == len(expected)
    assert past.value.field == "page"


def test_two_runs_that_recorded_nothing_are_not_said_to_agree():
    """A kind that does not record decisions yet leaves an empty log: the comparison says so
    rather than finding "the same decisions" in two empty lists."""
    run, _ = example_run()
    meta = {"kind": "swf-replay", "policy": "fcfs", "seed": 0, "scenario": {},
            "decisions": {"tasks_seen": 0, "recorded": 0, "stride": 1, "time_unit": "s"}}
    blob, info = decisions.packed({"meta": meta, "decisions": []})
    empty = Run(status=Status.DONE, policy="fcfs", trial=0, decisions_gz=blob,
                decisions_info=info)
    for a, b in ((empty, run), (run, empty)):
        answer = decisions.compare(a, b)
        assert answer["found"] is None
        assert "recorded no decision: its kind does not record" in answer["problem"]


def test_two_runs_sampled_to_nothing_in_common_are_not_said_to_agree(settings):
    # The outside audit's case: both logs kept no decision at a small limit, the runs'
    # values 7545 and 8969; the API and the page say there was nothing to compare.
    settings.HETSITE_EXPLAIN_LIMIT = 16
    body = create(kind="uav", preset="small-baseline", policies=["max-value", "max-value+p"],
                  base_seed=2)
    a, b = (r["id"] for r in body["runs"])
    assert {r["seed"] for r in body["runs"]} == {2}
    answer = APIClient().get(f"/api/runs/{a}/decisions/divergence/", {"with": b}).json()
    assert answer["found"] is None
    assert answer["problem"].startswith("decisions: nothing to compare: sampled to 1 target in ")
    assert "HETSITE_EXPLAIN_LIMIT" in answer["problem"]
    page = Client().get(f"/compare/?run={a}&run={b}").content.decode()
    assert "nothing to compare" in page and 'id="no-divergence"' not in page
    assert "same decisions" not in page


def test_sampled_runs_that_agree_on_the_kept_tasks_say_only_those_were_compared():
    kept = [k for k in range(1, 40) if bucket(k) % 2 == 0][:2]
    left_out = next(k for k in range(1, 40) if bucket(k) % 2)
    same = [{"t": 0.0, "task": k, "action": "mapped", "reason": "r", "where": 0} for k in kept]
    runs = []
    for policy, extra, value in (("p", [], 1.0), ("q", [left_out], 2.0)):
        ds = same + [{**same[0], "task": k} for k in extra]
        meta = {"kind": "swf-replay", "policy": policy, "seed": 0, "scenario": {},
                "decisions": {"tasks_seen": 3, "recorded": len(ds), "stride": 2,
                              "time_unit": "s"}}
        blob, info = decisions.packed({"meta": meta, "decisions": ds})
        runs.append(Run(status=Status.DONE, policy=policy, trial=0, decisions_gz=blob,
                        decisions_info=info, summary={"value": value}))
    answer = decisions.compare(*runs)
    found = answer["found"]
    assert found["first"] is None and found["same_decisions"] == "kept"
    assert found["summary_differs"] == ["value"] and found["stride"] == 2
    html = render_to_string("frontend/_decision_compare.html", {"c": answer})
    said = re.search(r'<p id="no-divergence">(.*?)</p>', html, re.S).group(1)
    assert said.startswith("The 2 tasks both logs kept made the same decisions; only those "
                           "were compared (the logs kept 1 task in 2; this host&#x27;s "
                           "HETSITE_EXPLAIN_LIMIT")
    assert said.endswith("the runs&#x27; summaries differ (value): they differ in what the "
                         "logs did not keep.")


def test_named_tasks_keep_their_whole_story_in_a_sampled_run(settings):
    """``explain_tasks`` is the lab's ``run --explain-task``: a sampled run keeps the whole
    story of each task it names, the one an unsampled run of the same seed tells."""
    from scheduling.engine import ENGINE
    from simcore.decisions import DecisionLog, bucket

    settings.HETSITE_EXPLAIN_LIMIT = 100
    settings.HETSITE_EXPLAIN_PER_TASK = 16
    scenario = ENGINE.preset_scenario(PRESET)
    whole = ENGINE.simulate(scenario, "easy", seed=0, explain=DecisionLog(limit=10**6))
    sampled = ENGINE.simulate(scenario, "easy", seed=0, explain=DecisionLog(limit=100))
    stride = sampled.meta["decisions"]["stride"]
    left_out = sorted({d["task"] for d in whole.decisions if bucket(d["task"]) % stride})[:3]
    assert len(left_out) == 3 and not any(explain.story(sampled.decisions, t) for t in left_out)
    # one typed as text, as a form or a URL gives it: the log names it by its number
    body = create(policies=["easy"], explain_tasks=[left_out[0], str(left_out[1]), left_out[2]])
    assert body["explain_tasks"] == left_out
    run = body["runs"][0]
    assert run["seed"] == 0
    result = result_of(run["id"])
    assert result["meta"]["decisions"]["always"] == sorted(left_out, key=str)
    assert result["meta"]["decisions"]["stride"] > 1  # still a sample of the others
    client = APIClient()
    for task in left_out:
        story = get(client, run["id"], task=str(task)).json()["decisions"]
        assert story and story == explain.story(whole.decisions, task)
    # an empty story says why, as the CLI does: a task the sampling left out is worth a clone
    # naming it; one the log would have kept (no such task here) is not (the page offered a
    # clone for both)
    stride = result["meta"]["decisions"]["stride"]
    out = next(t for t in range(10**4) if bucket(t) % stride and t not in left_out)
    kept = next(t for t in range(10**6, 2 * 10**6) if bucket(t) % stride == 0)
    answers = {t: get(client, run["id"], task=str(t)).json() for t in (out, kept)}
    assert answers[out]["total"] == 0 == answers[kept]["total"]
    assert (answers[out]["left_out"], answers[kept]["left_out"]) == (True, False)
    assert "left_out" not in get(client, run["id"], task=str(left_out[0])).json()
    # the experiment page says which tasks keep their whole story
    page = Client().get(f"/e/{body['id']}/").content.decode()
    assert re.search(r'id="explain-tasks">whole stories kept: ' +
                     ", ".join(str(t) for t in left_out) + "<", page)
    again = submission.rerun_experiment(Experiment.objects.get(public_id=body["id"]))
    assert again.explain_tasks == left_out


def test_a_task_named_in_odd_digits_is_kept_as_text_not_a_500():
    # "²" passes str.isdigit and int refuses it: the API's explain_tasks once answered 500
    body = create(policies=["easy"], explain_tasks=["\u00b2", "7"])
    assert body["explain_tasks"] == ["\u00b2", 7]


def test_the_form_names_tasks_to_keep_and_a_clone_keeps_them():
    client = Client()
    page = client.get(f"/new/{KIND}/?preset={PRESET}").content.decode()
    assert re.search(r'name="explain_tasks"[^>]*data-show-when="explain"', page)
    # typed while Explain decisions is off (the field hidden): not sent
    response = client.post(f"/new/{KIND}/", preset_form(policies=["easy"], trials=1,
                                                       explain_tasks="12, 40"))
    assert response.status_code == 302
    assert Experiment.objects.get().explain_tasks == []
    Experiment.objects.all().delete()
    response = client.post(f"/new/{KIND}/", preset_form(policies=["easy"], trials=1,
                                                       explain="on",
                                                       explain_tasks="12, 40, 12, target 3"))
    assert response.status_code == 302
    experiment = Experiment.objects.get()
    assert experiment.explain_tasks == [12, 40, "target 3"]
    always = result_of(experiment.runs.get().public_id)["meta"]["decisions"]["always"]
    assert always == [12, 40, "target 3"]
    clone = client.get(f"/new/{KIND}/?clone={experiment.public_id}").content.decode()
    assert re.search(r'name="explain_tasks"[^>]*value="12, 40, target 3"', clone)
    bad = client.post(f"/new/{KIND}/", preset_form(policies=["easy"], trials=1, explain="on",
                                                  explain_tasks="x" * 101))
    assert bad.status_code == 400
    assert "1 to 100 characters" in bad.content.decode()


def test_a_clone_from_a_sampled_out_story_names_the_task():
    """The story of a task the sampling left out links to a clone that keeps it."""
    source = Experiment.objects.get(public_id=create(policies=["easy"], explain=False)["id"])
    client = Client()
    page = client.get(f"/new/{KIND}/?clone={source.public_id}&explain_task=7").content.decode()
    assert re.search(r'<input type="checkbox" name="explain"[^>]* checked', page)
    assert re.search(r'name="explain_tasks"[^>]*value="7"', page)
    assert "keeping task 7&#x27;s whole story" in page
    ignored = client.get(f"/new/{KIND}/?clone={source.public_id}&explain_task={'x' * 101}")
    assert 'name="explain_tasks"' in ignored.content.decode()
    assert not re.search(r'name="explain_tasks"[^>]*value="x', ignored.content.decode())
    assert "keeping task" not in ignored.content.decode()
