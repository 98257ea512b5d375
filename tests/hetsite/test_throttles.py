"""Rate limits (issue 27, item 3): who a client is, what is counted, and the window's bounds.

The same limits counted by separate web processes through one Redis are in
test_shared_limits.py.
"""

import gzip

import pytest
from django.contrib.auth.models import User
from django.core.cache import caches
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from hetsite.models import Experiment, Scenario, Upload

pytestmark = pytest.mark.django_db(transaction=True)
UAV = {"kind": "uav", "preset": "small-baseline", "policies": ["random"], "trials": 1}
SWF = b"; MaxProcs: 4\n1 0 -1 100 2 -1 -1 2 120 -1 1 1 1 1 1 -1 -1 -1\n"


def create(api, **headers):
    return api.post("/api/experiments/", UAV, format="json", **headers).status_code


def test_a_rotating_x_forwarded_for_does_not_escape_the_limit(settings):
    """The issue's attack: 60 posts, each with a new X-Forwarded-For, all passed."""
    settings.HETSITE_SUBMIT_RATE = "5/min"
    api = APIClient()
    codes = [create(api, HTTP_X_FORWARDED_FOR=f"203.0.113.{i}") for i in range(12)]
    assert codes == [202] * 5 + [429] * 7
    assert Experiment.objects.count() == 5


def test_behind_trusted_proxies_the_client_is_the_address_they_saw(settings):
    """With one proxy, the last X-Forwarded-For entry is the client (the proxy appended it);
    what the client wrote before it changes nothing."""
    settings.HETSITE_SUBMIT_RATE = "2/min"
    settings.HETSITE_TRUSTED_PROXIES = 1
    api = APIClient()
    spoofed = [create(api, HTTP_X_FORWARDED_FOR=f"10.9.9.{i}, 198.51.100.7") for i in range(3)]
    assert spoofed == [202, 202, 429]
    # Another client behind the same proxy has its own count.
    assert create(api, HTTP_X_FORWARDED_FOR="198.51.100.8") == 202
    # IPv6 clients count per /64: rotating the low bits is the same client.
    assert [create(api, HTTP_X_FORWARDED_FOR=f"2001:db8::{i}") for i in range(3)] == [
        202, 202, 429]


def test_saved_scenarios_count_against_the_creation_rate(settings):
    settings.HETSITE_SUBMIT_RATE = "3/min"
    api = APIClient()
    body = {"kind": "uav", "name": "mine", "preset": "small-baseline"}
    codes = [api.post("/api/scenarios/", body, format="json").status_code for _ in range(5)]
    assert codes == [201, 201, 201, 429, 429]
    assert create(api) == 429  # one budget for every kind of creation
    assert Scenario.objects.filter(name="mine").count() == 3


def post_replay(client, upload=None, policies=("fcfs",)):
    data = {"p.trace": "lublin_256_small", "policies": list(policies), "trials": 1,
            "base_seed": 0, "p.cores_per_node": 1, "p.estimate_scale": 1.0,
            "p.use_requested_time": "on", "p.job_limit": 0, "p.bsld_tau": 10.0,
            "p.series_points": 3000}
    if upload is not None:
        data["trace_file"] = upload
    return client.post("/new/swf-replay/", data)


def test_uploaded_files_have_their_own_rate_and_are_dropped_unread(settings, tmp_path):
    settings.HETSITE_UPLOAD_RATE = "2/h"
    settings.HETSITE_TRACE_CACHE_DIR = tmp_path
    client = Client()
    for i in range(2):
        body = SWF.replace(b"100 2", f"{101 + i} 2".encode())
        assert post_replay(client, SimpleUploadedFile("t.swf", body)).status_code == 302
    third = post_replay(client, SimpleUploadedFile("t.swf.gz", gzip.compress(SWF)))
    assert third.status_code == 429
    html = third.content.decode()
    assert 'data-field="trace_file"' in html and "Too many uploaded files" in html
    assert Upload.objects.count() == 2 and Experiment.objects.count() == 2
    # The form without a file is no upload: it still runs.
    assert post_replay(client).status_code == 302


def test_password_guessing_is_refused_even_with_the_right_password(settings):
    """The issue's attempt: 25 wrong passwords, then the right one, went through."""
    User.objects.create_user("ada", password="right-horse-battery")
    client = Client(REMOTE_ADDR="192.0.2.10")
    for i in range(25):
        response = client.post("/accounts/login/", {"username": "ada", "password": f"x{i}"})
        assert response.status_code == 200
    response = client.post("/accounts/login/", {"username": "ada",
                                                 "password": "right-horse-battery"})
    assert response.status_code == 200 and "_auth_user_id" not in client.session
    assert "Too many failed logins" in response.content.decode()
    # From another address the account is locked too (the guesser may rotate addresses) ...
    other = Client(REMOTE_ADDR="192.0.2.99")
    assert other.post("/accounts/login/", {"username": "ada", "password": "right-horse-battery"}
                      ).status_code == 200
    # ... the admin's login is the same gate ...
    admin = other.post("/admin/login/", {"username": "ada", "password": "right-horse-battery"})
    assert "Too many failed logins" in admin.content.decode()
    # ... and another account from a clean address is not affected.
    User.objects.create_user("bob", password="right-horse-battery")
    assert other.post("/accounts/login/", {"username": "bob",
                                           "password": "right-horse-battery"}).status_code == 302


def test_the_limit_is_per_account_and_per_address(settings):
    settings.HETSITE_LOGIN_RATE = "3/15min"
    for name in ("u1", "u2", "u3", "u4"):
        User.objects.create_user(name, password="right-horse-battery")
    guesser = Client(REMOTE_ADDR="192.0.2.50")
    for name in ("u1", "u2", "u3"):  # one wrong password for each of three accounts
        guesser.post("/accounts/login/", {"username": name, "password": "wrong"})
    # The address has failed three times: even a right password for a fourth account waits.
    response = guesser.post("/accounts/login/", {"username": "u4",
                                                 "password": "right-horse-battery"})
    assert response.status_code == 200 and "Too many failed logins" in response.content.decode()


def test_an_unreachable_limiter_refuses_writes_with_503(settings, dead_redis_url):
    settings.CACHES = {**settings.CACHES, "shared": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": dead_redis_url}}
    response = APIClient().post("/api/experiments/", UAV, format="json")
    assert response.status_code == 503 and "rate limiter" in response.json()["detail"]
    assert Experiment.objects.count() == 0
    assert APIClient().get("/api/experiments/").status_code == 200  # reads need no limiter


@pytest.mark.parametrize("text, count, seconds", [
    ("30/min", 30, 60), ("20/h", 20, 3600), ("10/15min", 10, 900), ("5/day", 5, 86400),
    ("100000/minute", 100000, 60)])
def test_rates_are_read_like_the_readme_says(text, count, seconds):
    from hetsite.throttles import Rate

    assert Rate.parse(text) == Rate(count, seconds)


@pytest.mark.parametrize("text", ["30", "30/fortnight", "x/min", "3/0min", ""])
def test_a_malformed_rate_names_itself(text):
    from django.core.exceptions import ImproperlyConfigured

    from hetsite.throttles import Rate

    with pytest.raises(ImproperlyConfigured, match="must look like 30/min"):
        Rate.parse(text, "HETSITE_SUBMIT_RATE")


WINDOW = 60.0


@hsettings(max_examples=60, deadline=None)
@given(count=st.integers(4, 12),
       gaps=st.lists(st.floats(0.0, 3 * WINDOW), min_size=1, max_size=80),
       start=st.floats(0, 1e6))
def test_the_window_never_lets_more_than_twice_the_rate_through_and_never_stops_a_steady_pace(
        count, gaps, start):
    """Over any span of one window, at most twice the rate is accepted whatever the timing
    (the estimate's worst case: a burst at the end of one window, another in the next); and a
    client that keeps at least two window-lengths/rate between requests is never refused."""
    from hetsite.throttles import Limit

    caches["shared"].clear()  # a new timeline for every example
    limit = Limit("create")
    with override_settings(HETSITE_SUBMIT_RATE=f"{count}/min"):
        times, accepted = start, []
        for gap in gaps:
            times += gap
            if limit.take("burst", now=times) is None:
                accepted.append(times)
        steady = start
        for _ in range(3 * count):
            steady += 2 * WINDOW / count
            assert limit.take("steady", now=steady) is None
    for i, t in enumerate(accepted):
        within = [u for u in accepted[i:] if u < t + WINDOW]
        assert len(within) <= 2 * count
