"""One account's 20,000 queued runs against another's 4, on a real redis-server and a real
Celery worker: how many of the big account's runs go between the small experiment's arrival
and its end, and how long the small experiment takes (issue 27: fair dispatch).

    python benchmarks/fair_queue.py [--big 20000] [--small 4] [--concurrency 2]

The big experiment (UAV small-baseline, one policy) is charged to a user, the small one to an
anonymous client address; both go through the services as the API does. Printed: the time
to store and start the big experiment, the small one's wait, and the big account's runs that
ran meanwhile (fair dispatch bounds them by the lookahead plus one per small run and worker
slot). Asserts nothing; stops its processes at the end.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from _measure import worker_stack


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--big", type=int, default=20_000)
    parser.add_argument("--small", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="hetsite-fair-"))
    with worker_stack(folder, args.concurrency, HETSITE_MAX_TRIALS="1000000",
                      HETSITE_MAX_RUNS="1000000"):
        from hetsite.models import Experiment, Run, Status
        from hetsite.permissions import ANONYMOUS, STAFF, Account
        from hetsite.services import submission

        uav = {"kind": "uav", "preset": "small-baseline", "policies": ["random"]}
        started = time.monotonic()
        big = submission.create_experiment(
            submission.validate_submission(**uav, trials=args.big),
            account=Account("user:big", STAFF))
        stored = time.monotonic() - started
        while Run.objects.filter(experiment=big, status=Status.DONE).count() < 20:
            time.sleep(0.2)
        before = Run.objects.filter(experiment=big).exclude(status=Status.QUEUED).count()
        arrived = time.monotonic()
        small = submission.create_experiment(
            submission.validate_submission(**uav, trials=args.small, base_seed=7),
            account=Account("anon:small", ANONYMOUS))
        while not Experiment.objects.filter(pk=small.pk, status=Status.DONE).exists():
            time.sleep(0.1)
        waited = time.monotonic() - arrived
        after = Run.objects.filter(experiment=big).exclude(status=Status.QUEUED).count()
        print(f"big: {args.big:,} runs stored and started in {stored:.1f} s; small: "
              f"{args.small} runs done {waited:.1f} s after arriving; the big account's runs "
              f"started meanwhile: {after - before} (worker slots {args.concurrency}); still "
              f"queued: {Run.objects.filter(experiment=big, status=Status.QUEUED).count():,}")
        submission.cancel_experiment(big)


if __name__ == "__main__":
    main()
