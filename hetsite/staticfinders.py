"""Serve plotly.js locally (no CDN: users run air-gapped clusters), small, compressed, cached.

plotly.js is most of a result page's weight. Two bundles of the same version are served:

* ``plotly/plotly-cartesian-<version>.min.js`` (1.5 MB, about 0.5 MB gzipped): the cartesian
  trace types every lab chart uses, vendored from npm (``frontend/static/frontend/vendor``);
  pages load this one;
* ``plotly/plotly-<version>.min.js`` (4.8 MB): the full bundle shipped in the ``plotly``
  Python package, which ``app.js`` loads only for a figure with another trace type (also
  under its old name ``plotly/plotly.min.js``).

Versioned names are immutable for WhiteNoise (cached for good, see
``WHITENOISE_IMMUTABLE_FILE_TEST`` in the settings), and each file has a gzip copy beside it
that WhiteNoise sends to browsers that accept it. The files are written once per version to
``RUN_DIR/static-cache``; where that folder cannot be written the originals are served as they
are. ``collectstatic`` (production) compresses and hashes them as well.
"""

from __future__ import annotations

import gzip
import os
import re
import tempfile
from pathlib import Path

import plotly
from django.conf import settings
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PLOTLY_DIR = Path(plotly.__file__).resolve().parent / "package_data"
PACKAGE_FILE = PLOTLY_DIR / "plotly.min.js"
VENDOR_DIR = Path(__file__).resolve().parents[1] / "frontend" / "static" / "frontend" / "vendor"
_VERSION_RE = re.compile(rb"plotly\.js (?:\(cartesian - minified\) )?v(\d+\.\d+\.\d+)")


def bundle_version(path: Path) -> str:
    with open(path, "rb") as fh:
        found = _VERSION_RE.search(fh.read(400))
    return found.group(1).decode() if found else ""


def plotly_version() -> str:
    return bundle_version(PACKAGE_FILE) or plotly.__version__


VERSION = plotly_version()
VERSIONED = f"plotly-{VERSION}.min.js"
CARTESIAN = f"plotly-cartesian-{VERSION}.min.js"
# Names under the "plotly/" prefix and the file each one serves.
SOURCES = {VERSIONED: PACKAGE_FILE, "plotly.min.js": PACKAGE_FILE,
           CARTESIAN: VENDOR_DIR / CARTESIAN}
NAMES = [name for name, source in SOURCES.items() if source.is_file()]
URL = f"plotly/{CARTESIAN}" if CARTESIAN in NAMES else f"plotly/{VERSIONED}"
FULL_URL = f"plotly/{VERSIONED}"


def _cache_dir() -> Path | None:
    """A folder holding the bundles and their gzip copies, made once per version; None if the
    run folder is read-only (the original files are served then)."""
    target = Path(settings.RUN_DIR) / "static-cache" / f"plotly-{VERSION}"
    if all((target / f"{name}.gz").is_file() for name in NAMES):
        return target
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name in NAMES:
            data = SOURCES[name].read_bytes()
            for variant, content in ((name, data),
                                     (f"{name}.gz", gzip.compress(data, compresslevel=9,
                                                                  mtime=0))):
                fd, tmp = tempfile.mkstemp(dir=target)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(content)
                os.replace(tmp, target / variant)  # atomic: concurrent servers agree
    except OSError:
        return None
    return target


class PlotlyFinder(BaseFinder):
    def __init__(self, *args, **kwargs):
        self.directory = _cache_dir() or PLOTLY_DIR
        self.storage = FileSystemStorage(location=str(self.directory))
        self.storage.prefix = "plotly"

    def check(self, **kwargs):
        return []

    def _path(self, name: str) -> str:
        found = self.directory / name
        return str(found if found.is_file() else SOURCES[name.removesuffix(".gz")])

    def find(self, path, find_all=False, **kwargs):
        every = find_all or kwargs.get("all")
        prefix, _, name = path.partition("/")
        if prefix == "plotly" and (name in NAMES or name.removesuffix(".gz") in NAMES):
            found = self._path(name)
            return [found] if every else found
        return [] if every else None

    def list(self, ignore_patterns):
        # The gzip copies are listed too, so WhiteNoise (which stats the listed files once)
        # knows they exist and sends them to browsers that accept gzip.
        for name in NAMES:
            for variant in (name, f"{name}.gz"):
                if (self.directory / variant).is_file():
                    yield variant, self.storage
