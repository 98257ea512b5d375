"""The example policy's own tests: run them where the plugin is installed
(``pip install -e examples/replay-sjf`` into the site's environment, then ``pytest
examples/replay-sjf/tests``)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from replay_sjf import ShortestFirst

from scheduling.engine import ENGINE, preset_scenario, simulate

try:  # the replayed jobs moved to the shared HPC library (issue 29)
    from scheduling.hpc.jobs import Jobs
except ImportError:
    from scheduling.swf_replay.workload import Jobs


def jobs_of(rows, nodes):
    """Jobs from (submit, run, estimate, nodes) rows in submit order."""
    arr = np.array(rows, dtype=float).reshape(-1, 4)
    empty = np.zeros(0, dtype=np.int64)
    return Jobs(job_id=np.arange(1, len(arr) + 1), submit=arr[:, 0], run=arr[:, 1],
                estimate=arr[:, 2], procs=arr[:, 3].astype(np.int64),
                nodes=arr[:, 3].astype(np.int64), machine_nodes=nodes, total=len(arr),
                dropped_status=empty, dropped_invalid=empty, rejected=empty,
                estimates_raised=0)


class Watched(ShortestFirst):
    """The policy, checked after every decision: no waiting job fits the free nodes."""

    def schedule(self, t, completed, first_new):
        super().schedule(t, completed, first_new)
        assert all(self.n[j] > self.free for _, j in self.queue), t


@st.composite
def traces(draw):
    nodes = draw(st.integers(1, 16))
    count = draw(st.integers(1, 30))
    submit = sorted(draw(st.lists(st.integers(0, 50), min_size=count, max_size=count)))
    rows = []
    for s in submit:
        run = draw(st.integers(0, 40))
        rows.append((s, run, run + draw(st.integers(0, 20)), draw(st.integers(1, nodes))))
    return rows, nodes


@settings(max_examples=150, deadline=None)
@given(case=traces())
def test_every_job_starts_once_after_arrival_and_no_waiting_job_fits_idle_nodes(case):
    rows, nodes = case
    sim = Watched(jobs_of(rows, nodes), check=True).run()  # check: no over-allocation, ...
    start = np.array(sim.start_t)
    assert not np.isnan(start).any()
    assert (start >= np.array([r[0] for r in rows])).all()


def test_the_shorter_job_goes_first_where_fcfs_would_not():
    # One node; at t=0 a long job runs; at t=1 a long then a short job arrive.
    rows = [(0, 10, 10, 1), (1, 50, 50, 1), (1, 5, 5, 1)]
    start = Watched(jobs_of(rows, 1), check=True).run().start_t
    assert start == [0, 15, 10]


def test_the_installed_plugin_runs_in_the_engine_with_its_provenance():
    info = ENGINE.get_policy("swf-replay", "shortest-first")
    assert info.factory is ShortestFirst and info.plugin.name == "hetsite-replay-sjf"
    result = simulate(preset_scenario("swf-small"), policy="shortest-first")
    assert result.meta["plugin"] == {"name": "hetsite-replay-sjf", "version": "0.1.0"}
    assert result.summary["jobs_completed"] == result.summary["jobs_total"] == 500
