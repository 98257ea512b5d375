"""20 experiments submitted at once through the API, 2 real workers: all finish, and every
result equals the same (scenario, policy, seed) run on its own."""

import json
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pytest

from hetsite import kinds
from hetsite.models import Experiment, Run, Status

pytestmark = [pytest.mark.realstack, pytest.mark.django_db(transaction=True)]

SETUPS = [("uav", "small-baseline", ["random", "max-vpe+pf"]),
          ("swf-replay", "swf-small", ["easy", "conservative"])]


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, {"error": err.read().decode()[:500]}


def test_twenty_concurrent_experiments_match_one_by_one(database, live_server, live_celery,
                                                        start_worker, wait_for):
    start_worker(concurrency=1, name="w1")
    start_worker(concurrency=1, name="w2")
    bodies = []
    for i in range(20):
        kind, preset, policies = SETUPS[i % 2]
        bodies.append({"kind": kind, "preset": preset, "policies": policies, "trials": 1,
                       "base_seed": 100 + i, "name": f"load {i}"})
    with ThreadPoolExecutor(max_workers=20) as pool:
        replies = list(pool.map(lambda b: post(f"{live_server.url}/api/experiments/", b), bodies))
    assert [status for status, _ in replies] == [202] * 20, replies
    ids = [reply["id"] for _, reply in replies]

    wait_for(lambda: not Run.objects.filter(experiment__public_id__in=ids).exclude(
        status__in=[Status.DONE, Status.FAILED, Status.CANCELLED]).exists(), 240,
        "every run to end")
    runs = list(Run.objects.filter(experiment__public_id__in=ids).select_related(
        "experiment__scenario"))
    assert len(runs) == 40
    assert {r.status for r in runs} == {Status.DONE}, [r.error for r in runs if r.error]
    assert {Experiment.objects.get(public_id=i).status for i in ids} == {Status.DONE}
    assert len({r.worker.split(":")[1] for r in runs}) >= 2  # both workers took runs

    for run in runs:  # the same runs, one by one, in this process
        experiment = run.experiment
        engine = kinds.get_kind(experiment.kind).engine
        alone = engine.simulate({"kind": experiment.kind, "params": experiment.scenario.params},
                                policy=run.policy, seed=run.seed)
        stored = json.loads(run_json(run))
        stored.pop("timing")
        expected = alone.to_dict()
        # The worker may have started at another commit of a working copy; CI has one.
        for data in (stored, expected):
            data["meta"].pop("code_version")
        assert stored == expected, run


def run_json(run):
    from hetsite.selectors import result_json

    return result_json(Run.objects.get(pk=run.pk)).decode()
