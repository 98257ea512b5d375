"""Settings for the test suite: production settings with plain-HTTP live servers allowed."""

import os

os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
os.environ.setdefault("SESSION_COOKIE_SECURE", "0")
os.environ.setdefault("CSRF_COOKIE_SECURE", "0")
os.environ.setdefault("SECURE_HSTS_SECONDS", "0")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")
os.environ.setdefault("HETSITE_SUBMIT_RATE", "100000/min")  # tests that need it lower set it
os.environ.setdefault("HETSITE_UPLOAD_RATE", "100000/min")
os.environ.setdefault("HETSITE_ESTIMATE_RATE", "100000/min")
# Rate-limit counts in this process's memory; the real-stack tests point it at their Redis.
os.environ.setdefault("SHARED_CACHE_URL", "locmemcache://")

from .settings import *  # noqa: E402,F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}  # noqa: F405
