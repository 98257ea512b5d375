"""Per-client rate limit on experiment creation, shared by the API and the form."""

from django.conf import settings
from rest_framework.throttling import SimpleRateThrottle


class SubmitThrottle(SimpleRateThrottle):
    """``HETSITE_SUBMIT_RATE`` creations per period per user (or per client address)."""

    scope = "experiments"

    def get_rate(self):
        return settings.HETSITE_SUBMIT_RATE  # read per request so deployments and tests set it

    def get_cache_key(self, request, view):
        user = getattr(request, "user", None)
        ident = f"user-{user.pk}" if user is not None and user.is_authenticated else \
            self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}
