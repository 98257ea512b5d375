from django.contrib import admin
from django.urls import include, path

from . import views

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/", include("hetsite.api.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("frontend.urls")),
]
