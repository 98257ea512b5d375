"""Django settings, read from the environment (django-environ).

Every variable is listed in the README. Defaults are safe for production: DEBUG is off and the
security middleware settings are strict unless DEBUG is turned on (``make run`` does that).
"""

import os
import secrets
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from hetsite import run_memory
from simcore import plugins as simcore_plugins

BASE_DIR = Path(__file__).resolve().parent.parent
RUN_DIR = BASE_DIR / ".run"  # git-ignored: local broker data, generated secret key, uploads

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)  # optional; silently absent

DEBUG = env.bool("DEBUG", default=False)


def _secret_key() -> str:
    """The configured key, or a random one persisted under .run/ so sessions survive restarts."""
    key = env.str("SECRET_KEY", default="")
    if key:
        return key
    path = RUN_DIR / "secret_key"
    if not path.exists():
        RUN_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(64))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # WhiteNoise serves static files under runserver too (gzip, cache headers), as in production.
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "hetsite",
    "scheduling",
    "uav",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "hetsite.middleware.RequestSizeMiddleware",
    "hetsite.middleware.SecurityHeadersMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "hetsite.middleware.OwnerCookieMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "hetsite.urls"
WSGI_APPLICATION = "hetsite.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server and the Celery worker write concurrently: WAL plus IMMEDIATE transactions
    # turn "database is locked" errors into short waits.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    # Tests that run a real worker process need a database file it can open too.
    DATABASES["default"]["TEST"] = {"NAME": str(RUN_DIR / "test_db.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "hetsite.staticfinders.PlotlyFinder",
]
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = True  # serve app static files without a collectstatic step in dev/tests
# Versioned plotly.js and hashed (collectstatic) names are cached by browsers for a year.
WHITENOISE_IMMUTABLE_FILE_TEST = (r"(/plotly(-cartesian)?-\d+\.\d+\.\d+\.min\.js"
                                  r"|\.[0-9a-f]{12}\.\w+)$")
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", default=str(RUN_DIR / "media")))

# --- security: strict unless DEBUG ------------------------------------------------------------
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
# Forwarded headers (X-Forwarded-For, X-Forwarded-Proto) are written by whoever sends the
# request, so they are believed only from the reverse proxies the operator says are in front:
# HETSITE_TRUSTED_PROXIES of them (0, the default: the web server faces clients directly).
HETSITE_TRUSTED_PROXIES = env.int("HETSITE_TRUSTED_PROXIES", default=0)
if HETSITE_TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured("HETSITE_TRUSTED_PROXIES must be 0 or more")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HETSITE_TRUSTED_PROXIES else None
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
# /healthz must answer plain HTTP probes from the orchestrator even behind an SSL redirect.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]

# --- Celery -----------------------------------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="redis://127.0.0.1:6379/0")
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default=REDIS_URL)
if CELERY_BROKER_URL.startswith("filesystem://"):
    # Embedded broker for machines without redis-server (``make run`` falls back to it): kombu's
    # filesystem transport passes messages through a folder, results go to files beside it.
    _broker_dir = Path(env.str("CELERY_BROKER_DIR", default=str(RUN_DIR / "broker")))
    for _sub in ("queue", "processed", "results", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),  # broadcast (revoke) messages
        "store_processed": False,
    }
    _default_backend = f"file://{_broker_dir / 'results'}"
else:
    _default_backend = REDIS_URL
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default=_default_backend)
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=1800)
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=1860)
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_WORKER_CONCURRENCY = env.int("CELERY_WORKER_CONCURRENCY", default=0) or None
# Memory of each worker pool process, so of each run (RLIMIT_DATA, set as the process starts;
# hetsite/run_memory.py): past it the run fails naming this setting. 0: no limit. The default
# holds the largest run the validation admits (docs/reliability.md, "Memory of a run"); a
# machine needs about CELERY_WORKER_CONCURRENCY times it for the workers.
HETSITE_RUN_MEMORY_MB = run_memory.parse_mb(env.str("HETSITE_RUN_MEMORY_MB", default="2048"))
# What a large run leaves in its pool process (parsed traces cached for the next run, heap not
# given back) would come out of the next run's limit, so a pool process whose resident memory
# ever passed 256 MB is replaced after its run (Celery's max_memory_per_child, in KiB; a fresh
# one holds about 100 MB).
CELERY_WORKER_MAX_MEMORY_PER_CHILD = 256 * 1024 if HETSITE_RUN_MEMORY_MB else None

# --- caches ---------------------------------------------------------------------------------
# "default" is each process's own memory (finished figures, recomputable); "shared" holds what
# every web process must agree on (rate-limit counts), so it is Redis whenever the broker is:
# three gunicorn workers with a cache each would each allow the whole rate.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "shared": env.cache_url(
        "SHARED_CACHE_URL",
        default=REDIS_URL if CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
        else "locmemcache://"),
}

# --- REST API ---------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["hetsite.api.parsers.BoundedJSONParser"],
    # The session and the anonymous-owner cookie; no HTTP Basic (a password on every request,
    # never rate limited like the login page).
    "DEFAULT_AUTHENTICATION_CLASSES": ["hetsite.api.auth.CookieAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "hetsite API",
    "DESCRIPTION": "Scenarios, experiments, runs and figures of the hetsite lab.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}

AUTHENTICATION_BACKENDS = ["hetsite.logins.RateLimitedModelBackend"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

# --- limits (bad or oversized input gets a 400 naming the limit) --------------------------------
# Rates are "N/period" (period: s, min, h or day, optionally with a count: "10/15min"), per
# client (a logged-in user, else the client address), counted in the shared cache.
HETSITE_SUBMIT_RATE = env.str("HETSITE_SUBMIT_RATE", default="30/min")  # creations
HETSITE_UPLOAD_RATE = env.str("HETSITE_UPLOAD_RATE", default="20/h")  # uploaded files
HETSITE_LOGIN_RATE = env.str("HETSITE_LOGIN_RATE", default="10/15min")  # failed logins
# Price quotes (the form's live estimate, "dry_run" API submissions): cheap, but not free.
HETSITE_ESTIMATE_RATE = env.str("HETSITE_ESTIMATE_RATE", default="120/min")
# Request bodies (Content-Length) above these are refused before they are read: JSON and forms
# (Django's DATA_UPLOAD_MAX_MEMORY_SIZE), and a form with files (plus HETSITE_MAX_TRACE_BYTES).
HETSITE_MAX_BODY_BYTES = env.int("HETSITE_MAX_BODY_BYTES", default=512 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = HETSITE_MAX_BODY_BYTES
DATA_UPLOAD_MAX_NUMBER_FILES = 4
# A scenario's parameters as JSON (a many-task list of run times is the large one; a file upload
# carries longer lists).
HETSITE_MAX_SCENARIO_BYTES = env.int("HETSITE_MAX_SCENARIO_BYTES", default=256 * 1024)
HETSITE_MAX_TRIALS = env.int("HETSITE_MAX_TRIALS", default=100)
HETSITE_MAX_POLICIES = env.int("HETSITE_MAX_POLICIES", default=40)
HETSITE_MAX_RUNS = env.int("HETSITE_MAX_RUNS", default=1000)
HETSITE_MAX_POINTS = env.int("HETSITE_MAX_POINTS", default=100)  # sweep points per experiment
# Runs that explain themselves ("Explain decisions"; docs/explain.md): at most this many per
# experiment, each log bounded to HETSITE_EXPLAIN_LIMIT decisions of which at most
# HETSITE_EXPLAIN_PER_TASK per task, and priced at the run's estimate times
# (1 + HETSITE_EXPLAIN_OVERHEAD). The default covers the worst overhead measured on a whole
# lab run (the replay's FCFS on 10,000 jobs: 2.6 times the run without the log; docs/explain.md).
HETSITE_EXPLAIN_MAX_RUNS = env.int("HETSITE_EXPLAIN_MAX_RUNS", default=20)
HETSITE_EXPLAIN_LIMIT = env.int("HETSITE_EXPLAIN_LIMIT", default=10_000)
HETSITE_EXPLAIN_PER_TASK = env.int("HETSITE_EXPLAIN_PER_TASK", default=16)
# An explained experiment may name up to this many tasks whose whole story its runs keep.
HETSITE_EXPLAIN_MAX_TASKS = env.int("HETSITE_EXPLAIN_MAX_TASKS", default=20)
HETSITE_EXPLAIN_OVERHEAD = env.float("HETSITE_EXPLAIN_OVERHEAD", default=2.0)
if HETSITE_EXPLAIN_PER_TASK < 2 or HETSITE_EXPLAIN_LIMIT < HETSITE_EXPLAIN_PER_TASK:
    raise ImproperlyConfigured("HETSITE_EXPLAIN_PER_TASK must be >= 2 and "
                               "HETSITE_EXPLAIN_LIMIT >= HETSITE_EXPLAIN_PER_TASK")
# Work and queues (hetsite/services/admission.py, dispatch.py; docs/reliability.md). A
# submission is priced in estimated worker-seconds; an account (a user, or an anonymous client
# address) may have at most its BUDGET of work and CAP runs queued or running at once; staff
# have no limits. The dispatcher keeps DISPATCH_AHEAD messages waiting in the broker, sent
# fairly between accounts; a queued run whose message the broker no longer holds after
# LOST_AFTER seconds is sent again.
HETSITE_BUDGET_ANONYMOUS_S = env.float("HETSITE_BUDGET_ANONYMOUS_S", default=2 * 3600.0)
HETSITE_BUDGET_USER_S = env.float("HETSITE_BUDGET_USER_S", default=100 * 3600.0)
HETSITE_QUEUE_CAP_ANONYMOUS = env.int("HETSITE_QUEUE_CAP_ANONYMOUS", default=2000)
# A logged-in account holds any one figure preset at its own size (72,000 runs at most).
HETSITE_QUEUE_CAP_USER = env.int("HETSITE_QUEUE_CAP_USER", default=100_000)
# Runs the workers simulate at once, for wall-time estimates (0: CELERY_WORKER_CONCURRENCY, else
# the web machine's cores; more worker processes seen busy raise it).
HETSITE_WORKER_SLOTS = env.int("HETSITE_WORKER_SLOTS", default=0)
HETSITE_DISPATCH_AHEAD = env.int("HETSITE_DISPATCH_AHEAD", default=16)
HETSITE_LOST_AFTER_SECONDS = env.float("HETSITE_LOST_AFTER_SECONDS", default=30.0)
# A running experiment's charts are redrawn at most this often (its page is fetched again as
# runs finish; drawing thousands of runs each time would grow with the experiment).
HETSITE_LIVE_FIGURES_SECONDS = env.float("HETSITE_LIVE_FIGURES_SECONDS", default=15.0)
# A running run's worker touches its heartbeat every HEARTBEAT seconds; after STALE seconds of
# silence the reaper (a thread in every worker, every REAP seconds) requeues it, and fails it
# after MAX_ATTEMPTS lost workers.
HETSITE_HEARTBEAT_SECONDS = env.float("HETSITE_HEARTBEAT_SECONDS", default=10.0)
HETSITE_STALE_RUN_SECONDS = env.float("HETSITE_STALE_RUN_SECONDS", default=60.0)
HETSITE_REAP_SECONDS = env.float("HETSITE_REAP_SECONDS", default=15.0)
HETSITE_MAX_ATTEMPTS = env.int("HETSITE_MAX_ATTEMPTS", default=3)
# Uploaded traces (hetsite/uploads.py): "database" keeps them in the database, where every
# worker reads them and writes each once into its local cache folder; "folder" keeps files in
# HETSITE_TRACE_UPLOAD_DIR, which web and workers must then share. Files found in that folder
# are imported into the database by migration 0003.
HETSITE_TRACE_STORE = env.str("HETSITE_TRACE_STORE", default="database")
if HETSITE_TRACE_STORE not in ("database", "folder"):
    raise ImproperlyConfigured(f"HETSITE_TRACE_STORE must be 'database' or 'folder', "
                               f"not {HETSITE_TRACE_STORE!r}")
HETSITE_TRACE_UPLOAD_DIR = Path(env.str("HETSITE_TRACE_UPLOAD_DIR",
                                         default=str(MEDIA_ROOT / "traces")))
HETSITE_TRACE_CACHE_DIR = Path(env.str("HETSITE_TRACE_CACHE_DIR",
                                        default=str(RUN_DIR / "trace-cache")))
HETSITE_MAX_TRACE_BYTES = env.int("HETSITE_MAX_TRACE_BYTES", default=50 * 1024 * 1024)
HETSITE_MAX_TRACE_DECODED_BYTES = env.int("HETSITE_MAX_TRACE_DECODED_BYTES",
                                          default=500 * 1024 * 1024)
# Records (a trace's jobs, a list's run times) of one upload. A worker replaying an uploaded
# trace holds about 1.5 kB a job at its peak (reading it whole, the replay, the result): 1.6 GB
# at 1,000,000 jobs, within HETSITE_RUN_MEMORY_MB's default; 2,000,000 needed 3 GB.
HETSITE_MAX_TRACE_JOBS = env.int("HETSITE_MAX_TRACE_JOBS", default=1_000_000)
# A gzip upload may decompress to at most this many times its size (a gzip bomb stops there).
HETSITE_MAX_TRACE_RATIO = env.int("HETSITE_MAX_TRACE_RATIO", default=30)
# CPU seconds the web process spends checking one uploaded file before refusing it as too big.
HETSITE_UPLOAD_CHECK_SECONDS = env.float("HETSITE_UPLOAD_CHECK_SECONDS", default=10.0)
# Uploads stream to a temporary file while they are hashed and counted (hetsite.uploads).
FILE_UPLOAD_HANDLERS = ["hetsite.uploads.CappedUploadHandler"]
# Site limits on scenario size are declared by the kinds with their defaults (`limits` in each
# kind's lab.py); a scenario above one is refused with a 400 naming the limit. This site's own
# value for one, by name: HETSITE_LIMIT_<NAME> (e.g. HETSITE_LIMIT_UAVS=100). An override that
# names no declared limit stops the start-up (hetsite.kinds.limit_problems).
HETSITE_LIMITS = {
    name.lower(): env.int(f"HETSITE_LIMIT_{name}")
    for name in (var.removeprefix("HETSITE_LIMIT_") for var in sorted(os.environ)
                 if var.startswith("HETSITE_LIMIT_"))
}
# Policy plugins (docs/plugins.md): the installed distributions whose hetsite.policies entry
# points load, comma-separated; unset, every installed one. A name not installed is reported on
# /admin/plugins/ and by `manage.py check`.
HETSITE_PLUGINS = simcore_plugins.parse(env.str("HETSITE_PLUGINS", default=None))
