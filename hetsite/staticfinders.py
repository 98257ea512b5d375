"""Serve plotly.js from the installed plotly package (no CDN: users run air-gapped clusters).

plotly.js is 4.8 MB, most of a result page's weight. It is served under a versioned name
(``plotly/plotly-<version>.min.js``), which WhiteNoise marks immutable (cached for a year, see
``WHITENOISE_IMMUTABLE_FILE_TEST`` in the settings), and with a gzip copy beside it that WhiteNoise
sends to every browser that accepts it (about 1.5 MB). Both files are written once per plotly
version to ``RUN_DIR/static-cache``; where that folder cannot be written the package's own file
is served as it is. ``collectstatic`` (production) compresses and hashes it as well.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import tempfile
from pathlib import Path

import plotly
from django.conf import settings
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PLOTLY_DIR = Path(plotly.__file__).resolve().parent / "package_data"
PACKAGE_FILE = PLOTLY_DIR / "plotly.min.js"
_VERSION_RE = re.compile(rb"plotly\.js v(\d+\.\d+\.\d+)")


def plotly_version() -> str:
    with open(PACKAGE_FILE, "rb") as fh:
        found = _VERSION_RE.search(fh.read(400))
    return found.group(1).decode() if found else plotly.__version__


VERSIONED = f"plotly-{plotly_version()}.min.js"
# Names under the "plotly/" prefix; the unversioned one stays for pages that ask for it.
NAMES = [VERSIONED, "plotly.min.js"]
URL = f"plotly/{VERSIONED}"


def _cache_dir() -> Path | None:
    """A folder holding plotly.js and its gzip copy, made once per version; None if the run
    folder is read-only (the package's file is served then)."""
    target = Path(settings.RUN_DIR) / "static-cache" / f"plotly-{plotly_version()}"
    if (target / "plotly.min.js.gz").is_file():
        return target
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name in NAMES:
            if not (target / name).is_file():
                shutil.copyfile(PACKAGE_FILE, target / name)
        data = PACKAGE_FILE.read_bytes()
        packed = gzip.compress(data, compresslevel=9, mtime=0)
        for name in NAMES:
            fd, tmp = tempfile.mkstemp(dir=target)
            with os.fdopen(fd, "wb") as fh:
                fh.write(packed)
            os.replace(tmp, target / f"{name}.gz")  # atomic: concurrent servers agree
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
        return str(found if found.is_file() else PACKAGE_FILE)

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
