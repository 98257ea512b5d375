"""plotly.js, most of a result page's weight, goes out compressed and cached for good."""

import gzip

import pytest
from django.template import Context, Template
from django.test import Client

from hetsite.staticfinders import VERSIONED


@pytest.fixture
def plotly_url():
    return Template("{% load lab %}{% plotly_js %}").render(Context())


def test_the_versioned_plotly_is_gzipped_and_immutable(plotly_url):
    assert plotly_url.endswith(VERSIONED)
    zipped = Client().get(plotly_url, HTTP_ACCEPT_ENCODING="gzip, br")
    plain = Client().get(plotly_url, HTTP_ACCEPT_ENCODING="identity")
    assert zipped.status_code == plain.status_code == 200
    assert zipped["Content-Encoding"] == "gzip" and "Content-Encoding" not in plain
    body = b"".join(zipped.streaming_content)
    full = b"".join(plain.streaming_content)
    assert len(body) < len(full) / 2 and gzip.decompress(body) == full
    for response in (zipped, plain):
        assert "immutable" in response["Cache-Control"]
        assert "max-age=315360000" in response["Cache-Control"]


def test_pages_use_the_versioned_plotly_and_the_old_name_still_works(plotly_url):
    assert Client().get("/static/plotly/plotly.min.js").status_code == 200
    html = Client().get("/new/uav/").content.decode()
    assert 'rel="icon"' in html
    assert Client().get("/favicon.ico").status_code == 301
