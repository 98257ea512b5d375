"""The lab finds its kinds by their entry points, and every limit a kind declares is enforced
at its declared default unless the site overrides it; an override of no limit, or two defaults
for one limit, is an error at start-up."""

import importlib.metadata
from dataclasses import replace

import pytest
from django.core import checks
from django.core.exceptions import ImproperlyConfigured

from hetsite import kinds
from hetsite.services import submission
from simcore import lab as core_lab
from simcore.errors import ScenarioError
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


def test_the_shipped_kinds_agree_on_every_limit_and_start_without_overrides(settings):
    settings.HETSITE_LIMITS = {}
    assert kinds.limit_problems(kinds.all_kinds()) == []
    assert [e for e in checks.run_checks() if e.id.startswith("hetsite.")] == []


def test_a_declared_limit_is_enforced_at_its_default_and_at_an_override(settings):
    settings.HETSITE_LIMITS = {}
    lab = kinds.get_kind("parallel-energy")
    default = next(limit for limit in lab.limits if limit.name == "sim_hours").default
    request = {"kind": lab.kind, "preset": "small", "policies": ["max-upe-ph"], "trials": 1}
    with pytest.raises(ScenarioError) as err:
        submission.validate_submission(params={"time": {"sim_h": default + 1}}, **request)
    assert err.value.field == "time.sim_h"
    assert f"limit sim_hours = {default:,} (HETSITE_LIMIT_SIM_HOURS)" in err.value.message
    submission.validate_submission(params={"time": {"sim_h": default}}, **request)
    settings.HETSITE_LIMITS = {"sim_hours": default + 1}
    submission.validate_submission(params={"time": {"sim_h": default + 1}}, **request)


def test_an_override_that_names_no_limit_fails_the_start_up_check(settings, monkeypatch):
    settings.HETSITE_LIMITS = {"uavs": 9, "uav_count": 5}
    errors = [e for e in checks.run_checks() if e.id.startswith("hetsite.")]
    assert len(errors) == 1 and errors[0].id == "hetsite.E002"
    assert errors[0].msg.startswith("HETSITE_LIMIT_UAV_COUNT overrides no limit (the limits: ")
    assert "uavs" in errors[0].msg
    # A process that skipped the check (a worker) refuses at its first use of the kinds.
    monkeypatch.setattr(kinds, "_loaded", False)
    with pytest.raises(ImproperlyConfigured, match="HETSITE_LIMIT_UAV_COUNT overrides no limit"):
        kinds.all_kinds()


def test_the_overrides_are_read_from_the_environment_by_name(monkeypatch):
    import importlib

    import hetsite.settings as site_settings

    monkeypatch.setenv("HETSITE_LIMIT_UAVS", "12")
    monkeypatch.setenv("HETSITE_LIMIT_SWARMS", "3")
    try:
        assert importlib.reload(site_settings).HETSITE_LIMITS == {"swarms": 3, "uavs": 12}
        assert kinds.limit_problems(kinds.all_kinds(), site_settings.HETSITE_LIMITS) == [
            "HETSITE_LIMIT_SWARMS overrides no limit (the limits: "
            + ", ".join(sorted({limit.name for lab in kinds.all_kinds()
                                for limit in lab.limits})) + ")"]
    finally:
        monkeypatch.undo()
        importlib.reload(site_settings)


def test_two_kinds_that_declare_one_limit_with_different_defaults_are_refused():
    uav, grid = kinds.get_kind("uav"), kinds.get_kind("grid")
    grown = replace(uav, limits=[*uav.limits, Limit("nodes", "uavs_mean", len, "nodes",
                                                    default=7)])
    assert kinds.limit_problems([grid, grown], {}) == [
        "limit 'nodes' has different defaults: 50,000 (kind 'grid'), 7 (kind 'uav')"]
