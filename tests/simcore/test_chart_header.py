"""The header of a chart (simcore.charts.place_header): a y title longer than its axis is
broken onto lines that fit it, at spaces, losing no word."""

from hypothesis import given, settings
from hypothesis import strategies as st

from simcore import charts

words = st.lists(st.text(alphabet="abcdefghij%()", min_size=1, max_size=14), min_size=1,
                 max_size=30)


@settings(deadline=None)
@given(words, st.integers(min_value=12, max_value=60))
def test_wrapped_lines_keep_every_word_and_fit_unless_a_word_is_longer(parts, width):
    lines = charts.wrap_words(" ".join(parts), width)
    assert " ".join(lines).split() == parts
    assert all(len(line) <= width or " " not in line for line in lines)


def test_a_long_y_title_is_broken_to_fit_the_axis_and_a_short_one_is_kept():
    long = "total execution time of completed tasks minus simple (ks)"
    figure = charts.place_header({"data": [], "layout": charts.layout(
        "total execution time: difference to simple", "", long)})
    lines = figure["layout"]["yaxis"]["title"]["text"].split("<br>")
    assert len(lines) > 1 and " ".join(lines) == long
    room = (charts.DEFAULT_HEIGHT - figure["layout"]["margin"]["t"] - charts.BOTTOM_PX)
    assert all(len(line) * charts.AXIS_CHAR_PX <= room for line in lines)
    short = charts.place_header({"data": [], "layout": charts.layout("t", "", "wait (min)")})
    assert short["layout"]["yaxis"]["title"]["text"] == "wait (min)"


def test_a_legend_that_wraps_on_a_phone_leaves_the_axis_less_room():
    def figure(names):
        return {"data": [{"type": "scatter", "name": n} for n in names],
                "layout": charts.layout("t", "", "y")}
    many = [f"policy {i}" for i in range(12)]
    assert charts.legend_px(figure(["a"])) < charts.legend_px(figure(many))
    hidden = figure(["a", "b"])
    hidden["layout"]["showlegend"] = False
    assert charts.legend_px(hidden) == 0
