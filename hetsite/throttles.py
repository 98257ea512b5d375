"""Rate limits shared by every web process: creations, uploads and failed logins.

Counts live in the ``shared`` cache (Redis whenever the broker is Redis), so three gunicorn
workers, or three machines, allow a rate once between them, not once each. A client is a
logged-in user, else its address: the connection's peer or, behind ``HETSITE_TRUSTED_PROXIES``
reverse proxies, the address the outermost of them saw. Any other ``X-Forwarded-For`` entry is
whatever the client chose to write. IPv6 clients count per /64, the block one subscriber gets.

A limit is a sliding window estimated from two fixed windows (this window's count plus the
previous one's, weighted by how much of it the sliding window still covers), so a client
cannot double its rate across a window boundary; counts are atomic increments (Redis INCR).
When the cache cannot be reached the request is refused with a 503: an unreachable limiter
must not mean no limit.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import re
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import ImproperlyConfigured
from rest_framework.exceptions import APIException
from rest_framework.throttling import BaseThrottle

log = logging.getLogger(__name__)

# scope -> (setting, what the client did too often)
SCOPES = {
    "create": ("HETSITE_SUBMIT_RATE", "Too many submissions from this client"),
    "upload": ("HETSITE_UPLOAD_RATE", "Too many uploaded files from this client"),
    "login": ("HETSITE_LOGIN_RATE", "Too many failed logins for this account or address"),
    "estimate": ("HETSITE_ESTIMATE_RATE", "Too many price quotes from this client"),
}
_UNITS = {"s": 1, "sec": 1, "second": 1, "m": 60, "min": 60, "minute": 60, "h": 3600,
          "hour": 3600, "d": 86400, "day": 86400}
_RATE_RE = re.compile(r"^(\d+)/(\d*)([a-z]+?)s?$")


@dataclass(frozen=True)
class Rate:
    count: int
    seconds: int

    @classmethod
    def parse(cls, text: str, name: str = "rate") -> Rate:
        """``30/min``, ``20/h``, ``10/15min`` (also DRF's ``30/minute``)."""
        m = _RATE_RE.match("".join(str(text).lower().split()))
        if m is None or m.group(3) not in _UNITS or m.group(2) == "0":
            raise ImproperlyConfigured(f"{name} must look like 30/min, 20/h or 10/15min, "
                                       f"not {text!r}")
        return cls(int(m.group(1)), int(m.group(2) or 1) * _UNITS[m.group(3)])


@dataclass(frozen=True)
class Denied:
    """A refused request: why, and when to try again."""

    wait: int  # seconds
    message: str
    status: int = 429


def client_address(request) -> str:
    """The address a request came from, believing ``X-Forwarded-For`` only as far as the
    configured proxies wrote it: each proxy appends the address it received from, so with N
    proxies the client is the N-th entry from the right."""
    address = request.META.get("REMOTE_ADDR", "")
    proxies = settings.HETSITE_TRUSTED_PROXIES
    if proxies:
        hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
                if h.strip()]
        if hops:
            address = hops[-min(proxies, len(hops))]
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address[:64] or "unknown"
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


def client_key(request) -> str:
    """Whom a request counts against: the logged-in user, else the client address."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return f"addr:{client_address(request)}"


@dataclass(frozen=True)
class Limit:
    """One rate of ``SCOPES``, counted per client key in the shared cache."""

    scope: str

    @property
    def rate(self) -> Rate:
        name = SCOPES[self.scope][0]
        return Rate.parse(getattr(settings, name), name)

    def take(self, who: str, now: float | None = None) -> Denied | None:
        """Count one request (at ``now``, a Unix time; default: the clock); past the rate it
        is refused and not counted."""
        return self._apply(who, True, time.time() if now is None else now)

    def over(self, who: str) -> Denied | None:
        """Whether one more event would be past the rate (counts nothing)."""
        return self._apply(who, False, time.time())

    def add(self, who: str) -> None:
        """Count one event unconditionally (a failed login)."""
        rate = self.rate
        try:
            self._incr(self._keys(who, rate, time.time())[0], rate)
        except Exception:
            log.exception("rate limit %s: the shared cache is unreachable", self.scope)

    def _keys(self, who: str, rate: Rate, now: float) -> tuple[str, str, float]:
        window = int(now // rate.seconds)
        base = f"rate:{self.scope}:{who}:"
        return base + str(window), base + str(window - 1), now / rate.seconds - window

    @staticmethod
    def _incr(key: str, rate: Rate) -> int:
        cache = caches["shared"]
        # Kept two windows: the next window reads it as its previous one.
        cache.add(key, 0, timeout=2 * rate.seconds + 1)
        try:
            return cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, timeout=2 * rate.seconds + 1)
            return 1

    def _apply(self, who: str, take: bool, now: float) -> Denied | None:
        rate = self.rate
        key, previous_key, into = self._keys(who, rate, now)
        cache = caches["shared"]
        try:
            current = self._incr(key, rate) if take else (cache.get(key) or 0) + 1
            previous = cache.get(previous_key) or 0
            if current + previous * (1.0 - into) <= rate.count:
                return None
            if take:
                cache.decr(key)
        except Exception:
            log.exception("rate limit %s: the shared cache is unreachable", self.scope)
            return Denied(30, "The rate limiter is unavailable; please try again shortly.",
                          status=503)
        wait = _wait(rate, current - 1, previous, into)
        return Denied(wait, f"{SCOPES[self.scope][1]}; try again in {wait} s.")


def _wait(rate: Rate, current: int, previous: int, into: float) -> int:
    """Seconds until one more event fits: the previous window's weight falls linearly through
    this one; past the rate within this window, this window's count starts falling in the
    next."""
    room = rate.count - current - 1
    if rate.count > 0 and room >= 0 and previous:
        return max(1, math.ceil((1.0 - room / previous - into) * rate.seconds))
    later = 1.0 - (rate.count - 1) / current if current and rate.count > 0 else 1.0
    return max(1, math.ceil((1.0 - into + max(later, 0.0)) * rate.seconds))


class LimiterUnavailable(APIException):
    status_code = 503
    default_detail = "The rate limiter is unavailable; please try again shortly."
    default_code = "limiter_unavailable"


class SubmitThrottle(BaseThrottle):
    """API creations (experiments, figure runs, scenarios): ``HETSITE_SUBMIT_RATE``."""

    scope = "create"
    denied: Denied | None = None

    def allow_request(self, request, view) -> bool:
        self.denied = Limit(self.scope).take(client_key(request))
        if self.denied is not None and self.denied.status == 503:
            raise LimiterUnavailable()
        return self.denied is None

    def wait(self):
        return self.denied.wait if self.denied else None


class EstimateThrottle(SubmitThrottle):
    """Price quotes (``"dry_run": true``): ``HETSITE_ESTIMATE_RATE``."""

    scope = "estimate"


def refused(request, scope: str = "create") -> Denied | None:
    """Count one request of a page against its client; the refusal, if past the rate."""
    return Limit(scope).take(client_key(request))
