"""Issue 27 (2): every submission is priced by its kind's cost estimate; an account may have at
most its tier's budget of work and cap of runs queued; figure presets beyond the site's
ordinary sizes need a login. Experiments here are stored, never simulated (the dispatcher is
switched off), so the refusals and acceptances are about admission alone."""

import pytest
from django.contrib.auth.models import User
from rest_framework.test import APIClient

from hetsite import kinds
from hetsite.models import Experiment, Run, Status
from hetsite.services import submission

pytestmark = pytest.mark.django_db

CH3_HUGE = {"kind": "parallel-energy", "preset": "ch3-10k", "policies": ["easy", "max-upe-ph"],
            "trials": 100, "params": {"workload": {"tasks_per_day": 100_000},
                                      "time": {"sim_h": 336}}}
UAV = {"kind": "uav", "preset": "small-baseline", "policies": ["random"], "trials": 2}


@pytest.fixture(autouse=True)
def stored_not_run(monkeypatch):
    monkeypatch.setattr(submission.dispatcher, "dispatch", lambda: 0)


def client(user=None) -> APIClient:
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    return api


@pytest.fixture
def alice():
    return User.objects.create_user("alice", password="pw-alice-123")


@pytest.fixture
def staff():
    return User.objects.create_user("root", password="pw-root-123", is_staff=True)


def test_a_submission_over_the_anonymous_budget_is_a_400_naming_estimate_and_budget(settings):
    response = client().post("/api/experiments/", CH3_HUGE, format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    expected = submission.validate_submission(**CH3_HUGE).estimate_s
    assert body["estimate_s"] == pytest.approx(expected, rel=1e-6)
    assert body["budget_s"] == settings.HETSITE_BUDGET_ANONYMOUS_S
    message = body["budget"][0]
    assert f"{expected / 3600:,.1f} worker-hours" in message
    assert "HETSITE_BUDGET_ANONYMOUS_S" in message and "Log in" in message
    assert Experiment.objects.count() == 0 and Run.objects.count() == 0


def test_budgets_grow_with_the_tier(alice, staff, settings):
    # ~918 worker-hours: over a user's budget too; staff have none.
    response = client(alice).post("/api/experiments/", CH3_HUGE, format="json")
    assert response.status_code == 400
    assert response.json()["budget_s"] == settings.HETSITE_BUDGET_USER_S
    assert "HETSITE_BUDGET_USER_S" in response.json()["budget"][0]
    response = client(staff).post("/api/experiments/", CH3_HUGE, format="json")
    assert response.status_code == 202, response.content
    experiment = Experiment.objects.get()
    assert experiment.account == f"user:{staff.pk}"
    assert experiment.estimate_s == pytest.approx(sum(r.cost for r in experiment.runs.all()))


def test_the_budget_counts_work_already_queued(settings):
    one = submission.validate_submission(**UAV).estimate_s
    settings.HETSITE_BUDGET_ANONYMOUS_S = one * 2.5  # two fit, a third does not
    api = client()
    assert api.post("/api/experiments/", UAV, format="json").status_code == 202
    assert api.post("/api/experiments/", UAV, format="json").status_code == 202
    third = api.post("/api/experiments/", UAV, format="json")
    assert third.status_code == 400
    assert third.json()["queued_s"] == pytest.approx(2 * one, abs=1e-3)
    assert "of yours are queued or running" in third.json()["budget"][0]
    # Another client address is another account, with its own budget.
    other = APIClient(REMOTE_ADDR="10.9.8.7")
    assert other.post("/api/experiments/", UAV, format="json").status_code == 202
    # Finished work no longer counts.
    Run.objects.update(status=Status.DONE)
    assert api.post("/api/experiments/", UAV, format="json").status_code == 202


def test_a_cookie_of_its_own_does_not_make_a_new_account(settings):
    """Anonymous callers are charged by client address: dropping the owner cookie between
    posts (a fresh APIClient) does not reset the cap."""
    settings.HETSITE_QUEUE_CAP_ANONYMOUS = 3
    assert client().post("/api/experiments/", UAV, format="json").status_code == 202
    response = client().post("/api/experiments/", UAV, format="json")
    assert response.status_code == 429
    body = response.json()
    assert (body["queued_runs"], body["runs"], body["cap"]) == (2, 2, 3)
    assert "HETSITE_QUEUE_CAP_ANONYMOUS" in body["queue"][0]
    assert Experiment.objects.count() == 1


@pytest.mark.parametrize("figure", ["many-task-fig6-real15k", "ch5-fig-47"])
def test_figures_at_published_size_need_a_login(figure, alice):
    response = client().post(f"/api/figures/{figure}/run/", {}, format="json")
    assert response.status_code == 403, response.content
    assert "logged-in" in response.json()["figure"][0]
    assert Experiment.objects.count() == 0
    response = client(alice).post(f"/api/figures/{figure}/run/", {}, format="json")
    assert response.status_code == 202, response.content
    spec = kinds.get_figure(figure)
    points = 1
    for _, values in spec.axes:
        points *= len(values)
    assert Experiment.objects.get().runs.count() == points * len(spec.policies) * spec.trials


def test_every_figure_preset_at_its_size_fits_a_logged_in_account(settings):
    """What a logged-in user may queue at once (runs and priced work) holds any one figure
    preset at its own size, so "log in to run it" is never a dead end."""
    for figure in kinds.all_figures():
        sub = submission.figure_submission(figure.name)
        assert sub.run_count <= settings.HETSITE_QUEUE_CAP_USER, figure.name
        assert sub.estimate_s <= settings.HETSITE_BUDGET_USER_S, figure.name


def test_more_trials_than_a_figure_preset_has_need_a_login(alice):
    trials = kinds.get_figure("ch3-fig26").trials
    response = client().post("/api/figures/ch3-fig26/run/", {"trials": 48}, format="json")
    assert response.status_code == 403
    assert f"48 trials > the preset's {trials}" in response.json()["figure"][0]
    assert client(alice).post("/api/figures/ch3-fig26/run/", {"trials": 48},
                              format="json").status_code == 202


def test_every_scaled_figure_preset_stays_open_to_anonymous_callers():
    """Each figure preset at its own size that fits the site's ordinary limits is accepted
    from an anonymous caller with nothing queued; one beyond them only by its trials is
    accepted at the most trials the ordinary limits allow."""
    site = submission.limits()
    at_size = fewer = 0
    for n, figure in enumerate(kinds.all_figures()):
        sub = submission.figure_submission(figure.name)
        body = {}
        if sub.beyond_site_limits:
            per_trial = len(sub.points) * len(sub.policies)
            if len(sub.points) > site["max_points"] or per_trial > site["max_runs"]:
                continue
            body = {"trials": min(site["max_trials"], site["max_runs"] // per_trial)}
            fewer += 1
        else:
            at_size += 1
        Experiment.objects.all().delete()
        response = APIClient(REMOTE_ADDR=f"10.0.{n // 250}.{n % 250}").post(
            f"/api/figures/{figure.name}/run/", body, format="json")
        assert response.status_code == 202, (figure.name, body, response.content)
    assert at_size >= 30 and at_size + fewer >= 50


@pytest.mark.parametrize("proxies", [0, 1])
def test_a_rotating_x_forwarded_for_does_not_escape_the_budget_or_the_queue_cap(proxies,
                                                                              settings):
    """An anonymous account is the client address as the trusted-proxy rule reads it (the
    throttle's): a client writing a new X-Forwarded-For into every post, in front of the
    proxy's own entry when one proxy is trusted, stays one account with one budget and one
    queue cap. The throttle is raised out of the way: the refusals here are admission's."""
    settings.HETSITE_SUBMIT_RATE = "1000/min"
    settings.HETSITE_TRUSTED_PROXIES = proxies
    proxy_saw = ", 198.51.100.7" if proxies else ""

    def post(i: int, client_hop: str = ""):
        headers = {"HTTP_X_FORWARDED_FOR": client_hop or f"203.0.113.{i}{proxy_saw}"}
        return client().post("/api/experiments/", UAV, format="json", **headers)

    one = submission.validate_submission(**UAV).estimate_s
    settings.HETSITE_BUDGET_ANONYMOUS_S = one * 2.5  # two experiments fit, a third does not
    codes = [post(i).status_code for i in range(5)]
    assert codes == [202, 202, 400, 400, 400]
    assert Experiment.objects.values("account").distinct().count() == 1

    Run.objects.update(status=Status.DONE)  # the budget is free again; now the queue cap
    settings.HETSITE_BUDGET_ANONYMOUS_S = one * 1000
    settings.HETSITE_QUEUE_CAP_ANONYMOUS = 5  # two experiments of two runs fit, a third not
    codes = [post(10 + i).status_code for i in range(5)]
    assert codes == [202, 202, 429, 429, 429]
    assert Experiment.objects.count() == 4
    # Another client is another account: behind the proxy, a different address it saw;
    # without one, a different peer.
    other = (post(0, client_hop="198.51.100.8") if proxies else APIClient(
        REMOTE_ADDR="10.9.8.7").post("/api/experiments/", UAV, format="json"))
    assert other.status_code == 202, other.content
    assert Experiment.objects.values("account").distinct().count() == 2
