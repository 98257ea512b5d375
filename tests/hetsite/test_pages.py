"""Server-rendered pages through Django's test client (the browser path is in tests/e2e)."""

import csv
import io
import json

import pytest
from django.test import Client

from hetsite import kinds
from hetsite.models import Experiment, Run, Status
from hetsite.services import submission

# Transactional: runs are dispatched when the experiment commits (transaction.on_commit).
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def client():
    return Client()


def form_data(client, small, **changes):
    """The new-experiment form's own initial values, as a browser would post them."""
    page = client.get(f"/new/{small['kind']}/?preset={small['preset']}")
    assert page.status_code == 200
    form = page.context["form"]
    data = {}
    for name, field in form.fields.items():
        value = form[name].value()
        if name == "policies":
            continue
        if getattr(field, "json_type", None) == "json":
            data[name] = json.dumps(value) if not isinstance(value, str) else value
        elif getattr(field, "json_type", None) == "bool":
            if value:
                data[name] = "on"
        elif value is not None:
            data[name] = value
    data["policies"] = small["policies"]
    data["trials"] = 1
    data.update(changes)
    return data


def test_home_lists_public_experiments_and_leads_with_new_experiment(client, small):
    submission.create_experiment(submission.validate_submission(
        kind=small["kind"], preset=small["preset"], policies=small["policies"], trials=1,
        name="first one", visibility="public"))
    submission.create_experiment(submission.validate_submission(
        kind=small["kind"], preset=small["preset"], policies=small["policies"], trials=1,
        name="hidden from lists"))
    html = client.get("/").content.decode()
    assert "first one" in html and "hidden from lists" not in html
    assert html.index('id="new-experiment"') < html.index('id="experiments"')
    assert f"/new/{small['kind']}/?preset={small['preset']}" in client.get("/new/").content.decode()


def test_form_shows_units_ranges_and_policy_descriptions(client, small):
    page = client.get(f"/new/{small['kind']}/?preset={small['preset']}")
    html = page.content.decode()
    ui = kinds.get_kind(small["kind"])
    for policy in ui.engine.list_policies(small["kind"]):
        assert policy.description in html or policy.description[:40] in html
    assert "allowed:" in html and "Advanced parameters" in html


def test_the_preset_page_shows_its_whole_description_and_source(client):
    """Caveats live in the description (e.g. the UAV example's unpublished windows) and the
    picker truncates it, so the page prints it whole with its source."""
    from uav.engine import get_preset

    preset = get_preset("example-tables-9-10")
    html = client.get("/new/uav/?preset=example-tables-9-10").content.decode()
    assert "does not publish the example&#x27;s surveillance windows" in html
    assert "Tables 9/10" in html and preset.source.split(" (")[0] in html


def test_valid_post_creates_and_redirects_to_share_page(client, small):
    response = client.post(f"/new/{small['kind']}/", form_data(client, small))
    assert response.status_code == 302, response.content.decode()[:3000]
    experiment = Experiment.objects.get()
    assert response["Location"] == f"/e/{experiment.public_id}/"
    page = client.get(response["Location"])
    html = page.content.decode()
    assert experiment.status == Status.DONE or page.status_code == 200
    assert 'id="summary-table"' in html and "figures-data" in html
    figures = page.context["figures"]
    assert figures and all(f["figure"]["data"] is not None for f in figures)


def test_invalid_post_shows_error_beside_field_and_creates_nothing(client, small):
    data = form_data(client, small, trials=0)
    response = client.post(f"/new/{small['kind']}/", data)
    assert response.status_code == 400
    assert 'data-field="trials"' in response.content.decode()
    data = form_data(client, small)
    data.pop("policies")
    response = client.post(f"/new/{small['kind']}/", data)
    assert 'data-field="policies"' in response.content.decode()
    assert Experiment.objects.count() == 0 and Run.objects.count() == 0


def test_engine_rule_errors_land_on_the_named_parameter(client, small):
    """A value the engine rejects (not Django's field validation) shows beside its field."""
    ui = kinds.get_kind(small["kind"])
    page = client.get(f"/new/{small['kind']}/?preset={small['preset']}")
    form = page.context["form"]
    target = next(n for n in form.param_names
                  if form.fields[n].json_type == "json" and form[n].value() not in (None, []))
    data = form_data(client, small, **{target: json.dumps("not the right shape")})
    response = client.post(f"/new/{small['kind']}/", data)
    assert response.status_code == 400
    assert f'data-field="{target}"' in response.content.decode()
    assert Experiment.objects.count() == 0
    assert ui is not None


def test_clone_prefills_the_form(client, small):
    experiment = submission.create_experiment(submission.validate_submission(
        kind=small["kind"], preset=small["preset"], policies=small["policies"][:1],
        trials=2, base_seed=42, name="orig"))
    page = client.get(f"/new/{small['kind']}/?clone={experiment.public_id}")
    form = page.context["form"]
    assert form["policies"].value() == small["policies"][:1]
    assert form["trials"].value() == 2 and form["base_seed"].value() == 42
    assert form["name"].value() == ""  # a fresh name, made from the new choices on submit


def test_exports(client, small):
    experiment = submission.create_experiment(submission.validate_submission(
        kind=small["kind"], preset=small["preset"], policies=small["policies"], trials=1))
    rows = list(csv.reader(io.StringIO(
        client.get(f"/e/{experiment.public_id}/runs.csv").getvalue().decode())))
    assert rows[0][:7] == ["kind", "experiment", "run", "policy", "trial", "seed", "status"]
    assert len(rows) == 1 + len(small["policies"])
    run = experiment.runs.first()
    tasks = list(csv.reader(io.StringIO(
        client.get(f"/r/{run.public_id}/tasks.csv").getvalue().decode())))
    assert len(tasks) > 1
    full = json.loads(client.get(f"/r/{run.public_id}/result.json").getvalue())
    assert full["summary"] == run.summary


def test_compare_pages(client, small):
    experiment = submission.create_experiment(submission.validate_submission(
        kind=small["kind"], preset=small["preset"], policies=small["policies"], trials=1))
    page = client.get(f"/e/{experiment.public_id}/compare/?"
                      + "&".join(f"p={p}" for p in small["policies"]))
    assert page.status_code == 200 and page.context["figures"]
    runs = list(experiment.runs.all())
    page = client.get("/compare/?" + "&".join(f"run={r.public_id}" for r in runs))
    assert page.status_code == 200
    assert len(page.context["figures"]) >= 2


def test_cancel_and_delete_pages_need_the_owner(client, small):
    experiment = submission.create_experiment(submission.validate_submission(
        kind=small["kind"], preset=small["preset"], policies=small["policies"], trials=1))
    response = client.post(f"/e/{experiment.public_id}/delete/")
    assert response.status_code == 403  # an ownerless experiment: staff only
    assert Experiment.objects.filter(pk=experiment.pk).exists()


def test_list_parameters_with_item_choices_post_back_as_lists(client):
    """A list whose items have choices (value-of-service's usage periods) is a JSON field, so
    the form's own initial values post back valid."""
    vos = {"kind": "value-of-service", "preset": "vos-testbed-w2-20",
           "policies": ["simple-dp"]}
    page = client.get(f"/new/{vos['kind']}/?preset={vos['preset']}")
    field = page.context["form"].fields["p.arrivals.phases"]
    assert field.json_type == "json"
    response = client.post(f"/new/{vos['kind']}/",
                           form_data(client, vos, **{"p.workload.tasks_min": 10}))
    assert response.status_code == 302, response.content.decode()[:3000]
    experiment = Experiment.objects.get()
    assert experiment.scenario.params["arrivals"]["phases"] == ["high", "high", "high"]


def test_the_form_shows_a_refusal_over_budget(client, small, settings):
    settings.HETSITE_BUDGET_ANONYMOUS_S = 0.01
    response = client.post(f"/new/{small['kind']}/", form_data(client, small))
    assert response.status_code == 400
    html = response.content.decode()
    assert "estimated at" in html and "HETSITE_BUDGET_ANONYMOUS_S" in html
    assert Experiment.objects.count() == 0
