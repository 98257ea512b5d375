"""Refactors and speed work must not change any result: the fixed runs of ``cases.py`` give
byte-identical result JSON (compared by SHA-256) to the captured ones."""

import importlib.util
import json
import os
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("golden_cases", Path(__file__).with_name("cases.py"))
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)

EXPECTED = json.loads(cases.DIGESTS.read_text())


@pytest.fixture(autouse=True)
def pinned_code_version(monkeypatch):
    from simcore.result import code_version

    monkeypatch.setenv("HETSITE_CODE_VERSION", cases.PINNED_VERSION)
    yield
    code_version.cache_clear()  # later tests in this process see the real version again


def test_every_case_has_a_digest():
    assert sorted(EXPECTED) == sorted(cases.case_id(c) for c in cases.CASES)


@pytest.mark.parametrize("case", cases.CASES, ids=cases.case_id)
def test_result_json_is_unchanged(case):
    assert os.environ["HETSITE_CODE_VERSION"] == cases.PINNED_VERSION
    assert cases.digest(case) == EXPECTED[cases.case_id(case)]

