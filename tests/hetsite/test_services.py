"""Services and selectors with eager Celery (the real-stack path is in test_real_stack.py)."""

import gzip
import json
import time

import pytest
from django.utils import timezone

from hetsite import kinds, selectors
from hetsite.models import Experiment, Run, Scenario, Status
from hetsite.services import execution, submission
from simcore.errors import RunCancelled, ScenarioError

# Transactional: runs are dispatched when the experiment commits (transaction.on_commit).
pytestmark = pytest.mark.django_db(transaction=True)


def submit(small, **overrides):
    args = {"kind": small["kind"], "preset": small["preset"], "policies": small["policies"],
            "trials": 2, "base_seed": 5}
    args.update(overrides)
    return submission.validate_submission(**args)


@pytest.mark.parametrize("overrides, field", [
    ({"kind": "nope"}, "kind"),
    ({"policies": []}, "policies"),
    ({"policies": ["no-such-policy"]}, "policies"),
    ({"trials": 0}, "trials"),
    ({"trials": 10_000}, "trials"),
    ({"base_seed": -1}, "base_seed"),
    ({"preset": "no-such-preset"}, "preset"),
])
def test_validation_names_the_field(small, overrides, field):
    with pytest.raises(ScenarioError) as err:
        submit(small, **overrides)
    assert err.value.field == field
    assert Experiment.objects.count() == 0


def test_bad_scenario_parameter_is_named(small):
    with pytest.raises(ScenarioError) as err:
        submit(small, params={"definitely_not_a_parameter": 1})
    assert err.value.field == "definitely_not_a_parameter"


def test_experiment_runs_to_completion_with_summary_and_results(small):
    experiment = submission.create_experiment(submit(small))  # eager: runs execute inline
    experiment.refresh_from_db()
    runs = selectors.runs_of(experiment)
    assert [r.policy for r in runs] == [p for p in small["policies"] for _ in range(2)]
    assert {r.status for r in runs} == {Status.DONE}
    assert [r.seed for r in runs[:2]] == [5, 6]
    assert experiment.status == Status.DONE and experiment.progress == 100.0
    assert experiment.finished is not None
    ui = kinds.get_kind(small["kind"])
    primary = ui.primary_metric
    for policy in small["policies"]:
        cell = experiment.summary_by_policy()[policy][primary]
        values = [r.summary[primary] for r in runs if r.policy == policy]
        assert cell["n"] == 2
        assert cell["mean"] == pytest.approx(sum(values) / 2)
        assert cell["low"] <= cell["mean"] <= cell["high"]
    # The stored full result is the engine's result for that (scenario, policy, seed).
    run = Run.objects.get(pk=runs[0].pk)
    stored = json.loads(gzip.decompress(bytes(run.result_gz)))
    direct = ui.engine.simulate({"kind": small["kind"], "params": experiment.scenario.params},
                                policy=run.policy, seed=run.seed)
    assert stored["summary"] == json.loads(direct.to_json())["summary"]
    assert stored["meta"]["seed"] == run.seed and "timing" in stored
    assert run.series["t_min"] and len(run.series["t_min"]) <= 401


def test_preset_scenario_row_is_reused_when_unchanged(small):
    submission.load_presets()
    preset_row = Scenario.objects.get(is_preset=True, preset=small["preset"])
    experiment = submission.create_experiment(submit(small, trials=1), dispatch=False)
    assert experiment.scenario_id == preset_row.pk
    same = submission.create_experiment(submit(small, trials=1, params=preset_row.params),
                                      dispatch=False)
    assert same.scenario_id == preset_row.pk
    defaults = submission.create_experiment(submit(small, trials=1, params={}), dispatch=False)
    if defaults.scenario.params != preset_row.params:
        assert defaults.scenario_id != preset_row.pk
        assert defaults.scenario.name == f"{small['preset']} (edited)"
    else:
        assert defaults.scenario_id == preset_row.pk
    assert Run.objects.filter(experiment=experiment, status=Status.QUEUED).count() == \
        len(small["policies"])


def test_engine_error_fails_one_run_and_keeps_the_others(small, monkeypatch):
    ui = kinds.get_kind(small["kind"])
    bad = small["policies"][0]
    real = ui.engine.simulate

    def flaky(scenario, policy, seed, progress=None, inputs=None):
        if policy == bad and seed == 5:
            raise ZeroDivisionError("boom")
        return real(scenario, policy=policy, seed=seed, progress=progress, inputs=inputs)

    monkeypatch.setattr(ui.engine, "simulate", flaky)
    experiment = submission.create_experiment(submit(small))
    experiment.refresh_from_db()
    failed = Run.objects.get(experiment=experiment, policy=bad, seed=5)
    assert failed.status == Status.FAILED
    assert "ZeroDivisionError: boom" in failed.error
    others = Run.objects.filter(experiment=experiment).exclude(pk=failed.pk)
    assert {r.status for r in others} == {Status.DONE}
    assert experiment.status == Status.FAILED
    assert experiment.summary_by_policy()[bad]["runs"] == 1  # partial results are kept


def test_every_dispatched_run_records_its_task_id_even_if_a_worker_was_faster(small):
    """Eager Celery runs each task inside apply_async, before the id is written back: the
    race a fast worker wins against the dispatch loop (seen on PostgreSQL), every time."""
    experiment = submission.create_experiment(submit(small))
    runs = list(experiment.runs.all())
    assert {r.status for r in runs} == {Status.DONE}
    assert all(len(r.celery_id) == 36 for r in runs)
    assert len({r.celery_id for r in runs}) == len(runs)


def test_claim_is_idempotent_and_finished_runs_never_rerun(small):
    experiment = submission.create_experiment(submit(small, trials=1), dispatch=False)
    run = experiment.runs.first()
    assert execution.claim_run(run.pk) is not None
    assert execution.claim_run(run.pk) is None  # a duplicate message finds it running
    assert execution.execute_run(run.pk) == "skipped"
    Run.objects.filter(pk=run.pk).update(status=Status.DONE)
    assert execution.execute_run(run.pk) == "skipped"
    counts = execution.reap_stale_runs()
    assert (counts["requeued"], counts["failed"], counts["lost"]) == (0, 0, 0)
    assert counts["dispatched"] == 1  # the experiment's other run, never sent until now
    assert Run.objects.get(pk=run.pk).attempts == 1


def test_reaper_requeues_runs_of_dead_workers_then_fails_them(small, settings):
    settings.HETSITE_MAX_ATTEMPTS = 2
    experiment = submission.create_experiment(submit(small, trials=1), dispatch=False)
    run, other = experiment.runs.all()
    execution.claim_run(run.pk)
    execution.claim_run(other.pk)
    assert execution.reap_stale_runs()["requeued"] == 0  # heartbeat is fresh
    long_ago = timezone.now() - timezone.timedelta(hours=1)
    Run.objects.filter(pk=run.pk).update(heartbeat=long_ago)
    counts = execution.reap_stale_runs()  # eager Celery: the requeued run executes at once
    assert counts["requeued"] == 1
    done = Run.objects.get(pk=run.pk)
    assert done.status == Status.DONE and done.attempts == 2
    assert "requeued after its worker was lost" in done.error or done.error == ""
    Run.objects.filter(pk=other.pk).update(heartbeat=long_ago, attempts=2)
    assert execution.reap_stale_runs()["failed"] == 1
    failed = Run.objects.get(pk=other.pk)
    assert failed.status == Status.FAILED and "worker was lost 2 times" in failed.error


@pytest.mark.django_db(transaction=True)
def test_heartbeat_thread_touches_the_run(small):
    experiment = submission.create_experiment(submit(small, trials=1), dispatch=False)
    run = execution.claim_run(experiment.runs.first().pk)
    Run.objects.filter(pk=run.pk).update(heartbeat=timezone.now() - timezone.timedelta(hours=1))
    before = Run.objects.get(pk=run.pk).heartbeat
    deadline = time.monotonic() + 5
    with execution.Heartbeat(run, interval=0.05):
        while Run.objects.get(pk=run.pk).heartbeat == before and time.monotonic() < deadline:
            time.sleep(0.02)
    assert Run.objects.get(pk=run.pk).heartbeat > before


def test_cancel_revokes_queued_and_stops_running_at_next_event(small):
    experiment = submission.create_experiment(submit(small), dispatch=False)
    running = execution.claim_run(experiment.runs.first().pk)
    reporter = execution.ProgressReporter(running, min_interval=0.0)
    reporter(0.25)
    assert Run.objects.get(pk=running.pk).progress == 25.0
    submission.cancel_experiment(experiment)
    assert set(experiment.runs.exclude(pk=running.pk).values_list("status", flat=True)) == {
        Status.CANCELLED}
    with pytest.raises(RunCancelled):
        reporter(0.5)
    assert execution.execute_run(running.pk) == "skipped"


def test_cancelled_run_is_marked_by_execute(small, monkeypatch):
    experiment = submission.create_experiment(submit(small, trials=1), dispatch=False)
    run = experiment.runs.first()
    ui = kinds.get_kind(small["kind"])

    def cancel_midway(scenario, policy, seed, progress=None, inputs=None):
        Experiment.objects.filter(pk=experiment.pk).update(cancel_requested=True)
        progress(0.5)
        raise AssertionError("progress should have raised RunCancelled")

    monkeypatch.setattr(ui.engine, "simulate", cancel_midway)
    assert execution.execute_run(run.pk) == Status.CANCELLED
    assert Run.objects.get(pk=run.pk).status == Status.CANCELLED


def test_broker_down_leaves_nothing_behind(small, dead_redis_url, celery_config):
    celery_config(broker_url=dead_redis_url, task_always_eager=False,
                  broker_connection_retry=False, broker_connection_max_retries=0)
    with pytest.raises(submission.BrokerUnavailable, match="broker"):
        # No preset: the experiment gets a scenario row of its own, which must go too.
        params = submission.validate_scenario(kind=small["kind"], preset=small["preset"])
        submission.create_experiment(submit(small, preset="", params=params))
    assert Experiment.objects.count() == 0 and Run.objects.count() == 0
    assert not Scenario.objects.filter(is_preset=False).exists()


def test_rerun_and_delete(small):
    experiment = submission.create_experiment(submit(small, trials=1))
    again = submission.rerun_experiment(experiment)
    again.refresh_from_db()
    assert again.pk != experiment.pk and again.status == Status.DONE
    a = {r.policy: r.summary for r in experiment.runs.all()}
    b = {r.policy: r.summary for r in again.runs.all()}
    assert a == b  # same scenario and seeds give the same results
    submission.delete_experiment(experiment)
    assert not Experiment.objects.filter(pk=experiment.pk).exists()
    assert not Run.objects.filter(experiment_id=experiment.pk).exists()


def test_progress_selector_lists_runs_in_policy_order(small):
    experiment = submission.create_experiment(submit(small), dispatch=False)
    progress = selectors.progress_of(experiment)
    assert progress["status"] == Status.QUEUED
    assert [r["policy"] for r in progress["runs"]] == [
        p for p in small["policies"] for _ in range(2)]


def test_soft_time_limit_fails_the_run_with_the_limit(small, monkeypatch, settings):
    from celery.exceptions import SoftTimeLimitExceeded

    experiment = submission.create_experiment(submit(small, trials=1), dispatch=False)
    run = experiment.runs.first()
    ui = kinds.get_kind(small["kind"])

    def too_slow(scenario, policy, seed, progress=None, inputs=None):
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(ui.engine, "simulate", too_slow)
    settings.CELERY_TASK_SOFT_TIME_LIMIT = 42
    assert execution.execute_run(run.pk) == Status.FAILED
    assert Run.objects.get(pk=run.pk).error == "time limit of 42 s exceeded"


def test_store_failure_never_leaves_a_run_running(small, monkeypatch):
    experiment = submission.create_experiment(submit(small, trials=1), dispatch=False)
    run = experiment.runs.first()

    def broken_store(run, ui, result):
        raise OSError("disk full")

    monkeypatch.setattr(execution, "finish_run", broken_store)
    assert execution.execute_run(run.pk) == Status.FAILED
    assert Run.objects.get(pk=run.pk).error == "could not store the result: OSError: disk full"


def test_reaper_dispatches_queued_runs_that_never_reached_the_broker(small):
    """Runs wait in the database until a dispatch pass sends them: one whose creating request
    died before its pass (here: no pass at all) is sent by the reaper's."""
    experiment = submission.create_experiment(submit(small, trials=1), dispatch=False)
    assert not experiment.runs.exclude(celery_id="").exists()
    assert execution.reap_stale_runs()["dispatched"] == len(small["policies"])
    assert {r.status for r in experiment.runs.all()} == {Status.DONE}  # eager Celery


def test_load_presets_retires_presets_the_engines_no_longer_have(small):
    from hetsite.models import Scenario

    kept = Scenario.objects.create(kind="uav", name="sweep-uavs-5", preset="sweep-uavs-5",
                                   is_preset=True, params={})
    dropped = Scenario.objects.create(kind="uav", name="sweep-cv-1", preset="sweep-cv-1",
                                      is_preset=True, params={})
    Experiment.objects.create(name="old", kind="uav", scenario=kept, policies=["random"],
                              trials=1)
    count = submission.load_presets()
    assert count == Scenario.objects.filter(is_preset=True).count() > 0
    kept.refresh_from_db()
    assert not kept.is_preset and kept.experiments.count() == 1  # history keeps its scenario
    assert not Scenario.objects.filter(pk=dropped.pk).exists()
