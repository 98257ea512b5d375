"""Local scheduling on one node (local preemptive scheduling (grid spec §5), FCFS with backfilling
(grid spec §7)): preemptive SRPT at alpha 0 / beta 1, victim choice, aging, FCFS with
backfilling."""

from hypothesis import given, settings
from hypothesis import strategies as st

from scheduling.grid.policies import FcfsBackfill, PreemptiveBackfill

FCFS = FcfsBackfill()
LOCAL = PreemptiveBackfill()


def test_alpha0_is_preemptive_srpt_by_hand(helpers):
    # One core of speed 1. A (t=0, 10 s) runs; B (t=2, 3 s) preempts it (3 < 8 left); C
    # (t=3, 1 s) preempts B (1 < 2 left); C ends at 4, B resumes to 6, A resumes to 14.
    wl = helpers.workload([(1, 1.0, 1, 10)],
                          [(0, 10, 1, 0.5, 1, 0), (2, 3, 1, 0.5, 1, 0), (3, 1, 1, 0.5, 1, 0)])
    sim = helpers.run(wl, LOCAL, delta=5.0)
    assert sim.end == [14.0, 6.0, 4.0]
    assert sim.wf == [4.0, 1.0, 0.0]  # non-executing time at the node
    assert sim.npre == [1, 1, 0] and sim.preemptions == 2
    assert sim.log.segments == [(0, 0, 0.0, 2.0), (1, 0, 2.0, 3.0), (2, 0, 3.0, 4.0),
                                (1, 0, 4.0, 6.0), (0, 0, 6.0, 14.0)]
    helpers.check_invariants(sim, wl)


def test_speed_scales_run_times_and_remaining_time(helpers):
    # Speed 2 halves every time; the priority uses the speed-scaled remaining time.
    wl = helpers.workload([(1, 2.0, 1, 10)],
                          [(0, 20, 1, 0.5, 1, 0), (2, 6, 1, 0.5, 1, 0), (3, 2, 1, 0.5, 1, 0)])
    sim = helpers.run(wl, LOCAL)
    assert sim.end == [14.0, 6.0, 4.0] and sim.wf == [4.0, 1.0, 0.0]


@settings(max_examples=150, deadline=None, database=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(1, 40)), min_size=1, max_size=14),
       st.sampled_from([1.0, 2.0, 0.5]))
def test_alpha0_beta1_on_one_isolated_node_equals_preemptive_srpt(helpers, jobs, speed):
    jobs = sorted(jobs, key=lambda job: job[0])
    submit = [float(s) for s, _ in jobs]
    work = [float(w) for _, w in jobs]
    wl = helpers.workload([(1, speed, 1, 10)], [(s, w, 1, 0.5, 1, 0) for s, w in jobs])
    sim = helpers.run(wl, LOCAL, alpha=0.0, beta=1.0, delta=5.0)
    end, wait, preemptions = helpers.srpt_one_core(submit, [w / speed for w in work])
    assert sim.end == end
    assert sim.wf == wait
    assert sim.preemptions == preemptions
    helpers.check_invariants(sim, wl)


def _two_core_srpt(submit, work):
    """Reference: preemptive SRPT on m identical cores with unit jobs; the job with the
    longest remaining time is displaced by a strictly shorter waiting one."""
    import math

    m_cores = 2
    n = len(submit)
    rem = list(work)
    end = [None] * n
    running, waiting = [], []
    arrivals = sorted(range(n), key=lambda j: (submit[j], j))
    t, i = 0.0, 0
    while i < n or running or waiting:
        t_done = min((t + rem[j] for j in running), default=math.inf)
        t_arr = submit[arrivals[i]] if i < n else math.inf
        nt = min(t_done, t_arr)
        for j in running:
            rem[j] -= nt - t
        t = nt
        for j in [j for j in running if rem[j] == 0]:
            running.remove(j)
            end[j] = t
        while i < n and submit[arrivals[i]] == t:
            waiting.append(arrivals[i])
            i += 1
        while waiting and len(running) < m_cores:
            best = min(waiting, key=lambda j: (rem[j], submit[j], j))
            waiting.remove(best)
            running.append(best)
        while waiting:
            best = min(waiting, key=lambda j: (rem[j], submit[j], j))
            worst = max(running, key=lambda j: (rem[j], j))
            if not rem[best] < rem[worst]:
                break
            # The engine's victim choice: the lowest priority (longest remaining), ties by id.
            worst = min(j for j in running if rem[j] == rem[worst])
            running.remove(worst)
            waiting.append(worst)
            waiting.remove(best)
            running.append(best)
    return end


@settings(max_examples=100, deadline=None, database=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(1, 30)), min_size=1, max_size=12))
def test_alpha0_on_a_two_core_node_keeps_the_shortest_jobs_running(helpers, jobs):
    jobs = sorted(jobs, key=lambda job: job[0])
    wl = helpers.workload([(2, 1.0, 4, 10)], [(s, w, 1, 0.5, 1, 0) for s, w in jobs])
    sim = helpers.run(wl, LOCAL)
    end = _two_core_srpt([float(s) for s, _ in jobs], [float(w) for _, w in jobs])
    assert sim.end == end
    helpers.check_invariants(sim, wl)


def _victim_case(helpers, victims):
    # 4 cores, 4 GB: j0 (1 core, 0.5 GB, 100 s), j1 (1 core, 2 GB, 90 s) and j2 (2 cores,
    # 0.5 GB, 80 s) fill the cores; h (2 cores, 1 GB, 10 s) arrives at t = 1 and outranks all.
    wl = helpers.workload([(4, 1.0, 4, 100)],
                          [(0, 100, 1, 0.5, 1, 0), (0, 90, 1, 2, 1, 0), (0, 80, 2, 0.5, 1, 0),
                           (1, 10, 2, 1, 1, 0)])
    sim = helpers.run(wl, LOCAL, victims=victims)
    helpers.check_invariants(sim, wl)
    return [j for t, j in zip(sim.log.pre_t, sim.log.pre_job, strict=True) if t == 1.0], sim


def test_exact_victim_search_frees_just_enough(helpers):
    # {j2} frees exactly the 2 cores (surplus 0 cores, 0.5 GB); {j0, j1} would free 2.5 GB.
    victims, sim = _victim_case(helpers, "exact")
    assert victims == [2]
    assert sim.end[3] == 11.0


def test_greedy_victims_take_the_lowest_priorities_first(helpers):
    # Lowest priority first: j0 (99 s left), then j1 (89 s): two victims.
    victims, sim = _victim_case(helpers, "greedy")
    assert sorted(victims) == [0, 1]
    assert sim.end[3] == 11.0


def test_a_preempted_job_preempts_in_turn_once_it_is_shorter(helpers):
    # After h, the 2-core j2 (79 s left) outranks both 1-core jobs (95 and 85 s left at the next
    # tick, t = 5): the freed surplus is used at the node's next invocation (preemptive scheduler
    # (grid spec §5.3)).
    victims, sim = _victim_case(helpers, "exact")
    later = [(t, j) for t, j in zip(sim.log.pre_t, sim.log.pre_job, strict=True) if t > 1]
    assert sorted(later) == [(5.0, 0), (5.0, 1)]
    assert sim.first_start[2] == 0.0 and sim.end[2] == 5.0 + 79.0


def test_aging_lets_a_long_waiting_job_overtake(helpers):
    # One core. L (200 s, job 1) waits behind a stream of 20 s jobs arriving every 20 s.
    short = [(float(t), 20, 1, 0.5, 1, 0) for t in range(0, 400, 20)]
    wl = helpers.workload([(1, 1.0, 1, 10)], short[:1] + [(1, 200, 1, 0.5, 1, 0)] + short[1:])
    srpt = helpers.run(wl, LOCAL, alpha=0.0)
    assert srpt.wf[1] == 399.0 and srpt.end[1] == 600.0  # runs only when the stream ends
    # alpha 0.5 < beta: L's priority 0.5 W - 200 beats a newcomer's -20 once W > 360, so it
    # takes the core at the completion at t = 380 and keeps it.
    mild = helpers.run(wl, LOCAL, alpha=0.5)
    assert mild.wf[1] == 379.0 and mild.first_start[1] == 380.0 and mild.npre[1] == 0
    # alpha 2 > beta: waiting jobs gain priority faster than running ones, so L gets the core
    # after about 100 s but every waiting job soon outranks whoever runs: time slicing, with
    # many more preemptions (headline results (grid spec §9): alpha >= 1).
    sliced = helpers.run(wl, LOCAL, alpha=2.0)
    assert sliced.wf[1] < mild.wf[1]
    assert sliced.preemptions > 4 * max(srpt.preemptions, 1)
    for sim in (srpt, mild, sliced):
        helpers.check_invariants(sim, wl)


def test_fcfs_keeps_arrival_order_but_backfills(helpers):
    # 2 cores. A (2 cores) runs; B (2 cores) waits; C (1 core) arrives and waits too (no free
    # core); when A ends, B starts (arrival order), C fills nothing; D (1 core, short) would
    # backfill onto a free core only if one were free.
    wl = helpers.workload([(2, 1.0, 4, 100)],
                          [(0, 10, 2, 1, 1, 0), (1, 10, 2, 1, 1, 0), (2, 1, 1, 1, 1, 0),
                           (3, 5, 1, 1, 1, 0)])
    sim = helpers.run(wl, FCFS)
    assert sim.end == [10.0, 20.0, 21.0, 25.0]  # no preemption: the short C waits for B
    assert sim.preemptions == 0
    # Backfill: a 1-core job behind a blocked 2-core head starts on the one free core.
    wl = helpers.workload([(2, 1.0, 4, 100)],
                          [(0, 10, 1, 1, 1, 0), (1, 10, 2, 1, 1, 0), (2, 3, 1, 1, 1, 0)])
    sim = helpers.run(wl, FCFS)
    assert sim.first_start == [0.0, 10.0, 2.0]
    helpers.check_invariants(sim, wl)
