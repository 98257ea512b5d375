"""Who calls the API: the session's user, or an anonymous owner through the signed owner
cookie (``hetsite.permissions``).

Both are cookies a browser sends on its own, so a write that carries either passes Django's
CSRF check (a token matching the CSRF cookie, and an ``Origin`` of this site), as a form post
does: another site cannot make a visitor's browser cancel or delete what the visitor owns. A
write with an ``Origin`` header but no such cookie is checked too, so a foreign page cannot
submit through a visitor's browser at all. Clients without cookies (curl, scripts) need no
token; one that keeps the owner cookie receives a ``csrftoken`` cookie with it and sends its
value in ``X-CSRFToken``. There is no HTTP Basic authentication: passwords go only through the
rate-limited login page.
"""

from drf_spectacular.authentication import SessionScheme
from rest_framework.authentication import SessionAuthentication

from ..permissions import OWNER_COOKIE

SAFE_METHODS = ("GET", "HEAD", "OPTIONS", "TRACE")


class CookieAuthentication(SessionAuthentication):
    def authenticate(self, request):
        found = super().authenticate(request)  # checks CSRF for a logged-in user
        if found is None and request.method not in SAFE_METHODS and (
                OWNER_COOKIE in request.COOKIES or "HTTP_ORIGIN" in request.META):
            self.enforce_csrf(request)
        return found


class CookieScheme(SessionScheme):
    """The OpenAPI schema's security entry: the session cookie, as for DRF's own class."""

    target_class = "hetsite.api.auth.CookieAuthentication"
