from django.http import JsonResponse
from django.views.decorators.cache import never_cache

from .health import health_report


@never_cache
def healthz(request):
    report = health_report(details=getattr(request.user, "is_staff", False))
    return JsonResponse(report, status=200 if not report["failing"] else 503)
