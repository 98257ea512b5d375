from pathlib import Path

import numpy as np
import pytest

from scheduling.hpc.jobs import Jobs
from scheduling.swf_preemptive.config import PreemptiveConfig
from scheduling.swf_preemptive.workload import MEDIUM, Workload
from simcore.params import from_dict


@pytest.fixture(scope="session")
def ref(load_sibling):
    """The literal, slow scheduler of _reference.py."""
    return load_sibling(Path(__file__).with_name("_reference.py"), "pbb_reference")


@pytest.fixture(scope="session")
def workload_from():
    return make_workload


def config(**params) -> PreemptiveConfig:
    return from_dict(PreemptiveConfig, params)


def make_workload(rows, nodes, rank=None, user=None) -> Workload:
    """A workload from (submit, run, limit, nodes) rows already in queue order; ``rank`` per job
    (HIGH, MEDIUM, LOW; default MEDIUM) and ``user`` per job (default: all one user)."""
    arr = np.array(rows, dtype=float).reshape(-1, 4)
    J = len(arr)
    empty = np.zeros(0, dtype=np.int64)
    jobs = Jobs(job_id=np.arange(1, J + 1), submit=arr[:, 0], run=arr[:, 1],
                estimate=arr[:, 2], procs=arr[:, 3].astype(np.int64),
                nodes=arr[:, 3].astype(np.int64), machine_nodes=nodes, total=J,
                dropped_status=empty, dropped_invalid=empty, rejected=empty,
                estimates_raised=0, user=np.zeros(J, dtype=np.int64),
                requested=np.ones(J, dtype=bool))
    user = np.zeros(J, dtype=np.int64) if user is None else np.asarray(user, dtype=np.int64)
    rank = np.full(J, MEDIUM, dtype=np.int64) if rank is None else np.asarray(rank, np.int64)
    return Workload(jobs=jobs, rank=rank, user=user, n_users=int(user.max()) + 1 if J else 1,
                    run_actual=arr[:, 1].copy(), dropped_size=empty, limit_kills=0,
                    limits_synthesized=0, offered_load=0.0, load_scale=1.0)
