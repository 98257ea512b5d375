"""plotly.js, most of a result page's weight, goes out compressed and cached for good."""

import gzip

import pytest
from django.template import Context, Template
from django.test import Client

from hetsite import staticfinders


@pytest.fixture
def plotly_url():
    return Template("{% load lab %}{% plotly_js %}").render(Context())


def test_pages_load_the_cartesian_bundle_of_the_packaged_plotly_version(plotly_url):
    assert plotly_url.endswith(staticfinders.CARTESIAN)
    vendored = staticfinders.VENDOR_DIR / staticfinders.CARTESIAN
    # Bump both together (frontend/static/frontend/vendor/README.md).
    assert staticfinders.bundle_version(vendored) == staticfinders.plotly_version()
    assert vendored.stat().st_size < staticfinders.PACKAGE_FILE.stat().st_size / 2


def test_the_versioned_plotly_is_gzipped_and_immutable(plotly_url):
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


def test_the_full_bundle_and_the_old_name_are_served_too(plotly_url):
    for name in (staticfinders.VERSIONED, "plotly.min.js"):
        response = Client().get(f"/static/plotly/{name}", HTTP_ACCEPT_ENCODING="gzip")
        assert response.status_code == 200 and response["Content-Encoding"] == "gzip"
    html = Client().get("/new/uav/").content.decode()
    assert 'rel="icon"' in html
    assert Client().get("/favicon.ico").status_code == 301
