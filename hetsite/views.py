from django.contrib import admin
from django.http import JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from .health import health_report
from .kinds import plugin_report


@never_cache
def healthz(request):
    report = health_report(details=getattr(request.user, "is_staff", False))
    return JsonResponse(report, status=200 if not report["failing"] else 503)


def plugins(request):
    """Staff only (wrapped by the admin's login in urls.py): the policy plugins this site
    loaded and those that failed, with the error of each."""
    installed, failed = plugin_report()
    return render(request, "hetsite/plugins.html",
                  {**admin.site.each_context(request), "title": "Policy plugins",
                   "installed": installed, "failed": failed})
