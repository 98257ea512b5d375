"""From SWF columns to replayed jobs: status filter, rejection, nodes, estimates, order."""

import io

import pytest

from scheduling.hpc.jobs import MIN_ESTIMATE_S, prepare
from scheduling.hpc.swf import read_swf_arrays
from scheduling.swf_replay import ReplayConfig
from simcore.errors import ScenarioError
from simcore.params import from_dict

# id submit wait run procs cpu mem rprocs rtime rmem status ...
TRACE = """; MaxNodes: 4
; MaxProcs: 16
1  0 -1  100  4 -1 -1 -1  300 -1  1 -1 -1 -1 -1 -1 -1 -1
2  5 -1   50  1 -1 -1 -1   -1 -1  0 -1 -1 -1 -1 -1 -1 -1
3  5 -1   10  0 -1 -1  2   60 -1  5 -1 -1 -1 -1 -1 -1 -1
4  9 -1   -1  2 -1 -1 -1   -1 -1  1 -1 -1 -1 -1 -1 -1 -1
5  2 -1   70  5 -1 -1 -1   60 -1 -1 -1 -1 -1 -1 -1 -1 -1
6  1 -1    0 -1 -1 -1  3   -1 -1  1 -1 -1 -1 -1 -1 -1 -1
7  1 -1   30  3 -1 -1 -1   20 -1  1 -1 -1 -1 -1 -1 -1 -1
"""


def prep(text=TRACE, **options):
    header, cols = read_swf_arrays(io.StringIO(text))
    return prepare(header, cols, from_dict(ReplayConfig, options))


def test_every_job_is_accounted_for():
    jobs = prep()
    assert jobs.total == 7
    assert jobs.dropped_status.tolist() == [2, 3]  # failed, cancelled
    assert jobs.dropped_invalid.tolist() == [4]  # run time unknown
    assert jobs.rejected.tolist() == [5]  # 5 processors on a 4-node machine
    assert jobs.job_id.tolist() == [1, 6, 7]
    assert len(jobs) + jobs.dropped_status.size + jobs.dropped_invalid.size + \
        jobs.rejected.size == jobs.total


def test_keep_failed_keeps_failed_jobs_but_not_those_without_processors():
    jobs = prep(keep_failed=True)
    assert jobs.dropped_status.size == 0
    # job 3 was cancelled with 0 allocated processors: it never ran, whatever it requested
    assert sorted(jobs.job_id.tolist()) == [1, 2, 6, 7]
    assert jobs.dropped_invalid.tolist() == [3, 4]


def test_queue_order_is_submit_time_then_trace_order():
    jobs = prep(keep_failed=True)
    assert jobs.job_id.tolist() == [1, 6, 7, 2]
    assert jobs.submit.tolist() == sorted(jobs.submit.tolist())


def test_estimates():
    jobs = prep()
    by_id = dict(zip(jobs.job_id.tolist(), jobs.estimate.tolist(), strict=True))
    assert by_id[1] == 300  # requested time
    assert by_id[6] == MIN_ESTIMATE_S  # run time 0, no request
    assert by_id[7] == 30  # requested 20 < run 30: raised to the run time
    assert jobs.estimates_raised == 1
    scaled = prep(estimate_scale=2.0)
    by_id = dict(zip(scaled.job_id.tolist(), scaled.estimate.tolist(), strict=True))
    assert by_id[1] == 600 and by_id[7] == 40 and scaled.estimates_raised == 0
    runtime = prep(use_requested_time=False)
    assert runtime.estimate.tolist() == [100, MIN_ESTIMATE_S, 30]
    assert (prep(estimate_scale=3.0).estimate >= prep().run).all()


def test_nodes_from_header_and_cores_per_node():
    assert prep().machine_nodes == 4  # MaxNodes
    jobs = prep(cores_per_node=4, nodes=4)
    # jobs 1, 6, 7, 5 with 4, 3, 3 and 5 processors on 4-core nodes
    assert jobs.job_id.tolist() == [1, 6, 7, 5]
    assert jobs.nodes.tolist() == [1, 1, 1, 2]
    assert jobs.rejected.size == 0
    no_nodes = TRACE.replace("; MaxNodes: 4\n", "")
    assert prep(no_nodes).machine_nodes == 16  # MaxProcs / 1 core
    assert prep(no_nodes, cores_per_node=4).machine_nodes == 4
    with pytest.raises(ScenarioError) as err:
        prep(no_nodes.replace("; MaxProcs: 16\n", ""))
    assert err.value.field == "nodes"


def test_job_limit_takes_the_first_lines():
    jobs = prep(job_limit=3)
    assert jobs.total == 3 and jobs.job_id.tolist() == [1]
