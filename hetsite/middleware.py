"""Security headers Django's SecurityMiddleware does not set, request-size limits, and the
anonymous-owner cookie."""

from django.conf import settings
from django.http import HttpResponse
from django.middleware.csrf import get_token

CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    # plotly.js injects <style> elements and sets inline styles on its SVG
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])
PERMISSIONS = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"


class SecurityHeadersMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response
        self.csp = getattr(settings, "CONTENT_SECURITY_POLICY", CSP)

    def __call__(self, request):
        response = self.get_response(request)
        response.headers.setdefault("Content-Security-Policy", self.csp)
        response.headers.setdefault("Permissions-Policy", PERMISSIONS)
        return response


class RequestSizeMiddleware:
    """Refuses a request whose declared body is too large before a byte of it is read (413),
    and one whose query string or form body has more fields than Django parses (400, naming
    the limit, where Django's own 400 names nothing).

    Django checks ``DATA_UPLOAD_MAX_MEMORY_SIZE`` only when a form is parsed, the API's parser
    reads the stream without it, and a file upload is written to disk in full before any view
    runs. A multipart form may carry one upload of ``HETSITE_MAX_TRACE_BYTES`` (its streaming
    handler refuses a larger file as soon as it passes the limit); every other body gets
    ``DATA_UPLOAD_MAX_MEMORY_SIZE``. Without a Content-Length Django reads no body at all.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # Django counts a query string's fields so (raising TooManyFieldsSent) only once a
        # view reads it: with DEBUG on, each reader then renders the error page again
        query = request.META.get("QUERY_STRING", "")
        if (refused := _too_many_fields("query string", query.count("&") + 1 if query else 0)
                ) is not None:
            return refused
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            return HttpResponse("Content-Length is not a number.\n", status=400,
                                content_type="text/plain")
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        if request.content_type == "multipart/form-data":
            limit += settings.HETSITE_MAX_TRACE_BYTES
        if length > limit:
            return HttpResponse(f"The request body is {length:,} bytes; this site takes at most "
                                f"{limit:,}.\n", status=413, content_type="text/plain")
        if request.content_type == "application/x-www-form-urlencoded" and length:
            # A form body within the size limit, counted as Django counts it (its own answer,
            # from the CSRF check's read, is a bare 400); Django reads this body into memory
            # for the form anyway. A multipart form is counted by Django as it streams
            # (hetsite.views.bad_request says so in words).
            refused = _too_many_fields("form", request.body.count(b"&") + 1)
            if refused is not None:
                return refused
        return self.get_response(request)


def _too_many_fields(what: str, fields: int) -> HttpResponse | None:
    """A 400 for a query string or form body with more fields than Django parses (it counts
    one more than the ``&`` in it), naming the limit; None within it."""
    most = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
    if fields <= most:
        return None
    return HttpResponse(f"The {what} has {fields:,} fields; this site takes at most {most:,} "
                        "(DATA_UPLOAD_MAX_NUMBER_FIELDS).\n", status=400,
                        content_type="text/plain")


class OwnerCookieMiddleware:
    """Sends the anonymous-owner cookie issued while handling the request (permissions.py),
    with a CSRF cookie beside it: a client holding the owner cookie writes with a CSRF token
    from then on, as a browser form does (``hetsite.api.auth``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from .permissions import set_owner_cookie

        response = self.get_response(request)
        if set_owner_cookie(request, response):
            get_token(request)
        return response
