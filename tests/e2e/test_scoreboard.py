"""The scoreboard in headless Chromium: the counts per chapter and a claim's row read back
against docs/reproduction_status.json, and a figure run from the page through a real worker
whose result page judges the same claims live and gives the recorded verdicts again."""

import re

import pytest

from hetsite import kinds, scoreboard

pytestmark = [pytest.mark.browser, pytest.mark.realstack, pytest.mark.django_db(transaction=True)]


def shown(value) -> str:
    return scoreboard._g(value)


def test_the_figures_page_leads_with_the_recorded_counts_and_every_claim(live_server, page):
    status = scoreboard.load()
    figures = kinds.all_figures()
    page.goto(f"{live_server.url}/figures/")
    head = page.locator("#scoreboard-counts thead th").all_inner_texts()
    assert head == ["chapter", "holds", "inconclusive", "contradicted", "not run"]
    drawn = {}
    for row in page.locator("#scoreboard-counts tbody tr").all():
        cells = row.locator("th, td").all_inner_texts()
        drawn[cells[0]] = [int(c) for c in cells[1:]]
    expected = {name: [tally[c] for c in scoreboard.COLUMNS]
                for name, tally in scoreboard.counts(status, figures)}
    assert drawn == expected and len(drawn) >= 7
    total = page.locator("#scoreboard-counts tfoot td").all_inner_texts()
    assert [int(t) for t in total] == [sum(v[i] for v in expected.values()) for i in range(4)]
    rows = page.locator("#scoreboard-claims tbody tr")
    assert rows.count() == sum(sum(v) for v in expected.values())

    # Fig. 26's Conservative over EASY: recorded contradicted, with its interval and trace.
    (check,) = [c for c in status["figures"]["ch3-fig26"]["checks"]
                if (c["better"], c["worse"]) == ("conservative", "easy")]
    row = page.locator(f"#claim-ch3-fig26-{re.sub(r'[^a-z0-9]+', '-', check['key'])}")
    assert row.get_attribute("data-verdict") == "contradicted"
    cells = row.locator("td").all_inner_texts()
    assert cells[0].startswith("ch3-fig26") and "Fig. 26" in cells[0]
    assert cells[1].startswith("conservative > easy on pct_max_utility")
    assert int(cells[3]) == check["n"] == status["figures"]["ch3-fig26"]["trials"]
    assert cells[4] == (f"{shown(check['diff_mean'])} [{shown(check['diff_low'])}, "
                        f"{shown(check['diff_high'])}]")
    assert check["diff_high"] < 0 and cells[5].startswith("contradicted")
    assert scoreboard.trace_id("ch3-fig26", check) in cells[5]
    assert "differs: published 8.2" in cells[6]
    # provenance beside the verdict: a substitute input of Fig. 31
    fig31 = page.locator("#scoreboard-claims tbody tr[id^=claim-ch3-fig31-]").first
    assert "substitute input" in fig31.locator("td").last.inner_text()


def test_a_figure_run_from_the_page_judges_its_claims_live_as_recorded(
        live_server, live_celery, start_worker, page):
    start_worker(concurrency=2)
    figure = kinds.get_figure("ch4-quick")
    recorded = {c["key"]: c for c in scoreboard.load()["figures"]["ch4-quick"]["checks"]}
    page.set_default_timeout(60_000)
    page.goto(f"{live_server.url}/figures/")
    assert page.input_value(f"#trials-{figure.name}") == str(figure.trials)
    page.click(f"#run-{figure.name}")
    page.wait_for_url(re.compile(r"/e/[0-9a-f-]{36}/$"))
    page.wait_for_selector("#exp-status:text('done')", timeout=180_000)
    page.reload()
    rows = page.locator("#published-checks tbody tr")
    assert rows.count() == len(recorded) == len(figure.claims)
    for i in range(rows.count()):
        row = rows.nth(i)
        check = recorded[row.get_attribute("data-key")]
        cells = row.locator("td").all_inner_texts()
        # the recorded seeds and trials, so the same interval and verdict
        assert int(cells[2]) == check["n"] == figure.trials
        assert cells[3] == (f"{shown(check['diff_mean'])} [{shown(check['diff_low'])}, "
                            f"{shown(check['diff_high'])}]")
        assert row.get_attribute("data-verdict") == check["verdict"] == "holds"
        assert cells[4] == "holds" and cells[5].startswith("holds")
        assert "scaled system" in cells[-1]
