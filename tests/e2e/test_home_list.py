"""The experiment list as it is drawn (issue 31, the pages): at 1400 px and at 390 px no word is
broken across lines, nothing spills sideways, and each row says its result, preset and owner."""

import pytest
from django.contrib.auth.models import User

from hetsite.models import Visibility
from hetsite.services import execution, submission

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every word of the list's text drawn on more than one line (a word split by a wrap).
BROKEN_WORDS = """(selector) => {
  const broken = [];
  document.querySelectorAll(selector).forEach((root) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set(Array.from(range.getClientRects())
          .filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  });
  return broken;
}"""


def make(name, owner=None, run=False, **fields):
    sub = submission.validate_submission(
        kind="uav", preset="small-baseline", policies=["random", "rbs", "max-value", "max-vpt"],
        trials=1, name=name, visibility=Visibility.PUBLIC, **fields)
    experiment = submission.create_experiment(sub, owner=owner, dispatch=False)
    for pk in experiment.runs.values_list("pk", flat=True) if run else []:
        execution.execute_run(pk)
    return experiment


@pytest.mark.parametrize("width", [1400, 390])
def test_the_list_breaks_no_word_and_says_result_preset_and_owner(live_server, page, width):
    grace = User.objects.create_user("grace")
    make("surveillance with four policies compared", owner=grace, run=True,
         tags="baseline, energy budget")
    make("a queued study of the small baseline", tags="waiting")
    make("cancelled policies done", owner=grace)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(live_server.url + "/")
    rows = page.locator("#experiments tbody tr")
    assert rows.count() == 3
    scope = "#experiments" if width > 700 else "#experiments tbody"
    assert page.evaluate(BROKEN_WORDS, scope) == []
    # Nothing wider than the window: no sideways scroll of the page or of the list.
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate("(() => { const s = document.querySelector('.table-scroll');"
                         " return s.scrollWidth <= s.clientWidth; })()")
    # The name gets a readable width: at least 12 characters a line.
    name = page.locator("#experiments tbody tr").first.locator("td.name a").bounding_box()
    assert name["width"] >= 12 * 7
    finished = rows.filter(has_text="surveillance with four")
    assert finished.locator("td.owner").inner_text() == "grace"
    assert "preset small-baseline" in finished.locator(".origin").inner_text()
    result = finished.locator("td.result").inner_text()
    assert "highest mean" in result and "(4 runs done)" in result
    queued = rows.filter(has_text="a queued study")
    assert queued.locator("td.owner").inner_text() == "anonymous"
    assert queued.locator("td.result").inner_text() == "no run done yet"
