"""An outside audit of bad input (ten items): each answer is a 4xx naming the field and keeps
nothing, never a 500, a silent wrong answer or another's secret.

1. sweep ranges too long to count (OverflowError); 2. damaged gzip uploads (EOFError); 3. the
upload list counting others' experiments; 4. NUL and over-long tags; 5. other scripts' digits
in typed numbers; 6. selectors past the experiment (point, page); 7. unknown filters, chart
policies and flags; 8. ``values`` as text; 9. the password-reset pages; 10. forms with more
fields than Django parses.
"""

import gzip
import hashlib
import json
import random
from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from frontend.forms import DecimalNumberField, WholeNumberField
from hetsite.api.serializers import JsonInteger
from hetsite.models import Experiment, Upload
from hetsite.services import submission
from simcore.errors import ScenarioError

pytestmark = pytest.mark.django_db(transaction=True)

GRID = {"kind": "grid", "preset": "grid-small", "policies": ["fcfs"], "trials": 1}
REPLAY = {"kind": "swf-replay", "preset": "swf-small", "policies": ["fcfs", "easy"],
          "trials": 1}
SWF = b"".join(b"%d %d -1 100 2 -1 -1 2 120 -1 1 1 1 1 1 -1 -1 -1\n" % (i, 5 * i)
               for i in range(1, 4000))


@pytest.fixture(autouse=True)
def trace_cache(settings, tmp_path):
    settings.HETSITE_TRACE_CACHE_DIR = tmp_path / "cache"


def form_data(client, kind: str, preset: str, **extra) -> dict:
    """A kind's form as its page fills it in, plus ``extra``."""
    form = client.get(f"/new/{kind}/?preset={preset}").context["form"]
    data = {}
    for name in (*form.param_names, "preset", "trials", "base_seed", "visibility"):
        value = form[name].value()
        if value is True:
            data[name] = "on"
        elif value is not None and value is not False and not isinstance(value, (dict, list)):
            data[name] = value
    data["policies"] = form["policies"].value()[:1]
    data.update(extra)
    return data


def errors_of(response) -> dict[str, str]:
    """The form's price estimate's errors: input id -> message."""
    return {e["id"]: e["message"] for e in response.json()["errors"]}


def sweep(client=None) -> str:
    """A finished two-point sweep (points 0 and 1) of the replay, by the API."""
    body = {**REPLAY, "axes": [{"param": "estimate_scale", "values": [1.0, 2.0]}]}
    response = (client or APIClient()).post("/api/experiments/", body, format="json")
    assert response.status_code == 202, response.content
    return response.json()["id"]


# 1 ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dry_run", [False, True])
@pytest.mark.parametrize("axis", [
    {"start": 1e-300, "stop": 1e300, "factor": 1.0000001},
    {"start": -1e308, "stop": 1e308, "step": 1},
    {"start": 0, "stop": 10**300, "step": 1},
    {"start": 0, "stop": 1, "step": 5e-324},
])
def test_a_sweep_range_too_long_to_count_is_a_400_on_axes(axis, dry_run):
    """Was a 500: math.floor(inf) raised OverflowError."""
    body = {**GRID, "dry_run": dry_run, "axes": [{"param": "jobs.iat_s", **axis}]}
    response = APIClient().post("/api/experiments/", body, format="json")
    assert response.status_code == 400, response.content
    message = response.json()["axes"][0]
    assert "more than" in message and "at most" in message and "HETSITE_MAX_POINTS" in message
    assert not Experiment.objects.exists()


def test_the_forms_price_of_a_range_too_long_to_count_names_the_sweep_values():
    client = Client()
    data = form_data(client, "grid", "grid-small", sweep_param1="jobs.iat_s",
                     sweep_values1="1e-300:1e300:*1.0000001")
    response = client.post("/new/grid/estimate/", data)
    assert response.status_code == 400
    assert "at most" in errors_of(response)["id_sweep_values1"]
    response = client.post("/new/grid/", data)
    assert response.status_code == 400 and "sweep_values1" in response.context["form"].errors
    assert not Experiment.objects.exists()


NUMBER = st.one_of(st.integers(-10**320, 10**320), st.floats(allow_nan=True),
                   st.booleans(), st.text(max_size=5))


@settings(max_examples=300, deadline=None)
@given(start=NUMBER, stop=NUMBER, by=NUMBER, geometric=st.booleans())
def test_any_range_is_values_or_a_scenario_error(start, stop, by, geometric):
    axis = {"param": "x", "start": start, "stop": stop, ("factor" if geometric else "step"): by}
    try:
        values = submission.axis_values(axis, most=200)
    except ScenarioError as err:
        assert err.field == "axes"
    else:
        assert 1 <= len(values) <= 200


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.:*-+eE,infa٣² ", max_size=30))
def test_any_typed_range_is_values_or_a_scenario_error(text):
    try:
        values = submission.axis_values(submission.parse_axis_text("x", text), most=200)
    except ScenarioError as err:
        assert err.field == "axes"
    else:
        assert len(values) <= 200


# 2 ----------------------------------------------------------------------------------------------

def test_a_truncated_gzip_upload_is_a_400_beside_its_file_field():
    """Was a 500: EOFError out of gzip while the upload was checked."""
    packed = gzip.compress(SWF)
    half = SimpleUploadedFile("t.swf.gz", packed[: len(packed) // 2])
    client = Client()
    response = client.post("/new/swf-replay/", form_data(
        client, "swf-replay", "swf-small", trace_file=half))
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-field="trace_file"' in html and "not a whole gzip file" in html
    rng = random.Random(1)  # run times that compress within the upload's ratio limit
    runtimes = gzip.compress(b"".join(b"%.3f\n" % rng.uniform(1, 999) for _ in range(20_000)))
    response = client.post("/new/many-task/", form_data(
        client, "many-task", "many-task-small",
        runtimes_file=SimpleUploadedFile("r.txt.gz", runtimes[: len(runtimes) // 2])))
    assert response.status_code == 400
    html = response.content.decode()
    assert 'data-field="runtimes_file"' in html and "not a whole gzip file" in html
    assert not Experiment.objects.exists() and not Upload.objects.exists()


# 3 ----------------------------------------------------------------------------------------------

def test_the_upload_list_counts_only_the_callers_own_experiments():
    """Bob uploaded the bytes of Alice's private trace: his list said 2 experiments."""
    clients = {}
    for name, visibility in (("alice", "private"), ("bob", "unlisted")):
        clients[name] = Client()
        clients[name].force_login(User.objects.create_user(name))
        page = clients[name].post("/new/swf-replay/", form_data(
            clients[name], "swf-replay", "swf-small", visibility=visibility,
            trace_file=SimpleUploadedFile("t.swf", SWF)))
        assert page.status_code == 302, page.content.decode()[:2000]
    sha = hashlib.sha256(SWF).hexdigest()
    for name in ("alice", "bob"):
        assert [(r["sha256"], r["experiments"]) for r in
                clients[name].get("/api/uploads/").json()] == [(sha, 1)], name
    schema = APIClient().get("/api/schema/?format=json").json()
    assert "own" in schema["components"]["schemas"]["Upload"]["properties"]["experiments"][
        "description"]


# 4 ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("tags, says", [
    (["t\u0000x"], "NUL"), ("a,t\u0000x", "NUL"), (["ok", "x" * 1000], "at most 40 characters"),
    ("y" * 41, "at most 40 characters"), ([f"{i:02d}" + "z" * 38 for i in range(20)], "500"),
])
def test_nul_and_over_long_tags_are_a_400_on_tags(tags, says):
    """NUL was stored (a 500 on PostgreSQL), a 1,000-character tag silently cut to 40."""
    api = APIClient()
    response = api.post("/api/experiments/", {**GRID, "tags": tags}, format="json")
    assert response.status_code == 400 and says in response.json()["tags"][0]
    assert not Experiment.objects.exists()
    created = api.post("/api/experiments/", {**GRID, "tags": "kept"}, format="json").json()
    url = f"/api/experiments/{created['id']}/"
    patch = api.patch(url, {"tags": tags}, format="json")
    assert patch.status_code == 400 and says in patch.json()["tags"][0]
    # The owner's form on the page: refused with the same words, nothing changed.
    browser = Client()
    browser.cookies = api.cookies
    edited = browser.post(f"/e/{created['id']}/edit/", {
        "name": "n", "notes": "", "visibility": "unlisted",
        "tags": tags if isinstance(tags, str) else ",".join(tags)}, follow=True)
    assert "Not saved: tags" in edited.content.decode()
    assert Experiment.objects.get().tags == "kept"


@pytest.mark.parametrize("field, value", [("notes", "a\u0000b"), ("name", "a\u0000b")])
def test_nul_in_the_edit_forms_text_is_refused(field, value):
    """The page's edit form passed name and notes to the service unchecked."""
    api = APIClient()
    created = api.post("/api/experiments/", GRID, format="json").json()
    browser = Client()
    browser.cookies = api.cookies
    form = {"name": "n", "notes": "", "tags": "", "visibility": "unlisted", field: value}
    page = browser.post(f"/e/{created['id']}/edit/", form, follow=True)
    assert f"Not saved: {field}" in page.content.decode()
    assert "\u0000" not in getattr(Experiment.objects.get(), field)


@pytest.mark.parametrize("extra, field", [
    ({"params": {"jobs": {"iat_s": 1.0}, "x\u0000": 1}}, "params"),
    ({"axes": [{"param": "jobs.iat_s", "values": ["a\u0000"]}]}, "axes"),
    ({"explain": True, "explain_tasks": ["a\u0000"]}, "explain_tasks"),
])
def test_nul_anywhere_stored_is_a_400_naming_the_field(extra, field):
    response = APIClient().post("/api/experiments/", {**GRID, **extra}, format="json")
    assert response.status_code == 400 and field in response.json(), response.json()
    assert not Experiment.objects.exists()


# 5 ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("extra, field", [
    ({"trials": "٣"}, "trials"), ({"trials": "²"}, "trials"), ({"trials": "1_0"}, "trials"),
    ({"base_seed": "٣٣"}, "base_seed"), ({"trials": 2.5}, "trials"),
])
def test_the_api_takes_numbers_as_json_numbers_or_ascii_digits(extra, field):
    """"trials": "٣" made 3 trials: text is taken only as digits 0-9."""
    response = APIClient().post("/api/experiments/", {**GRID, **extra}, format="json")
    assert response.status_code == 400 and list(response.json()) == [field], response.json()
    assert not Experiment.objects.exists()


def test_numbers_and_flags_as_text_keep_working_for_the_clients_that_send_them():
    # (a stable interface: DRF always took "3" and "true"; only other scripts' digits go)
    response = APIClient().post("/api/experiments/", {
        **GRID, "trials": "2", "base_seed": "7", "dry_run": "true"}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["runs"] == 2 * len(GRID["policies"])
    assert not Experiment.objects.exists()


def test_a_figure_run_and_added_trials_take_json_numbers_only():
    api = APIClient()
    response = api.post("/api/figures/ch3-quick/run/", {"trials": "٣", "dry_run": True},
                        format="json")
    assert response.status_code == 400 and "trials" in response.json()
    created = api.post("/api/experiments/", GRID, format="json").json()
    more = api.post(f"/api/experiments/{created['id']}/trials/", {"add": "٣"}, format="json")
    assert more.status_code == 400 and "add" in more.json()
    assert Experiment.objects.get().trials == 1


@pytest.mark.parametrize("name, value", [
    ("trials", "٣"), ("base_seed", "٣٣"), ("p.nodes.n_nodes", "٣٣"), ("p.jobs.iat_s", "٣.٥"),
    ("trials", "²"), ("p.nodes.n_nodes", "1_0"), ("p.jobs.iat_s", "1_0.5"),
    ("p.jobs.iat_s", "inf"),
])
def test_the_forms_typed_numbers_are_ascii_digits(name, value):
    client = Client()
    data = form_data(client, "grid", "grid-small", **{name: value})
    response = client.post("/new/grid/estimate/", data)
    assert response.status_code == 400
    assert "digits 0-9" in errors_of(response)[f"id_{name}"]
    assert client.post("/new/grid/", data).status_code == 400
    assert not Experiment.objects.exists()
    ok = client.post("/new/grid/estimate/", form_data(client, "grid", "grid-small", **{
        name: {"trials": "3", "base_seed": "33"}.get(name, "3" if "n_nodes" in name else
                                                     "3.5")}))
    assert ok.status_code == 200, ok.content


TYPED = st.text(alphabet=st.characters(codec="utf-8"), max_size=12) | st.from_regex(
    r"\A[+-]?[0-9٣²]{0,4}[.]?[0-9٣]{0,3}(e[+-]?[0-9]{1,3})?\Z")


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TYPED)
def test_odd_typed_numbers_are_refused_or_ascii(text):
    for field in (WholeNumberField(), DecimalNumberField(), WholeNumberField(min_value=1)):
        try:
            value = field.clean(text)
        except ValidationError:
            continue
        assert text.strip().isascii()
        assert value == (float(text) if isinstance(field, DecimalNumberField) else int(text))


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=8), st.booleans(), st.floats(), st.integers(),
                 st.none(), st.lists(st.integers(), max_size=2)))
def test_a_json_integer_is_a_json_number(value):
    try:
        number = JsonInteger().run_validation(value)
    except Exception as err:  # noqa: BLE001 - DRF's ValidationError (or SkipField for None)
        assert type(err).__name__ in ("ValidationError", "SkipField"), err
    else:
        if isinstance(value, str):  # digits 0-9 only, as typed
            digits = value.strip().removeprefix("-")
            assert digits.isascii() and digits.isdigit() and number == int(value)
        else:
            assert isinstance(value, (int, float)) and not isinstance(value, bool)
            assert number == value


# 6 ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("point", ["99", "2", "-1", "x", "٣", "1.0", " 1"])
def test_a_point_that_is_not_one_of_the_sweeps_is_refused_naming_point(point):
    """Was the whole sweep (page, figures API, points.csv) or its first point (summary)."""
    eid, client = sweep(), Client()
    query = urlencode({"point": point})
    for path in (f"/e/{eid}/", f"/e/{eid}/summary.csv", f"/e/{eid}/summary.tex",
                 f"/e/{eid}/points.csv"):
        response = client.get(f"{path}?{query}")
        assert response.status_code == 404, path
        text = response.content.decode()
        assert 'data-field="point"' in text and "its points are 0 to 1" in text, path
    figure = client.get(f"/api/experiments/{eid}/figures/wait-mean/?{query}")
    assert figure.status_code == 400 and "0 to 1" in figure.json()["point"][0]
    compared = client.get(f"/compare/experiments/?e={eid}:0&e={eid}:{point}")
    assert compared.status_code in (400, 404)
    if compared.status_code == 400:
        assert "point" in compared.context["error"]


def test_a_point_of_the_sweep_is_that_point_everywhere():
    eid, client = sweep(), Client()
    assert "Point 2 of 2" in client.get(f"/e/{eid}/?point=1").content.decode()
    rows = client.get(f"/e/{eid}/points.csv?point=1").content.decode().splitlines()[1:]
    assert len(rows) == 2 and all(r.startswith("1,") for r in rows)  # two policies
    assert client.get(f"/e/{eid}/summary.csv?point=1").status_code == 200
    one = client.get(f"/api/experiments/{eid}/figures/wait-mean/?point=1").json()
    whole = client.get(f"/api/experiments/{eid}/figures/wait-mean/").json()
    assert one != whole
    compared = client.get(f"/compare/experiments/?e={eid}:0&e={eid}:1")
    assert compared.status_code == 200 and len(compared.context["sides"]) == 2
    # ":00" is point 0 again: one side, not a comparison of a point with itself
    assert len(client.get(f"/compare/experiments/?e={eid}:0&e={eid}:00").context["sides"]) == 1


def test_an_experiment_without_a_sweep_has_point_0_only():
    eid = APIClient().post("/api/experiments/", REPLAY, format="json").json()["id"]
    client = Client()
    assert client.get(f"/e/{eid}/?point=0").status_code == 200
    response = client.get(f"/e/{eid}/?point=1")
    assert response.status_code == 404 and "not a sweep" in response.content.decode()
    assert client.get(f"/compare/experiments/?e={eid}:3&e={sweep()}").status_code == 400


@pytest.mark.parametrize("page, status", [("-1", 400), ("²", 400), ("٣", 400), ("x", 400),
                                          ("0", 400), ("9" * 5000, 400), ("99999", 404),
                                          ("1", 200)])
def test_progress_pages_as_the_api_lists_do(page, status):
    """Was page 1 for every one of them."""
    eid = sweep()
    response = APIClient().get(f"/api/experiments/{eid}/progress/?page={page}")
    assert response.status_code == status
    if status == 400:
        assert "page" in response.json()
    if status == 404:
        assert "page 99999" in response.json()["detail"]


def test_the_pages_lists_clamp_a_page_to_the_first_or_last():
    """The pages' rule (documented): a page that is not ASCII digits is the first (``-1``
    was the last, ``٣`` the third), one past the end the last."""
    for i in range(30):
        APIClient().post("/api/experiments/", {**GRID, "visibility": "public",
                                               "name": f"e{i}"}, format="json")
    client = Client()
    for page, shown in (("-1", 1), ("²", 1), ("٣", 1), ("2", 2), ("99", 2)):
        assert client.get(f"/?page={page}").context["page"].number == shown, page


# 7 ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("query, field, known", [
    ("status=bogus", "status", "cancelled"), ("kind=bogus", "kind", "swf-replay"),
    ("mine=maybe", "mine", "true"), ("status=DONE", "status", "done"),
])
def test_an_unknown_list_filter_is_a_400_naming_it_with_the_known_values(query, field, known):
    """Was an empty list, as if nothing matched."""
    response = APIClient().get(f"/api/experiments/?{query}")
    assert response.status_code == 400 and known in response.json()[field][0]


@pytest.mark.parametrize("query, field, known", [
    ("status=bogus", "status", "cancelled"), ("kind=bogus", "kind", "swf-replay"),
    ("status=DONE", "status", "done"),
])
def test_the_home_pages_unknown_filter_says_so_as_the_api_does(query, field, known):
    """Was an empty list ("no experiments"), where the API says 400."""
    response = Client().get(f"/?{query}")
    body = response.content.decode()
    assert response.status_code == 400 and f'data-field="{field}"' in body and known in body
    assert Client().get("/?status=done&kind=grid").status_code == 200


def test_a_known_list_filter_answers():
    APIClient().post("/api/experiments/", {**GRID, "visibility": "public"}, format="json")
    api = APIClient()
    assert len(api.get("/api/experiments/?status=done&kind=grid").json()) == 1
    assert api.get("/api/experiments/?mine=0").status_code == 200
    assert api.get("/api/experiments/?mine=1").json() == []


@pytest.mark.parametrize("query, field", [
    ("policies=nonexistent", "policies"), ("policies=fcfs,nope", "policies"),
    ("side_by_side=²", "side_by_side"), ("side_by_side=2", "side_by_side"),
])
def test_a_charts_unknown_policy_or_flag_is_a_400_naming_it(query, field):
    """Was an empty chart, or side by side silently off."""
    eid = sweep()
    response = APIClient().get(f"/api/experiments/{eid}/figures/wait-mean/?{query}")
    assert response.status_code == 400 and field in response.json()


def test_a_charts_documented_flags_and_policies_answer():
    eid = sweep()
    api = APIClient()
    for query in ("policies=fcfs", "side_by_side=1", "side_by_side=true", "side_by_side=0",
                  "policies=easy,fcfs&side_by_side=yes"):
        assert api.get(f"/api/experiments/{eid}/figures/wait-mean/?{query}").status_code == 200


# 8 ----------------------------------------------------------------------------------------------

def test_axis_values_as_text_say_they_must_be_a_list():
    """Was "give at least one value" for "5:15:5"."""
    response = APIClient().post("/api/experiments/", {
        "kind": "uav", "preset": "small-baseline", "policies": ["random"],
        "axes": [{"param": "targets_mean", "values": "5:15:5"}]}, format="json")
    assert response.status_code == 400
    message = response.json()["axes"][0]
    assert "values must be a list" in message and "start, stop and step" in message
    assert not Experiment.objects.exists()


# 9 ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [
    "/accounts/password_reset/", "/accounts/password_reset/done/",
    "/accounts/reset/MQ/set-password/", "/accounts/reset/done/",
    "/accounts/password_change/", "/accounts/password_change/done/"])
def test_the_password_reset_and_change_pages_are_gone(path):
    """No mail is configured and neither was rate limited: passwords go through the login."""
    client = Client()
    assert client.get(path).status_code == 404
    assert client.post(path, {"email": "a@b.c"}).status_code in (403, 404)  # CSRF or gone


def test_login_and_logout_stay():
    User.objects.create_user("ada", password="pw-123456789")
    client = Client()
    assert client.get("/accounts/login/").status_code == 200
    assert client.post("/accounts/login/", {"username": "ada", "password": "pw-123456789"}
                       ).status_code == 302
    assert client.post("/accounts/logout/").status_code == 302
    assert "_auth_user_id" not in client.session


# 10 ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/new/grid/", "/new/grid/estimate/", "/new/swf-replay/"])
@pytest.mark.parametrize("encoding", ["urlencoded", "multipart"])
def test_a_form_with_more_fields_than_django_parses_says_so(path, encoding, settings):
    """Was Django's bare 400 (TooManyFieldsSent from the CSRF check's read), naming nothing."""
    data = {"trials": "1", "policies": [f"p{i}" for i in range(5000)]}
    client = Client()
    if encoding == "urlencoded":
        response = client.post(path, urlencode(data, doseq=True),
                                content_type="application/x-www-form-urlencoded")
    else:
        response = client.post(path, data)
    assert response.status_code == 400
    text = response.content.decode()
    assert "fields" in text and "1,000" in text and "DATA_UPLOAD_MAX_NUMBER_FIELDS" in text
    assert not Experiment.objects.exists()


def test_a_multipart_form_with_more_files_than_django_takes_says_so():
    files = {f"f{i}": SimpleUploadedFile(f"{i}.swf", b"1") for i in range(6)}
    response = Client().post("/new/swf-replay/", {"trials": "1", **files})
    assert response.status_code == 400
    assert "DATA_UPLOAD_MAX_NUMBER_FILES" in response.content.decode()
    assert not Upload.objects.exists()


def test_a_form_within_the_field_limit_is_read_as_before():
    client = Client()
    data = form_data(client, "grid", "grid-small")
    response = client.post("/new/grid/estimate/", urlencode(data, doseq=True),
                           content_type="application/x-www-form-urlencoded")
    assert response.status_code == 200, response.content
    assert json.loads(response.content)["runs"] == int(data["trials"])


# 8 ----------------------------------------------------------------------------------------------

def test_a_runs_row_keeps_its_timing_figures_not_one_number_per_event():
    """Every run list and detail served ``timing.event_ms``, one number per event: 11 MB of
    JSON a run for a 500,000-job replay, so one anonymous GET of 15 such runs was 160 MB and
    640 MB of the web process's memory. The full result keeps the list."""
    replay = {"kind": "swf-replay", "preset": "swf-small", "policies": ["easy"], "trials": 1}
    body = APIClient().post("/api/experiments/", {**replay, "visibility": "public"},
                            format="json").json()
    run = APIClient().get(f"/api/runs/{body['runs'][0]['id']}/").json()
    full = json.loads(APIClient().get(f"/api/runs/{body['runs'][0]['id']}/result/").getvalue())
    events = full["timing"]["events"]
    assert events > 100 and len(full["timing"]["event_ms"]) == events  # kept in the result
    assert run["timing"]["events"] == events and run["timing"]["cpu_s"] > 0  # the figures
    assert not [k for k, v in run["timing"].items() if isinstance(v, list | dict)]
    listed = APIClient().get(f"/api/experiments/{body['id']}/runs/").json()
    assert "\"event_ms\"" not in json.dumps(listed)


def test_the_migration_drops_the_event_lists_of_stored_runs():
    from importlib import import_module

    from django.apps import apps

    from hetsite.models import Run

    body = APIClient().post("/api/experiments/", GRID, format="json").json()
    row = Run.objects.get(public_id=body["runs"][0]["id"])
    old = {**row.timing, "event_ms": [1.0, 2.0], "cpu_s": 0.5}
    Run.objects.filter(pk=row.pk).update(timing=old)  # as rows were stored before it
    import_module("hetsite.migrations.0013_run_timing_figures").drop_event_lists(apps, None)
    row.refresh_from_db()
    assert row.timing == {k: v for k, v in old.items() if k != "event_ms"}
