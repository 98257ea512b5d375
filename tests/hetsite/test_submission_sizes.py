"""Issue 27 (1): a submission's size is checked from the lengths of its axes, before the
product of the axes (or a long range) is built. Measured with tracemalloc: what validation
allocates besides the request body itself."""

import tracemalloc

import pytest
from rest_framework.test import APIClient

from hetsite.models import Experiment
from hetsite.services import submission
from simcore.errors import ScenarioError

pytestmark = pytest.mark.django_db

UAV = {"kind": "uav", "preset": "small-baseline", "policies": ["random"], "trials": 1}
BIG = list(range(1, 1001))


def peak_bytes(fn) -> int:
    """Peak memory allocated while ``fn`` runs (ScenarioError expected); the kinds and their
    engines are imported first, so that their modules do not count."""
    submission.validate_submission(**UAV)
    tracemalloc.start()
    try:
        with pytest.raises(ScenarioError) as err:
            fn()
        return tracemalloc.get_traced_memory()[1], err.value
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("axes", [
    # two 1,000-value lists: a million points if the product were built
    [{"param": "uavs_mean", "values": BIG}, {"param": "targets_mean", "values": BIG}],
    # the same as ranges
    [{"param": "uavs_mean", "start": 1, "stop": 1000, "step": 1},
     {"param": "targets_mean", "start": 1, "stop": 1000, "step": 1}],
    # three axes of 100 values each: every one fits the point limit alone
    [{"param": p, "values": list(range(1, 101))} for p in
     ("uavs_mean", "targets_mean", "horizon_h")],
    # one list far longer than any limit
    [{"param": "uavs_mean", "values": list(range(200_000))}],
    # a range of a million values
    [{"param": "uavs_mean", "start": 1, "stop": 1_000_000, "step": 1}],
])
def test_oversized_sweeps_are_refused_before_anything_is_built(axes):
    peak, err = peak_bytes(lambda: submission.validate_submission(**UAV, axes=axes))
    assert err.field == "axes" and "at most" in err.message
    # The scenario's own validation takes a few hundred kB; a million point dicts took 190 MB.
    assert peak < 3_000_000, f"validation allocated {peak / 1e6:.1f} MB"


def test_the_count_named_in_the_error_is_the_product_of_the_lengths(settings):
    settings.HETSITE_MAX_POINTS = 50
    axes = [{"param": "uavs_mean", "values": list(range(1, 41))},
            {"param": "targets_mean", "start": 1, "stop": 40, "step": 1}]
    response = APIClient().post("/api/experiments/", {**UAV, "axes": axes}, format="json")
    assert response.status_code == 400
    assert "1,600 sweep points; at most 50" in response.json()["axes"][0]
    assert Experiment.objects.count() == 0


def test_typed_ranges_and_lists_are_counted_before_parsing():
    with pytest.raises(ScenarioError, match="at most"):
        submission.axis_values(submission.parse_axis_text("x", "1:1000000:1"), most=100)
    text = ",".join(["1"] * 500_000)
    peak, err = peak_bytes(lambda: submission.parse_axis_text("x", text))
    assert "500,000 values" in err.message
    assert peak < 1_000_000


def test_axis_values_must_be_scalars():
    axes = [{"param": "uavs_mean", "values": [[[[1]]], {"a": 2}]}]
    response = APIClient().post("/api/experiments/", {**UAV, "axes": axes}, format="json")
    assert response.status_code == 400 and "numbers" in response.json()["axes"][0]
