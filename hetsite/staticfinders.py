"""Serve plotly.js from the installed plotly package (no CDN: users run air-gapped clusters)."""

from pathlib import Path

import plotly
from django.contrib.staticfiles.finders import BaseFinder
from django.core.files.storage import FileSystemStorage

PLOTLY_DIR = Path(plotly.__file__).resolve().parent / "package_data"
FILES = {"plotly/plotly.min.js": "plotly.min.js"}


class PlotlyFinder(BaseFinder):
    def __init__(self, *args, **kwargs):
        self.storage = FileSystemStorage(location=str(PLOTLY_DIR))
        self.storage.prefix = "plotly"

    def check(self, **kwargs):
        return []

    def find(self, path, find_all=False, **kwargs):
        if path in FILES:
            found = str(PLOTLY_DIR / FILES[path])
            return [found] if find_all or kwargs.get("all") else found
        return [] if find_all or kwargs.get("all") else None

    def list(self, ignore_patterns):
        for name in FILES.values():
            yield name, self.storage
