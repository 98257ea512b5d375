"""Security headers Django's SecurityMiddleware does not set."""

from django.conf import settings

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


class OwnerCookieMiddleware:
    """Sends the anonymous-owner cookie issued while handling the request (permissions.py)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from .permissions import set_owner_cookie

        response = self.get_response(request)
        set_owner_cookie(request, response)
        return response
