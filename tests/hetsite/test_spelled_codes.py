"""Bare spec codes as people see them: the API keeps its fields and gains the spelled-out text
beside them; the new-run form and the figure presets page show the spelled-out text (code kept),
and a code the map does not know stays visible as it is."""

import html
import re

import pytest
from django.test import Client

from hetsite import kinds, reproduce
from simcore.params import describe
from simcore.references import ITEM, spell, speller

pytestmark = pytest.mark.django_db

SIMPLE = "Simple and its variants (ch. 2 spec §7.2)"


def test_the_api_keeps_spec_and_adds_spec_text():
    client = Client()
    listed = client.get("/api/policies/?kind=value-of-service").json()
    simple = next(p for p in listed if p["name"] == "simple")
    assert simple["spec"] == "§7.2" and simple["spec_text"] == SIMPLE
    kind = next(k for k in client.get("/api/kinds/").json() if k["kind"] == "value-of-service")
    assert next(p for p in kind["policies"] if p["name"] == "simple")["spec_text"] == SIMPLE
    # every policy of every kind carries both, and the text never loses the code
    for k in client.get("/api/kinds/").json():
        for p in k["policies"]:
            for code in ITEM.finditer(p["spec"]):
                assert code.group() in p["spec_text"] \
                    or speller().canonical(code.group()) in p["spec_text"], p


def test_the_api_adds_help_text_and_source_text():
    client = Client()
    pe = next(k for k in client.get("/api/kinds/").json() if k["kind"] == "parallel-energy")
    amp = next(p for p in pe["parameters"] if p["name"].endswith("arrival_amplitude"))
    assert amp["help"] == "relative amplitude of the sinusoidal rate (spec ch3 A9)"
    assert amp["help_text"] == ("relative amplitude of the sinusoidal rate "
                                "(arrival sinusoid (ch. 3 spec A9))")
    grid = {p["name"]: p for p in client.get("/api/presets/?kind=grid").json()}
    assert grid["grid-main"]["source"] == "§3, §8"
    assert grid["grid-main"]["source_text"] == "Workload (grid spec §3), experiments (grid spec §8)"
    figures = client.get("/api/figures/?kind=many-task").json()
    assert figures and all("source_text" in f and "source" in f for f in figures)


def test_the_new_run_form_spells_out_policy_specs_and_help_texts():
    page = Client().get("/new/value-of-service/").content.decode()
    row = re.search(r'<code>simple</code>\s*<span class="muted">(.*?)</span>', page, re.S)
    assert row and row.group(1).endswith(f"({html.escape(SIMPLE)})"), row and row.group(1)

    page = Client().get("/new/parallel-energy/")
    form = page.context["form"]
    name = next(kinds.PARAM_PREFIX + d["name"] for d in
                describe(kinds.get_kind("parallel-energy").engine_kind.config_cls)
                if d["name"].endswith("arrival_amplitude"))
    shown = re.search(rf'id="{form[name].auto_id}_help">(.*?)</small>',
                      page.content.decode(), re.S)
    assert shown, name
    assert html.unescape(shown.group(1)).startswith(
        "relative amplitude of the sinusoidal rate (arrival sinusoid (ch. 3 spec A9))")


def test_preset_sources_spelled_out_and_unknown_codes_shown_as_they_are():
    page = Client().get("/new/grid/?preset=grid-main").content.decode()
    about = re.search(r'id="preset-about">(.*?)</p>', page, re.S).group(1)
    assert "Source: Workload (grid spec §3), experiments (grid spec §8)." in html.unescape(about)
    page = Client().get("/new/many-task/?preset=dock6").content.decode()
    about = re.search(r'id="preset-about">(.*?)</p>', page, re.S).group(1)
    assert "Source: Armstrong et al., MTAGS 2010 §X (Fig. 8)." in html.unescape(about)


def test_the_figures_page_spells_out_figure_sources():
    figures = kinds.all_figures()
    fig = next(f for f in figures if f.kind == "grid" and "spec §9" in f.source)
    page = Client().get("/figures/").content.decode()
    head = re.search(rf'<article class="figure-preset" id="{fig.name}">\s*<h4>(.*?)</h4>',
                     page, re.S).group(1)
    assert "headline results (grid spec §9)" in html.unescape(head).lower(), head
    # the claims table names each claim's figure with its source, spelled out the same way
    row = re.search(rf'<a href="#{fig.name}"><code>{fig.name}</code></a><br>'
                    r'<span class="muted small">(.*?)</span>', page)
    assert row and "headline results (grid spec §9)" in html.unescape(row.group(1)), row


def test_the_reproduction_page_spells_out_the_source():
    fig = next(f for f in kinds.all_figures() if f.kind == "grid" and "spec §9" in f.source)
    page = html.unescape(reproduce.standalone_html(fig, [], []))
    published = re.search(r"<b>Published</b> \((.*?)\): ", page).group(1)
    assert "headline results (grid spec §9)" in published.lower(), published


def test_every_help_text_and_policy_of_every_kind_reads_without_the_spec():
    """What the form and the CLI show of each kind has a title for each code (a code the map
    lacks would stay bare): the list names the kind, the field and the code."""
    sp = speller()
    bare = []
    for kind_lab in kinds.all_kinds():
        home = sp.home_of_kind(kind_lab.kind)
        texts = [(d["name"], d["help"]) for d in describe(kind_lab.engine_kind.config_cls)]
        texts += [(f"policy {p.name}", t) for p in kind_lab.engine.list_policies(kind_lab.kind)
                  for t in (p.spec, p.description)]
        bare += [(kind_lab.kind, where, m.group()) for where, text in texts if text
                 for m, _ in sp.groups(spell(text, kind_lab.kind), home)]
    assert not bare, "add titles to simcore/spec_refs.json:\n" + "\n".join(map(str, bare))


def test_an_experiment_of_a_figure_shows_its_source_spelled_out():
    client = Client()
    response = client.post("/figures/ch5-fig-43-45/run/", {"trials": "1"})
    assert response.status_code == 302, response.content[:300]
    page = html.unescape(client.get(response["Location"]).content.decode())
    heading = re.search(r'<h2 id="published-title">(.*?)</h2>', page, re.S).group(1)
    assert "scheduling metrics (ch. 5 spec §2.4) (" in heading, heading
