"""One rule for the numbers of stories, listings and pages (``simcore.explain.number_text``;
the run page's app.js is checked against it in tests/e2e/test_decision_panel.py)."""

import pytest

from simcore.explain import describe, number_text


@pytest.mark.parametrize("value, text", [
    (7694634.2, "7694634"),  # was 7.69463e+06 on the compare page
    (60829.834109341, "60829.8"), (264.21342723623326, "264.213"), (0.000123456, "0.000123456"),
    (5.0, "5"), (-0.0, "0"), (1.015625, "1.01563"), (-1.015625, "-1.01563"),  # half away from 0
    (999999.7, "1000000"), (1e-7, "1e-07"), (1e21, "1e+21"), (12, "12"),
    (None, "none"), (True, "true"), ("UAV 2", "UAV 2"), (float("nan"), "nan"),
])
def test_number_text(value, text):
    assert number_text(value) == text


def test_a_story_line_prints_by_the_rule():
    line = describe({"t": 7694634.25, "task": 3, "action": "held", "reason": "r",
                     "runner_up_score": None, "last": {"x": 0.1 + 0.2}}, " s")
    assert "t=7694634 s" in line and "runner_up_score=none" in line and "last=(x=0.3)" in line
