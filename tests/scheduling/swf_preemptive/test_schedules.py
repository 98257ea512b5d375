"""Schedules worked out by hand: which jobs are killed, when, and what happens to them.

Rows are (submit, run, wall-clock limit, processors) in queue order; docs/pbb.md walks through
the first case.
"""

from scheduling.swf_preemptive.policies import (
    DurationConsumed,
    DurationRemaining,
    FirstFit,
    MinWork,
    RandomVictims,
    WcDuration,
    WcResUsage,
)
from scheduling.swf_preemptive.sim import FIRST_FIT, NORMAL, PREEMPTIVE, Maui
from scheduling.swf_preemptive.workload import HIGH, LOW, MEDIUM

from .conftest import config, make_workload

# 8 processors. Job 2 (5 processors) is the head from t=0: 4 are free, and its shadow time is
# t=100 when job 0 ends (then 6 are free: one extra processor). Job 3 backfills past the
# shadow (preemptively), job 4 into the extra processor (First Fit), job 5 past the shadow.
# At t=100 job 0 ends early enough for job 2 to need 3 more processors than are free.
MINIMAL = [
    (0, 100, 100, 2),  # 0: ends at 100
    (0, 1000, 1000, 2),  # 1: long, started normally: never preemptible
    (0, 300, 300, 5),  # 2: the head
    (1, 500, 500, 2),  # 3: preemptive backfill
    (2, 500, 500, 1),  # 4: First Fit backfill into the extra processor
    (3, 500, 500, 1),  # 5: preemptive backfill
    (50, 10, 10, 3),  # 6: queues behind job 2 before any kill
]


def run(rows, nodes, victims, check=True, rank=None, **params):
    return Maui(make_workload(rows, nodes, rank=rank), victims, config(**params), 0,
                check=check).run()


def kills(sim):
    return list(zip(sim.k_job, sim.k_start, sim.k_end, sim.k_by, strict=True))


def test_the_minimal_victim_set_is_killed():
    sim = run(MINIMAL, 8, DurationConsumed)
    # At t=100 duration-consumed orders the pool 5 (started at 3), 4 (at 2), 3 (at 1) and takes
    # all three to free 3 processors; the minimality pass then drops job 4 (1 processor),
    # because jobs 5 and 3 alone free enough. Job 2 starts at once.
    assert kills(sim)[:2] == [(5, 3.0, 100.0, 2), (3, 1.0, 100.0, 2)]
    assert sim.start_t[2] == 100.0
    # At t=400 job 2 ends: the killed jobs 3 and 5 come back ahead of job 6 (they keep their
    # submit times 1 and 3 < 50) and start; job 6 then preempts job 4, the First Fit backfill
    # (every backfilled job is preemptible by default), and job 4 restarts when 6 ends.
    assert kills(sim)[2:] == [(4, 2.0, 400.0, 6)]
    assert sim.start_t == [0.0, 0.0, 100.0, 400.0, 410.0, 400.0, 400.0]
    assert [sim.mode[j] for j in (3, 4, 5)] == [NORMAL, NORMAL, NORMAL]


def test_without_the_minimality_pass_more_would_die():
    # duration-remaining orders the pool 3, 5 (most time left: they end at 501 and 503 by
    # their limits; 4 ends at 502): 3 then 5 free 3 processors, nothing to drop. min-work
    # orders 5 (1 x 97), 4 (1 x 98), 3 (2 x 99): all three are picked, 4 is dropped.
    assert kills(run(MINIMAL, 8, DurationRemaining))[:2] == [(5, 3.0, 100.0, 2),
                                                             (3, 1.0, 100.0, 2)]
    assert kills(run(MINIMAL, 8, MinWork))[:2] == [(5, 3.0, 100.0, 2), (3, 1.0, 100.0, 2)]
    # wcduration: equal limits, so the lowest priority first (5, 4, 3); 4 is dropped again.
    assert kills(run(MINIMAL, 8, WcDuration))[:2] == [(5, 3.0, 100.0, 2), (3, 1.0, 100.0, 2)]
    # percentresusage: the widest first: 3 (2 processors) then 5 (1), ties by lower priority.
    assert kills(run(MINIMAL, 8, WcResUsage))[:2] == [(3, 1.0, 100.0, 2), (5, 3.0, 100.0, 2)]


def test_a_killed_job_restarts_from_zero_and_keeps_its_submit_time():
    sim = run(MINIMAL, 8, DurationConsumed, preemptible="past-reservation")
    # Job 4 used the extra processor (First Fit): not preemptible under this reading, so only
    # jobs 5 and 3 die at t=100 and job 6 waits for job 4 to end (502) instead of killing it.
    assert kills(sim) == [(5, 3.0, 100.0, 2), (3, 1.0, 100.0, 2)]
    assert sim.start_t[3] == 400.0 and sim.start_t[5] == 400.0 and sim.start_t[6] == 502.0
    # Restarted from zero: job 3 had run 99 s of its 500 but ends 500 s after its restart.
    assert sim.start_t[3] + sim.run_l[3] == 900.0
    # Its queue time runs from its original submit (t=1) to the start of the completing run.
    assert sim.start_t[3] - sim.sub[3] == 399.0


def test_first_fit_never_kills_and_never_backfills_past_the_reservation():
    sim = run(MINIMAL, 8, FirstFit)
    assert kills(sim) == []
    # Only job 4 fits the extra processor; jobs 3 and 5 would end after the shadow time; job 6
    # ends (t=60) before it. Under preemption jobs 3 and 5 took the processors job 6 found
    # free here: a preemptive backfill can crowd out a later, surely-finishing one.
    assert sim.start_t == [0.0, 0.0, 100.0, 400.0, 2.0, 400.0, 50.0]
    assert sim.mode[4] == FIRST_FIT and sim.mode[6] == FIRST_FIT


def test_preemption_off_makes_every_policy_first_fit():
    ff = run(MINIMAL, 8, FirstFit).start_t
    for victims in (RandomVictims, DurationConsumed, DurationRemaining, MinWork):
        assert run(MINIMAL, 8, victims, preemption=False).start_t == ff


# Mix A on 4 processors: a Medium job started normally (0), a Medium head (1) that waits for
# it until t=1000, a Medium (2) backfilled because its limit ends by then, then two High jobs.
MIX_A = [
    (0, 1000, 1000, 2),  # 0: Medium, started normally
    (0, 300, 300, 4),  # 1: Medium head, shadow time 1000, no extra processors
    (1, 500, 900, 2),  # 2: Medium, First Fit backfill (ends by 901 <= 1000)
    (10, 50, 50, 2),  # 3: High, small
    (20, 300, 300, 4),  # 4: High, the whole machine
]


def test_high_never_waits_for_a_backfilled_medium():
    sim = run(MIX_A, 4, DurationRemaining, rank=[MEDIUM, MEDIUM, MEDIUM, HIGH, HIGH],
              classes="mix-a")
    # Job 3 arrives to a full machine and starts at once by killing the backfilled Medium 2.
    assert sim.start_t[3] == 10.0
    assert kills(sim) == [(2, 1.0, 10.0, 3)]
    # Job 4 needs all 4 processors and may not preempt Medium 0 (started normally): it waits
    # for job 0, the paper's 32-processor exception, but not a moment longer. Job 2 backfills
    # again at t=60 (ends by 960 <= 1000) and completes.
    assert sim.start_t[4] == 1000.0 and sim.start_t[2] == 60.0
    # The Medium head comes after both High jobs; it never preempts a backfilled Medium.
    assert sim.start_t[1] == 1300.0


def test_a_medium_backfills_past_the_reservation_only_if_the_holder_may_preempt_it():
    rank = [MEDIUM, MEDIUM, MEDIUM, HIGH, HIGH]
    rows = [(0, 1000, 1000, 2), (0, 100, 100, 4), (1, 2000, 2000, 1)]
    sim = run(rows, 4, DurationRemaining, rank=rank[:3], classes="mix-a")
    assert sim.start_t[2] == 1100.0  # Medium head holds the reservation: no Medium past it
    sim = run(rows, 4, DurationRemaining, rank=rank[:3], classes="mix-a", relaxed_scope="any")
    assert sim.start_t[2] == 1.0 and sim.mode[2] == PREEMPTIVE
    assert sim.start_t[1] == 2001.0  # the literal reading delays the Medium head: nobody may
    assert kills(sim) == []  # kill a Medium for a Medium


def test_high_preempts_a_low_job_that_started_normally():
    rows = [(0, 1000, 1000, 4), (5, 10, 10, 1), (6, 10, 10, 4)]
    sim = run(rows, 4, DurationConsumed, rank=[LOW, HIGH, HIGH], classes="mix-b")
    # Low job 0 dies at t=5 for High job 1; High job 2 (t=6) queues behind job 1 only.
    assert kills(sim) == [(0, 0.0, 5.0, 1)]
    assert sim.start_t == [25.0, 5.0, 15.0]
    # Without classes nothing started normally is ever preempted.
    sim = run(rows, 4, DurationConsumed)
    assert kills(sim) == [] and sim.start_t == [0.0, 1000.0, 1010.0]


def test_the_history_filter_needs_the_scaled_limit_to_end_by_the_shadow_time():
    # Job 0 of user 0 used 10% of its limit, so rho = 0.1. Job 2 waits for job 1 (shadow 220).
    # Job 3 (user 0, limit 500, 50 predicted) may backfill past the shadow; job 4 of user 1
    # (no history, rho = 1) may not, and starts when job 2 ends.
    rows = [(0, 10, 100, 1), (20, 200, 200, 3), (21, 100, 100, 4), (22, 40, 500, 1),
            (22, 40, 500, 1)]
    wl = make_workload(rows, 4, user=[0, 0, 0, 0, 1])
    sim = Maui(wl, DurationRemaining, config(history_filter=True), 0, check=True).run()
    assert sim.start_t == [0.0, 20.0, 220.0, 22.0, 320.0] and sim.mode[3] == PREEMPTIVE
    assert kills(sim) == []
    # Without the filter job 4 backfills when job 3 ends (t=62), and its 40 s end well before
    # the shadow time: the filter only knew that user 1 had no history.
    sim = Maui(wl, DurationRemaining, config(history_filter=False), 0, check=True).run()
    assert sim.start_t == [0.0, 20.0, 220.0, 22.0, 62.0] and kills(sim) == []
