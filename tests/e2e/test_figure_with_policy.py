"""'Add my policy to this figure' in headless Chromium: a figure run from the figures page with
an added policy, through a real worker; its result page's comparison table read back against
the comparison recomputed from the experiment's stored runs."""

import re

import pytest

from hetsite import kinds, scoreboard, selectors
from hetsite.models import Experiment

pytestmark = [pytest.mark.browser, pytest.mark.realstack, pytest.mark.django_db(transaction=True)]

FIGURE = "many-task-dock6"


def test_an_added_policy_s_standing_is_read_off_the_figure_result_page(
        live_server, live_celery, start_worker, page):
    start_worker(concurrency=2)
    figure = kinds.get_figure(FIGURE)
    page.set_default_timeout(60_000)
    page.goto(f"{live_server.url}/figures/#{FIGURE}")
    page.fill(f"#trials-{FIGURE}", "3")
    page.click(f"#add-{FIGURE} summary")
    page.check(f"#add-{FIGURE} input[value='sorted']")
    page.click(f"#run-{FIGURE}")
    page.wait_for_url(re.compile(r"/e/[0-9a-f-]{36}/$"))
    page.wait_for_selector("#exp-status:text('done')", timeout=180_000)
    page.reload()

    public_id = page.url.rstrip("/").split("/")[-1]
    experiment = Experiment.objects.get(public_id=public_id)
    assert experiment.policies == [*figure.policies, "sorted"]
    expected = {(c["worse"], c["metric"]): c
                for c in scoreboard.standing_of(figure, selectors.sweep_runs(experiment))}
    rows = page.locator("#standing tbody tr")
    assert rows.count() == len(expected) == len(figure.policies) * len(figure.metrics)
    seen = set()
    for i in range(rows.count()):
        cells = rows.nth(i).locator("td").all_inner_texts()
        assert cells[0] == "sorted"
        metric = cells[2].split()[0]
        c = expected[(cells[1], metric)]
        seen.add((cells[1], metric))
        assert int(cells[3]) == c["n"] == 3
        assert cells[4] == (f"{scoreboard._g(c['diff_mean'])} [{scoreboard._g(c['diff_low'])}, "
                            f"{scoreboard._g(c['diff_high'])}]")
        assert cells[5] == c["standing"]
        assert rows.nth(i).get_attribute("data-standing") == c["standing"]
    assert seen == set(expected)
    # the published claims are still judged, on the published policies' runs
    assert page.locator("#published-checks tbody tr").count() == len(figure.claims)
