"""Rate limits hold across web processes (issue 27, item 3): two real gunicorn servers, one
redis-server as their shared cache. With a cache per process each server allowed the whole
rate, so N servers (or gunicorn workers) allowed N times it."""

import http.cookiejar
import json
import re
import urllib.error
import urllib.parse
import urllib.request

import pytest
import redis
from django.contrib.auth.models import User

from hetsite.models import Experiment

pytestmark = [pytest.mark.realstack, pytest.mark.django_db(transaction=True)]
UAV = {"kind": "uav", "preset": "small-baseline", "policies": ["random"], "trials": 1}


def send(opener, url, data=None, json_body=None):
    headers = {}
    if json_body is not None:
        data, headers = json.dumps(json_body).encode(), {"Content-Type": "application/json"}
    elif data is not None:
        data = urllib.parse.urlencode(data).encode()
    try:
        with opener.open(urllib.request.Request(url, data=data, headers=headers),
                         timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


@pytest.fixture
def two_servers(start_web, redis_url):
    cache = redis_url.rsplit("/", 1)[0] + "/1"  # beside the broker's database 0
    redis.Redis.from_url(cache).flushdb()
    env = {"SHARED_CACHE_URL": cache, "HETSITE_SUBMIT_RATE": "4/min",
           "HETSITE_LOGIN_RATE": "3/15min"}
    return start_web(**env), start_web(**env)


def test_creations_are_counted_once_across_web_processes(two_servers):
    opener = urllib.request.build_opener()  # no cookies: an API script
    codes = [send(opener, f"{server}/api/experiments/", json_body=UAV)[0]
             for server in two_servers * 4]
    assert codes == [202] * 4 + [429] * 4
    assert Experiment.objects.count() == 4


def test_failed_logins_are_counted_once_across_web_processes(two_servers):
    User.objects.create_user("ada", password="right-horse-battery")

    def login(server, password):
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        _, page = send(opener, f"{server}/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        status, body = send(opener, f"{server}/accounts/login/", data={
            "username": "ada", "password": password, "csrfmiddlewaretoken": token})
        return status, body, any(c.name == "sessionid" for c in jar)

    a, b = two_servers
    for server in (a, b, a):
        status, body, logged_in = login(server, "wrong")
        assert status == 200 and not logged_in and "Too many" not in body
    status, body, logged_in = login(b, "right-horse-battery")
    assert not logged_in and "Too many failed logins" in body
