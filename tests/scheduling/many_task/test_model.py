"""Hand-worked cases of the model (machine model (trailing-tasks spec §3), tail-chopping
(trailing-tasks spec §6)): partition choice, start-up and tear-down accounting, the chop trigger,
restarted tasks."""

import math

import pytest

from scheduling.many_task.config import INTREPID_MENU
from scheduling.many_task.sim import choose_size, largest_shrinking_count


@pytest.mark.parametrize("count, r, size", [
    (15_000, 5.0, 2048),  # the DOCK6 experiment: "so the first partition is 2,048 cores"
    (934_710, 1.0, 163_840),
    (934_710, 5.0, 163_840),  # 934,710 / 163,840 = 5.7
    (934_710, 6.0, 131_072),
    (934_710, 60.0, 8192),  # / 16,384 = 57 < 60
    (100, 1.0, 256),  # nothing qualifies: the smallest
    (256, 1.0, 256),  # exactly r
    (255, 1.0, 256),
])
def test_partition_is_the_largest_size_meeting_the_ratio(count, r, size):
    assert choose_size(count, r, INTREPID_MENU) == size


@pytest.mark.parametrize("m, r", [(2048, 5.0), (163_840, 1.0), (256, 1.0), (4096, 0.5),
                                  (300, 2.0)])
def test_shrinking_counts_are_a_prefix(m, r):
    top = 3 * m
    c = largest_shrinking_count(m, r, INTREPID_MENU, top)
    for count in range(0, top + 1, max(1, top // 997)):
        assert (choose_size(count, r, INTREPID_MENU) < m) == (count <= c), count


def test_one_partition_start_up_counts_in_tts_not_in_allocation(run_list):
    res = run_list([10.0, 10.0, 10.0, 10.0], machine__partitions=[1, 2, 4], chop__r=1.0)
    s = res.summary
    assert s["first_partition"] == 4
    assert s["tts_s"] == 170.0 + 10.0
    assert s["makespan_s"] == 10.0
    assert s["allocated_cpu_h"] * 3600 == pytest.approx(40.0)
    assert s["utilization"] == pytest.approx(1.0)
    assert s["partitions"] == 1 and s["wasted_cpu_h"] == 0.0


def test_chop_trigger_cancels_restarts_and_pays_tear_down_and_start_up(run_list):
    # 4 tasks on 4 workers; at t = 1 three end, 3/4 > 0.5 idle and 1 task would get the
    # 2-worker partition: chop. The 10-s task loses 1 s and restarts from scratch.
    res = run_list([1.0, 1.0, 1.0, 10.0], machine__partitions=[2, 4], chop__r=1.0,
                   chop__f=0.5)
    s, ev = res.summary, res.events
    assert ev["workers"] == [4, 2] and ev["chopped"] == [True, False]
    assert ev["ready_s"] == [170.0, 170.0 + 1.0 + 2.4 + 170.0]
    assert ev["release_s"][0] == 171.0
    assert s["tts_s"] == pytest.approx(343.4 + 10.0)
    assert s["allocated_cpu_h"] * 3600 == pytest.approx(4 * 1.0 + 2 * 10.0)
    assert s["wasted_cpu_h"] * 3600 == pytest.approx(1.0)
    assert s["active_cpu_h"] * 3600 == pytest.approx(14.0)
    assert s["idle_cpu_h"] * 3600 == pytest.approx(24.0 - 14.0)
    assert s["utilization"] == pytest.approx(13.0 / 24.0)
    assert s["restarts"] == 1 and list(res.tasks["restarts"]) == [0, 0, 0, 1]
    assert res.tasks["start_s"][3] == pytest.approx(343.4)


def test_idle_test_is_strict(run_list):
    # 3 of 4 idle is 0.75, not more than f = 0.75: no chop.
    res = run_list([1.0, 1.0, 1.0, 10.0], machine__partitions=[2, 4], chop__r=1.0,
                   chop__f=0.75)
    assert res.summary["partitions"] == 1
    assert res.summary["tts_s"] == 180.0


def test_no_chop_without_a_smaller_partition(run_list):
    res = run_list([1.0, 1.0, 1.0, 10.0], machine__partitions=[4], chop__r=1.0, chop__f=0.1)
    assert res.summary["partitions"] == 1


def test_tasks_ending_together_are_not_cancelled(run_list):
    # All four end at t = 2: nothing runs when the workers idle, so no chop.
    res = run_list([2.0] * 4, machine__partitions=[2, 4], chop__r=1.0, chop__f=0.1)
    assert res.summary["partitions"] == 1 and res.summary["restarts"] == 0
    # Three end at 2 together with... a fourth still running: one chop, only it restarts.
    res = run_list([2.0, 2.0, 2.0, 5.0], machine__partitions=[2, 4], chop__r=1.0, chop__f=0.1)
    assert res.summary["restarts"] == 1 and list(res.tasks["restarts"]) == [0, 0, 0, 1]


def test_restarted_tasks_keep_their_dispatch_order(run_list):
    # Sorted order dispatches 20, 10, 1, 1; at t = 1 two idle of 4 > f = 0.4: chop. The
    # restarted 20 and 10 run one after the other on the 1-worker partition, 20 first.
    res = run_list([1.0, 10.0, 1.0, 20.0], machine__partitions=[1, 4], chop__r=1.0,
                   chop__f=0.4)
    ready2 = 171.0 + 2.4 + 170.0
    assert res.events["workers"] == [4, 1]
    start = dict(zip(res.tasks["runtime_s"], res.tasks["start_s"], strict=True))
    assert start[20.0] == pytest.approx(ready2) and start[10.0] == pytest.approx(ready2 + 20.0)
    assert res.summary["tts_s"] == pytest.approx(ready2 + 30.0)
    assert res.summary["wasted_cpu_h"] * 3600 == pytest.approx(2.0)


def test_tear_down_in_parallel_and_requeue_wait(run_list):
    base = dict(machine__partitions=[2, 4], chop__r=1.0, chop__f=0.5)
    seq = run_list([1.0, 1.0, 1.0, 10.0], **base)
    par = run_list([1.0, 1.0, 1.0, 10.0], machine__teardown_first=False, **base)
    wait = run_list([1.0, 1.0, 1.0, 10.0], machine__requeue_wait_s=600.0, **base)
    assert par.summary["tts_s"] == pytest.approx(seq.summary["tts_s"] - 2.4)
    assert wait.summary["tts_s"] == pytest.approx(seq.summary["tts_s"] + 600.0)
    # Waiting and tearing down are not allocated time.
    for other in (par, wait):
        assert other.summary["allocated_cpu_h"] == seq.summary["allocated_cpu_h"]


def test_fixed_first_partition_overrides_the_ratio(run_list):
    res = run_list([5.0] * 10, policy="sorted", machine__partitions=[1, 2, 4, 8],
                   machine__workers=3, chop__r=1.0)
    assert res.summary["first_partition"] == 3
    assert res.summary["makespan_s"] == 20.0  # 10 tasks of 5 s on 3 workers: 4 rounds


def test_zero_length_tasks_are_fine(run_list):
    res = run_list([0.0, 0.0, 3.0], policy="random+chop", machine__partitions=[1, 2],
                   chop__r=1.0, chop__f=0.1)
    assert res.summary["tts_s"] >= 170.0 + 3.0
    assert math.isfinite(res.summary["utilization"])
