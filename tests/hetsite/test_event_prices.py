"""The outside audit's two requests, through the API: a UAV experiment with a tiny mapping
interval and a ch. 3 one with a 1-second interval. The first is refused naming the field
(the scenario validation, as the CLI and the form); what stays within the caps is priced by
its mapping events, so half the interval about doubles the quote."""

import pytest
from rest_framework.test import APIClient

from hetsite.models import Experiment

pytestmark = pytest.mark.django_db(transaction=True)

UAV_POLICIES = ["random", "rbs", "max-value", "max-vpt", "max-vpe", "meta", "meta+p",
                "meta+f", "meta+pf", "max-vpe+pf"]


def quote(body: dict):
    return APIClient().post("/api/experiments/", {**body, "dry_run": True}, format="json")


def uav(interval: float) -> dict:
    return {"kind": "uav", "preset": "small-baseline", "policies": UAV_POLICIES,
            "trials": 100, "params": {"mapping_interval_min": interval}}


def energy(interval: float) -> dict:
    return {"kind": "parallel-energy", "preset": "small", "policies": ["easy"],
            "params": {"time": {"mapping_interval_s": interval}}}


def test_the_audits_uav_request_is_refused_naming_the_interval():
    response = quote(uav(1e-6))
    assert response.status_code == 400, response.content
    message = response.json()["params.mapping_interval_min"][0]
    assert "1,440,000,000 mapping events" in message and "at most 200,000" in message
    assert Experiment.objects.count() == 0


def test_uav_quotes_follow_the_mapping_events():
    default = quote(uav(5.0)).json()
    fine = quote(uav(0.02)).json()
    finer = quote(uav(0.01)).json()
    assert finer["estimated_cpu_s"] / fine["estimated_cpu_s"] == pytest.approx(2.0, rel=0.05)
    # 144,000 events a run instead of 288: 1,000 runs are far beyond an anonymous budget
    assert finer["estimated_cpu_s"] > 100 * default["estimated_cpu_s"]
    assert finer["admitted"] is False and finer["refusal"]["field"] == "budget"


def test_ch3_quotes_follow_the_mapping_events():
    default = quote(energy(60.0)).json()
    one = quote(energy(1.0)).json()
    two = quote(energy(2.0)).json()
    # the audit: 1 s was quoted 0.353 s like 60 s and took 37.7 s of CPU
    assert one["estimated_cpu_s"] > 30 * default["estimated_cpu_s"]
    assert one["estimated_cpu_s"] > 37.7
    assert one["estimated_cpu_s"] / two["estimated_cpu_s"] == pytest.approx(2.0, rel=0.05)
    response = quote({**energy(1.0), "params": {"time": {"mapping_interval_s": 1.0,
                                                          "sim_h": 336.0}}})
    assert response.status_code == 400
    assert "at most 200,000" in response.json()["params.time.mapping_interval_s"][0]
