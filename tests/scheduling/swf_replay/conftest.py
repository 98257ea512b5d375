from pathlib import Path

import numpy as np
import pytest

from scheduling.hpc.jobs import Jobs


@pytest.fixture(scope="session")
def ref(load_sibling):
    """Literal slow schedulers, see _reference.py."""
    return load_sibling(Path(__file__).with_name("_reference.py"), "replay_reference")


@pytest.fixture(scope="session")
def jobs_from():
    return make_jobs


def make_jobs(rows, nodes):
    """Jobs from (submit, run, estimate, nodes) rows already in queue order."""
    arr = np.array(rows, dtype=float).reshape(-1, 4)
    empty = np.zeros(0, dtype=np.int64)
    return Jobs(job_id=np.arange(1, len(arr) + 1), submit=arr[:, 0], run=arr[:, 1],
                estimate=arr[:, 2], procs=arr[:, 3].astype(np.int64),
                nodes=arr[:, 3].astype(np.int64), machine_nodes=nodes, total=len(arr),
                dropped_status=empty, dropped_invalid=empty, rejected=empty,
                estimates_raised=0)
