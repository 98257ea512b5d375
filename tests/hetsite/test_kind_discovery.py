"""The lab finds its kinds by their entry points, and every limit a kind declares is enforced:
one without a setting, or a setting or override without a limit, is an error at start-up."""

import importlib.metadata
from dataclasses import replace

import pytest
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from hetsite import kinds
from hetsite.services import submission
from simcore import lab as core_lab
from simcore.lab import Limit


def test_the_lab_lists_the_kinds_its_entry_points_name_in_their_declared_order():
    declared = [ep.name for ep in core_lab._declared()]
    assert declared[0] == "parallel-energy" and "uav" in declared
    assert [ep.name for ep in core_lab.entry_points()][:len(declared)] == declared
    assert [lab.kind for lab in kinds.all_kinds()][:len(declared)] == declared


def test_an_entry_point_that_names_no_lab_kind_or_another_kind_fails_loudly(monkeypatch):
    monkeypatch.setattr(core_lab, "_KINDS", {})
    wrong = [importlib.metadata.EntryPoint("uav", "uav.lab:METRICS", core_lab.GROUP)]
    monkeypatch.setattr(core_lab, "entry_points", lambda: wrong)
    with pytest.raises(TypeError, match="must name a LabKind, not list"):
        core_lab.discover()
    other = [importlib.metadata.EntryPoint("grid", "uav.lab:LAB", core_lab.GROUP)]
    monkeypatch.setattr(core_lab, "entry_points", lambda: other)
    with pytest.raises(ValueError, match="names kind 'uav'"):
        core_lab.discover()


def test_the_shipped_kinds_and_settings_agree_on_every_limit(settings):
    assert kinds.limit_problems(kinds.all_kinds(), environ={}) == []
    assert [e for e in checks.run_checks() if e.id.startswith("hetsite.")] == []


def test_a_declared_limit_without_a_setting_fails_the_start_up_check_and_the_submission(
        settings):
    settings.HETSITE_LIMITS = {k: v for k, v in settings.HETSITE_LIMITS.items() if k != "uavs"}
    errors = [e for e in checks.run_checks() if e.id.startswith("hetsite.")]
    assert [e.msg for e in errors] == [
        "kind 'uav' declares limit 'uavs', which HETSITE_LIMITS does not set"]
    # Never silently unenforced, even where the check was not run.
    with pytest.raises(ImproperlyConfigured, match="'uavs'"):
        submission.validate_submission(kind="uav", preset="small-baseline",
                                       policies=["random"], trials=1)


def test_a_setting_or_an_override_that_names_no_limit_is_refused(settings):
    labs = kinds.all_kinds()
    configured = {**settings.HETSITE_LIMITS, "uav_count": 5}
    assert kinds.limit_problems(labs, configured, environ={}) == [
        "HETSITE_LIMITS sets 'uav_count', a limit no kind declares"]
    problems = kinds.limit_problems(labs, environ={"HETSITE_LIMIT_UAVS": "9",
                                                  "HETSITE_LIMIT_UAV": "9"})
    assert len(problems) == 1 and problems[0].startswith("HETSITE_LIMIT_UAV overrides no limit")


def test_a_new_kind_s_limit_is_checked_by_name():
    uav = kinds.get_kind("uav")
    grown = replace(uav, limits=[*uav.limits, Limit("swarms", "uavs_mean", len, "swarms")])
    assert kinds.limit_problems([grown], environ={}) == [
        "kind 'uav' declares limit 'swarms', which HETSITE_LIMITS does not set"] + [
        f"HETSITE_LIMITS sets {name!r}, a limit no kind declares"
        for name in kinds.settings.HETSITE_LIMITS if name not in ("uavs", "targets")]
