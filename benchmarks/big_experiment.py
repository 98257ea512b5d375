"""The largest experiment the site allows, on SQLite: a logged-in user's published-size figure
(``many-task-fig6-real15k``, 360 points x 2 policies x 30 trials = 21,600 runs) posted through
the API, then its page, ``/progress/`` and API detail while it runs, then its deletion
(issue 27 item 6: creation used to end in a 500 "database is locked" with 20,699 runs never
sent, and the page of such an experiment was 10.8 MB).

    python benchmarks/big_experiment.py [--figure many-task-fig6-real15k] [--running 600]

Printed: how long the creating request took and how many messages it sent; the longest wait
of another connection writing to the database meanwhile, once every 50 ms, as a worker
finishing runs would (SQLite has one writer at a time; Django's busy timeout here is 30 s);
then, with every run finished but the last ``--running`` (one real small many-task result per
policy stands in for each), the size and time of the page (twice: its tables and charts are
kept for HETSITE_LIVE_FIGURES_SECONDS), /progress/ and the API detail; and the delete. The
broker is the filesystem transport, so no message is executed. Asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class Writer(threading.Thread):
    """Small write transactions on their own connection, as a worker's would be."""

    def __init__(self, path: Path):
        super().__init__(daemon=True)
        self.path, self.waits, self.errors, self.stop = path, [], [], threading.Event()

    def run(self):
        conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        while not self.stop.is_set():
            started = time.perf_counter()
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("UPDATE hetsite_experiment SET name = name WHERE id = -1")
                conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:  # "database is locked"
                self.errors.append(str(exc))
            self.waits.append(time.perf_counter() - started)
            time.sleep(0.05)


def timed(call):
    started = time.perf_counter()
    out = call()
    return out, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--figure", default="many-task-fig6-real15k")
    parser.add_argument("--running", type=int, default=600, help="runs left unfinished")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="hetsite-big-"))
    database = folder / "db.sqlite3"
    os.environ.update(DJANGO_SETTINGS_MODULE="hetsite.settings", DEBUG="1",
                      DATABASE_URL=f"sqlite:///{database}", CELERY_BROKER_URL="filesystem://",
                      CELERY_BROKER_DIR=str(folder / "broker"), CELERY_TASK_ALWAYS_EAGER="0",
                      ALLOWED_HOSTS="testserver", HETSITE_TRACE_CACHE_DIR=str(folder / "cache"))
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.test import Client

    from hetsite import kinds
    from hetsite.models import Experiment, Run, Status
    from hetsite.services import execution, submission
    from simcore.result import Result

    call_command("migrate", verbosity=0)
    call_command("load_presets", verbosity=0)
    client = Client()
    client.force_login(User.objects.create_user("ada", password="pw-123456789"))
    writer = Writer(database)
    writer.start()
    response, took = timed(lambda: client.post(f"/api/figures/{args.figure}/run/", {},
                                               content_type="application/json"))
    writer.stop.set()
    writer.join()
    assert response.status_code == 202, response.content[:500]
    experiment = Experiment.objects.get(public_id=response.json()["id"])
    total = experiment.runs.count()
    print(f"POST /api/figures/{args.figure}/run/: {response.status_code}, {total:,} runs in "
          f"{took:.1f} s, {experiment.runs.exclude(celery_id='').count()} messages sent; "
          f"another writer's longest wait {max(writer.waits):.2f} s, "
          f"{len(writer.errors)} 'database is locked'; load average {os.getloadavg()[0]:.1f}")

    lab = kinds.get_kind(experiment.kind)
    params = submission.validate_scenario(kind=experiment.kind, preset="many-task-small")
    for policy in experiment.policies:
        data = lab.engine.simulate({"kind": experiment.kind, "params": params}, policy=policy,
                                   seed=1).to_dict()
        compact = lab.compact(Result.from_dict(data))
        experiment.runs.filter(policy=policy).update(
            status=Status.DONE, summary=data["summary"], series=compact["series"],
            dist=compact["dist"], progress=100.0)
    for row in experiment.summary:
        execution.refresh_cell(lab, experiment.pk, row["point"], row["policy"])
    last = list(experiment.runs.order_by("-id").values_list("pk", flat=True)[:args.running])
    Run.objects.filter(pk__in=last).update(status=Status.QUEUED, summary={}, series={},
                                           dist={}, progress=0.0)
    execution.refresh_experiment(experiment.pk)
    pid = experiment.public_id
    print(f"running, {total - len(last):,} of {total:,} runs finished:")
    for url in (f"/e/{pid}/", f"/e/{pid}/", f"/api/experiments/{pid}/progress/",
                f"/api/experiments/{pid}/"):
        answer, took = timed(lambda url=url: client.get(url))
        print(f"  GET {url.replace(str(pid), '<id>')}: {answer.status_code}, "
              f"{len(answer.content):,} bytes in {took:.2f} s")
    answer, took = timed(lambda: client.delete(f"/api/experiments/{pid}/"))
    print(f"DELETE /api/experiments/<id>/: {answer.status_code} in {took:.2f} s; runs left "
          f"{Run.objects.count()}")


if __name__ == "__main__":
    main()
