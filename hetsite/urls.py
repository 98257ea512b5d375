from django.contrib import admin
from django.contrib.auth.views import LoginView, LogoutView
from django.urls import include, path

from . import views
from .logins import AdminLoginForm, LoginForm

admin.site.login_form = AdminLoginForm
handler400 = "hetsite.views.bad_request"

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    path("admin/plugins/", admin.site.admin_view(views.plugins), name="plugins"),
    path("admin/", admin.site.urls),
    path("api/", include("hetsite.api.urls")),
    # Only the two account views the site uses: passwords go through this rate-limited login
    # alone (django.contrib.auth.urls also served password change and an e-mail reset,
    # neither rate limited, with no mail configured).
    path("accounts/login/", LoginView.as_view(authentication_form=LoginForm), name="login"),
    path("accounts/logout/", LogoutView.as_view(), name="logout"),
    path("", include("frontend.urls")),
]
