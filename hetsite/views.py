from django.conf import settings
from django.contrib import admin
from django.core.exceptions import TooManyFieldsSent, TooManyFilesSent
from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.views import defaults
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


def bad_request(request, exception, template_name="400.html"):
    """Django's 400 page, except for a multipart form with more fields or files than it
    parses (counted as the form is read), which is said in words (``handler400``)."""
    if isinstance(exception, TooManyFieldsSent):
        return HttpResponse(f"The form has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} "
                            "fields; this site takes at most that many "
                            "(DATA_UPLOAD_MAX_NUMBER_FIELDS).\n", status=400,
                            content_type="text/plain")
    if isinstance(exception, TooManyFilesSent):
        return HttpResponse(f"The form has more than {settings.DATA_UPLOAD_MAX_NUMBER_FILES:,} "
                            "files; this site takes at most that many "
                            "(DATA_UPLOAD_MAX_NUMBER_FILES).\n", status=400,
                            content_type="text/plain")
    return defaults.bad_request(request, exception, template_name)
