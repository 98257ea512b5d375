"""Locust users for the load test (run by benchmarks/load_stack.py, or by hand with
``locust -f benchmarks/load/locustfile.py --host http://127.0.0.1:8000``).

Every user is an anonymous client with its own cookie jar and its own loopback address
(127.0.0.2 to 127.0.0.251, so the site sees many clients, as behind no proxy; all of them
127.0.0.2 with HETSITE_LOAD_SHARED_ADDRESS=1): it creates small experiments, renames some of
them, polls their progress, and reads pages, lists, results and charts. Like a browser it
keeps the owner cookie the site gives it, so its writes carry the CSRF token: it opens a form
first (the ``csrftoken`` cookie) and sends the cookie's value in ``X-CSRFToken``.
Expected refusals (400 over budget, 429 throttled or over the queue cap) count as successes
and are tallied by status; anything else (a 403 for a missing token, 5xx above all) is a
failure.
"""

from __future__ import annotations

import itertools
import os
import random
import threading

from locust import HttpUser, between, events, task
from requests.adapters import HTTPAdapter

ADDRESSES = itertools.count()
_lock = threading.Lock()
STATUSES: dict[str, int] = {}  # "POST experiments 429": count, written at the end
EXPERIMENTS = [
    {"kind": "uav", "preset": "small-baseline", "policies": ["random", "rbs"], "trials": 2},
    {"kind": "uav", "preset": "small-baseline", "policies": ["max-value"], "trials": 3},
    {"kind": "swf-replay", "preset": "swf-small", "policies": ["fcfs", "easy"], "trials": 1},
    {"kind": "grid", "preset": "grid-small", "policies": ["fcfs"], "trials": 2},
]


class SourceAddress(HTTPAdapter):
    """Connections from one loopback address of the client's own."""

    def __init__(self, address: str):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args, **kwargs):
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


def tally(name: str, status: int) -> None:
    with _lock:
        key = f"{name} {status}"
        STATUSES[key] = STATUSES.get(key, 0) + 1


class Anonymous(HttpUser):
    wait_time = between(0.5, 2.0)

    def on_start(self):
        with _lock:
            n = next(ADDRESSES)
        # HETSITE_LOAD_SHARED_ADDRESS=1: every client behind one address (one account, one
        # throttle bucket), so budgets, caps and the throttle refuse most creations.
        shared = os.environ.get("HETSITE_LOAD_SHARED_ADDRESS") == "1"
        adapter = SourceAddress("127.0.0.2" if shared else f"127.0.0.{2 + n % 250}")
        self.client.mount("http://", adapter)
        self.mine: list[str] = []
        self._get("/new/uav/", "GET lists and forms")  # the form sets the csrftoken cookie

    def _token(self) -> dict:
        return {"X-CSRFToken": self.client.cookies.get("csrftoken", "")}

    def _get(self, url: str, name: str):
        with self.client.get(url, name=name, catch_response=True) as response:
            tally(name, response.status_code)
            if response.status_code >= 500 or response.status_code not in (200, 404):
                response.failure(f"status {response.status_code}")
            return response

    @task(1)
    def create(self):
        body = dict(random.choice(EXPERIMENTS), base_seed=random.randrange(10_000))
        with self.client.post("/api/experiments/", json=body, name="POST /api/experiments/",
                              headers=self._token(), catch_response=True) as response:
            tally("POST /api/experiments/", response.status_code)
            if response.status_code == 202:
                self.mine.append(response.json()["id"])
            elif response.status_code in (400, 429):
                response.success()  # budget, queue cap or throttle: the site said no, cleanly
            else:
                response.failure(f"status {response.status_code}: {response.text[:200]}")

    @task(1)
    def rename(self):
        if not self.mine:
            return
        name = "PATCH /api/experiments/[id]/"
        with self.client.patch(f"/api/experiments/{random.choice(self.mine)}/",
                               json={"name": f"load {random.randrange(1000)}"},
                               headers=self._token(), name=name,
                               catch_response=True) as response:
            tally(name, response.status_code)
            if response.status_code != 200:
                response.failure(f"status {response.status_code}: {response.text[:200]}")

    @task(5)
    def poll(self):
        if self.mine:
            self._get(f"/api/experiments/{random.choice(self.mine[-5:])}/progress/",
                      "GET /api/experiments/[id]/progress/")

    @task(2)
    def page(self):
        if self.mine:
            self._get(f"/e/{random.choice(self.mine)}/", "GET /e/[id]/")

    @task(1)
    def detail(self):
        if self.mine:
            self._get(f"/api/experiments/{random.choice(self.mine)}/",
                      "GET /api/experiments/[id]/")

    @task(1)
    def lists(self):
        self._get(random.choice(["/", "/api/experiments/", "/figures/", "/new/uav/"]),
                  "GET lists and forms")

    @task(1)
    def result(self):
        if not self.mine:
            return
        response = self._get(f"/api/experiments/{random.choice(self.mine)}/",
                             "GET /api/experiments/[id]/")
        runs = [r for r in (response.json().get("runs", []) if response.ok else [])
                if r["status"] == "done"]
        if runs:
            self._get(f"/r/{random.choice(runs)['id']}/result.json", "GET /r/[id]/result.json")


@events.quitting.add_listener
def write_statuses(environment, **kwargs):
    path = environment.parsed_options.csv_prefix if environment.parsed_options else None
    if path:
        with open(f"{path}_statuses.txt", "w") as out:
            for key in sorted(STATUSES):
                out.write(f"{key}\t{STATUSES[key]}\n")
