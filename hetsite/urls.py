from django.contrib import admin
from django.contrib.auth.views import LoginView
from django.urls import include, path

from . import views
from .logins import AdminLoginForm, LoginForm

admin.site.login_form = AdminLoginForm

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("admin/plugins/", admin.site.admin_view(views.plugins), name="plugins"),
    path("admin/", admin.site.urls),
    path("api/", include("hetsite.api.urls")),
    path("accounts/login/", LoginView.as_view(authentication_form=LoginForm), name="login"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("frontend.urls")),
]
