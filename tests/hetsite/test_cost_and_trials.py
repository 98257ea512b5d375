"""Know the cost before you run (``"dry_run": true``) and add trials later
(``POST /api/experiments/<id>/trials/``)."""

import math

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from hetsite import kinds
from hetsite.models import Experiment, Run, Scenario, Status
from hetsite.services import admission, submission
from hetsite.services.execution import refresh_experiment
from simcore.errors import ScenarioError

pytestmark = pytest.mark.django_db(transaction=True)


def body(small, **overrides):
    out = {"kind": small["kind"], "preset": small["preset"], "policies": small["policies"],
           "trials": 2, "base_seed": 5}
    out.update(overrides)
    return out


def counts():
    return Experiment.objects.count(), Run.objects.count(), Scenario.objects.filter(
        is_preset=False).count()


def test_dry_run_prices_like_the_real_submission_and_creates_nothing(small):
    api = APIClient()
    before = counts()
    asked = body(small, trials=3)
    quote = api.post("/api/experiments/", {**asked, "dry_run": True}, format="json")
    assert quote.status_code == 200, quote.content
    q = quote.json()
    assert counts() == before
    assert q["dry_run"] is True and q["admitted"] is True and q["refusal"] is None
    assert q["runs"] == 3 * len(small["policies"])
    # The very estimate admission charges: the same validation, the same cost model.
    sub = submission.validate_submission(kind=small["kind"], preset=small["preset"],
                                         policies=small["policies"], trials=3, base_seed=5)
    assert q["estimated_cpu_s"] == pytest.approx(sub.estimate_s, abs=1e-3)
    assert q["longest_run_s"] == pytest.approx(max(max(r) for r in sub.costs), abs=1e-3)
    assert q["tier"] == "anonymous"
    assert q["budget_s"] == pytest.approx(admission.budget_s("anonymous"))
    assert q["budget_after_s"] == pytest.approx(q["budget_in_use_s"] + q["estimated_cpu_s"])
    assert q["estimated_wall_s"] <= q["estimated_wall_queued_s"]
    assert q["estimated_wall_s"] >= q["longest_run_s"]
    real = api.post("/api/experiments/", asked, format="json")
    assert real.status_code == 202
    assert real.json()["estimate_s"] == pytest.approx(q["estimated_cpu_s"], abs=1e-3)
    assert Run.objects.count() == q["runs"]


def test_dry_run_scales_with_trials_and_says_when_over_budget(small, settings):
    api = APIClient()
    one = api.post("/api/experiments/", body(small, trials=1, dry_run=True), format="json").json()
    four = api.post("/api/experiments/", body(small, trials=4, dry_run=True),
                    format="json").json()
    assert four["runs"] == 4 * one["runs"]
    assert four["estimated_cpu_s"] == pytest.approx(4 * one["estimated_cpu_s"], abs=5e-3)
    settings.HETSITE_BUDGET_ANONYMOUS_S = one["estimated_cpu_s"] * 2
    over = api.post("/api/experiments/", body(small, trials=4, dry_run=True), format="json")
    assert over.status_code == 200
    q = over.json()
    assert q["admitted"] is False and q["refusal"]["field"] == "budget"
    assert any("budget" in w for w in q["warnings"])
    assert Experiment.objects.count() == 0
    # The real submission is refused exactly as the quote said.
    assert api.post("/api/experiments/", body(small, trials=4), format="json").status_code == 400


def test_dry_run_warns_when_a_run_would_pass_the_run_time_limit(small, settings):
    settings.CELERY_TASK_SOFT_TIME_LIMIT = 0
    q = APIClient().post("/api/experiments/", body(small, dry_run=True), format="json").json()
    assert q["run_time_limit_s"] == 0
    assert any("CELERY_TASK_SOFT_TIME_LIMIT" in w for w in q["warnings"])


def test_dry_run_validates_like_a_submission(small):
    bad = APIClient().post("/api/experiments/", body(small, trials=10**6, dry_run=True),
                           format="json")
    assert bad.status_code == 400 and "trials" in bad.json()
    wrong = APIClient().post("/api/experiments/", body(small, dry_run="maybe"), format="json")
    assert wrong.status_code == 400 and "dry_run" in wrong.json()


def test_dry_runs_count_against_the_quote_rate_not_the_creation_rate(small, settings):
    settings.HETSITE_ESTIMATE_RATE = "2/min"
    api = APIClient()
    codes = [api.post("/api/experiments/", body(small, dry_run=True), format="json").status_code
             for _ in range(3)]
    assert codes == [200, 200, 429]
    assert api.post("/api/experiments/", body(small), format="json").status_code == 202


def test_figure_dry_run_and_listing_show_the_cost_at_both_trial_counts():
    api = APIClient()
    listed = api.get("/api/figures/").json()
    figure = next(f for f in listed if f.get("paper_trials"))
    cost = figure["cost"]
    assert cost["default"]["trials"] == figure["trials"]
    sub = submission.figure_submission(figure["name"])
    assert cost["default"]["runs"] == sub.run_count
    assert cost["default"]["estimated_cpu_s"] == pytest.approx(sub.estimate_s, abs=1e-3)
    assert cost["published"]["trials"] == figure["paper_trials"]
    assert cost["published"]["estimated_cpu_s"] == pytest.approx(
        sub.estimate_s * figure["paper_trials"] / figure["trials"], rel=1e-6)
    q = api.post(f"/api/figures/{figure['name']}/run/", {"dry_run": True}, format="json")
    assert q.status_code == 200
    assert q.json()["runs"] == cost["default"]["runs"]
    assert Experiment.objects.count() == 0


# --- add trials -----------------------------------------------------------------------------------

def made(api, small, **overrides):
    response = api.post("/api/experiments/", body(small, **overrides), format="json")
    assert response.status_code == 202, response.content
    return response.json()["id"]


def test_owner_adds_trials_seeds_continue_and_the_summary_grows(small):
    owner = APIClient()
    eid = made(owner, small, trials=2, base_seed=5)
    detail = owner.get(f"/api/experiments/{eid}/").json()
    assert detail["status"] == Status.DONE
    assert all(row["runs"] == 2 for row in detail["summary"].values())
    first_runs = {(r.policy, r.trial): (r.seed, r.summary) for r in Run.objects.all()}
    response = owner.post(f"/api/experiments/{eid}/trials/", {"add": 3}, format="json")
    assert response.status_code == 202, response.content
    after = owner.get(f"/api/experiments/{eid}/").json()
    assert after["trials"] == 5 and after["status"] == Status.DONE  # eager Celery: all ran
    assert all(row["runs"] == 5 for row in after["summary"].values())
    runs = Run.objects.all()
    assert runs.count() == 5 * len(small["policies"])
    for policy in small["policies"]:
        assert sorted(runs.filter(policy=policy).values_list("seed", flat=True)) == [
            5, 6, 7, 8, 9]
    # The first trials are kept as they were, not run again.
    for r in runs.filter(trial__lt=2):
        assert first_runs[(r.policy, r.trial)] == (r.seed, r.summary)
    # The same as running 5 trials at once: the same seeds give the same results.
    fresh = made(owner, small, trials=5, base_seed=5)
    again = owner.get(f"/api/experiments/{fresh}/").json()
    assert again["summary"] == after["summary"]


def test_added_trials_are_priced_by_admission(small, settings):
    owner = APIClient()
    eid = made(owner, small, trials=1)
    experiment = Experiment.objects.get(public_id=eid)
    quote = owner.post(f"/api/experiments/{eid}/trials/", {"add": 2, "dry_run": True},
                       format="json")
    assert quote.status_code == 200
    assert quote.json()["runs"] == 2 * len(small["policies"])
    assert quote.json()["estimated_cpu_s"] == pytest.approx(2 * experiment.estimate_s, abs=2e-3)
    assert Run.objects.count() == len(small["policies"])  # a dry run adds nothing
    settings.HETSITE_BUDGET_ANONYMOUS_S = experiment.estimate_s * 1.5
    refused = owner.post(f"/api/experiments/{eid}/trials/", {"add": 2}, format="json")
    assert refused.status_code == 400 and "budget" in refused.json()
    assert Run.objects.count() == len(small["policies"])
    assert Experiment.objects.get(public_id=eid).trials == 1


@pytest.mark.parametrize("add", [0, -1, "two", 1.5, None])
def test_added_trials_must_be_a_positive_integer(small, add):
    owner = APIClient()
    eid = made(owner, small, trials=1)
    response = owner.post(f"/api/experiments/{eid}/trials/", {"add": add}, format="json")
    assert response.status_code == 400 and "add" in response.json()


def test_added_trials_stay_within_the_limits(small, settings):
    owner = APIClient()
    eid = made(owner, small, trials=2)
    settings.HETSITE_MAX_TRIALS = 4
    response = owner.post(f"/api/experiments/{eid}/trials/", {"add": 3}, format="json")
    assert response.status_code == 400
    assert "HETSITE_MAX_TRIALS" in response.json()["add"][0]
    assert owner.post(f"/api/experiments/{eid}/trials/", {"add": 2},
                      format="json").status_code == 202


def test_only_the_owner_adds_trials(small):
    owner = APIClient()
    eid = made(owner, small, trials=1, visibility="unlisted")
    stranger = APIClient()  # has the link: may read, may not add
    assert stranger.post(f"/api/experiments/{eid}/trials/", {"add": 1},
                         format="json").status_code == 403
    user = User.objects.create_user("mallory", password="pw-mallory-1")
    logged = APIClient()
    logged.force_authenticate(user)
    assert logged.post(f"/api/experiments/{eid}/trials/", {"add": 1},
                       format="json").status_code == 403
    private = made(owner, small, trials=1, visibility="private")
    assert stranger.post(f"/api/experiments/{private}/trials/", {"add": 1},
                         format="json").status_code == 404
    assert Run.objects.count() == 2 * len(small["policies"])
    staff = User.objects.create_user("root", password="pw-root-1", is_staff=True)
    admin = APIClient()
    admin.force_authenticate(staff)
    assert admin.post(f"/api/experiments/{eid}/trials/", {"add": 1},
                      format="json").status_code == 202


def test_a_figure_experiment_grows_toward_its_published_trials(settings):
    figure = min((f for f in kinds.all_figures() if (f.paper_trials or 0) > f.trials),
                 key=lambda f: len(f.policies) * math.prod(len(v) for _, v in f.axes))
    sub = submission.figure_submission(figure.name, trials=1)
    experiment = submission.create_experiment(sub, dispatch=False)
    extra, beyond = submission.added_trials(experiment, figure.paper_trials - 1)
    assert extra.run_count == sub.run_count * (figure.paper_trials - 1)
    assert f"trials > the preset's {figure.trials}" in beyond  # needs a login, as new
    assert submission.added_trials(experiment, figure.trials - 1)[1] == ""
    with pytest.raises(ScenarioError) as err:
        submission.added_trials(experiment, max(figure.paper_trials, settings.HETSITE_MAX_TRIALS))
    assert err.value.field == "add"


# --- the pages ------------------------------------------------------------------------------------

def form_data(client, kind, preset, **fields):
    """The new-experiment form as the page fills it (its initial values), with ``fields``."""
    from frontend.forms import ExperimentForm
    from hetsite.kinds import get_kind

    ui = get_kind(kind)
    params = submission.validate_scenario(kind=kind, preset=preset)
    form = ExperimentForm(ui, initial=ExperimentForm.initial_for(ui, params, preset=preset))
    data = {}
    for name, bound in form.fields.items():
        value = form.initial.get(name, bound.initial)
        if value is None or value is False:
            continue
        if isinstance(value, (dict, list)) and name != "policies":
            import json
            value = json.dumps(value)
        data[name] = "true" if value is True else value
    data.update(fields)
    return data


def test_the_form_endpoint_prices_what_the_form_holds(client, small):
    data = form_data(client, small["kind"], small["preset"], policies=small["policies"],
                     trials=4, base_seed=5)
    response = client.post(f"/new/{small['kind']}/estimate/", data)
    assert response.status_code == 200, response.content
    api = APIClient().post("/api/experiments/", body(small, trials=4, dry_run=True),
                           format="json").json()
    q = response.json()
    assert (q["runs"], q["estimated_cpu_s"]) == (api["runs"], api["estimated_cpu_s"])
    assert counts() == (0, 0, 0)
    bad = client.post(f"/new/{small['kind']}/estimate/", {**data, "trials": 0})
    assert bad.status_code == 400
    assert any(e["id"] == "id_trials" for e in bad.json()["errors"])
    assert client.get(f"/new/{small['kind']}/estimate/").status_code == 405


def test_the_form_endpoint_is_throttled(client, small, settings):
    settings.HETSITE_ESTIMATE_RATE = "1/min"
    url = f"/new/{small['kind']}/estimate/"
    assert client.post(url, {}).status_code == 400  # counted although invalid
    assert client.post(url, {}).status_code == 429


def test_form_bounds_come_from_the_site_limits(client, settings):
    page = client.get("/new/parallel-energy/?preset=small").content.decode()
    sim_h = next(line for line in page.splitlines() if 'name="p.time.sim_h"' in line)
    assert 'max="336"' in sim_h  # the kind's default limit, not the engine's 720
    settings.HETSITE_LIMITS = {"sim_hours": 100}
    page = client.get("/new/parallel-energy/?preset=small").content.decode()
    sim_h = next(line for line in page.splitlines() if 'name="p.time.sim_h"' in line)
    assert 'max="100"' in sim_h and "at most 100 (HETSITE_LIMIT_SIM_HOURS)" in page
    trials = next(line for line in page.splitlines() if 'name="trials"' in line)
    assert f'max="{settings.HETSITE_MAX_TRIALS}"' in trials


def test_the_owner_adds_trials_from_the_page(client, small):
    created = APIClient()
    eid = made(created, small, trials=1)
    experiment = Experiment.objects.get(public_id=eid)
    stranger = client.post(f"/e/{eid}/trials/", {"add": "2"})
    assert stranger.status_code == 403
    owner = created.cookies  # the owner's cookie makes a browser the owner
    client.cookies.update(owner)
    page = client.get(f"/e/{eid}/").content.decode()
    assert 'id="add-trials-form"' in page
    response = client.post(f"/e/{eid}/trials/", {"add": "2"}, follow=True)
    assert response.status_code == 200
    experiment.refresh_from_db()
    assert experiment.trials == 3 and experiment.status == Status.DONE
    assert "Added 2 trials" in response.content.decode()
    assert all(row["runs"] == 3 for row in experiment.summary)
    # The exports read the new runs too.
    import csv
    import io

    def read_csv(url):
        response = client.get(url)  # the runs export streams
        body = b"".join(response.streaming_content) if response.streaming else response.content
        return list(csv.DictReader(io.StringIO(body.decode())))

    runs = read_csv(f"/e/{eid}/runs.csv")
    assert sorted(int(r["seed"]) for r in runs) == sorted([5, 6, 7] * len(small["policies"]))
    assert [int(r["runs"]) for r in read_csv(f"/e/{eid}/summary.csv")] == [3] * len(
        small["policies"])
    bad = client.post(f"/e/{eid}/trials/", {"add": "x"}, follow=True)
    assert "whole number" in bad.content.decode()


def test_the_figures_page_shows_each_presets_cost(client):
    import re

    listed = {f["name"]: f["cost"] for f in APIClient().get("/api/figures/").json()}
    page = client.get("/figures/").content.decode()  # the API waited for every cost
    shown = re.findall(r'<p class="small figure-cost" data-figure="([^"]+)">(.*?)</p>', page,
                       re.S)
    assert {name for name, _ in shown} == set(listed)
    for name, text in shown:
        sizes = re.findall(r'data-trials="(\d+)" data-runs="(\d+)" data-cpu-s="([\d.]+)"', text)
        cost = listed[name]
        expected = [cost["default"]] + ([cost["published"]] if cost["published"] and
                                        cost["published"]["trials"] != cost["default"]["trials"]
                                        else [])
        assert [(int(t), int(r), float(c)) for t, r, c in sizes] == [
            (c["trials"], c["runs"], pytest.approx(c["estimated_cpu_s"])) for c in expected]
        assert f"{cost['default']['runs']} runs" in text


def test_a_cancelled_experiment_grows_only_once_its_runs_have_stopped(small):
    sub = submission.validate_submission(kind=small["kind"], preset=small["preset"],
                                         policies=small["policies"], trials=1)
    experiment = submission.create_experiment(sub, dispatch=False)
    running = experiment.runs.first()
    Run.objects.filter(pk=running.pk).update(status=Status.RUNNING)  # a worker has it
    experiment = submission.cancel_experiment(experiment)
    assert experiment.status == Status.RUNNING and experiment.cancel_requested
    with pytest.raises(admission.Refused) as err:
        submission.add_trials(experiment, 1)
    assert err.value.status == 409 and Run.objects.count() == len(small["policies"])
    Run.objects.filter(pk=running.pk).update(status=Status.CANCELLED)  # it stopped ...
    experiment = refresh_experiment(experiment.pk)  # ... and said so, as its worker does
    assert experiment.status == Status.CANCELLED
    experiment = submission.add_trials(experiment, 2)
    assert not experiment.cancel_requested and experiment.trials == 3
    new = Run.objects.filter(trial__gte=1)
    assert new.count() == 2 * len(small["policies"])
    assert set(new.values_list("status", flat=True)) == {Status.DONE}  # dispatched, eager
    # The cancelled trial stays cancelled, and says so.
    assert Experiment.objects.get(pk=experiment.pk).status == Status.CANCELLED
