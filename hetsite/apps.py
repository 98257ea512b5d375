from django.apps import AppConfig


class HetsiteConfig(AppConfig):
    name = "hetsite"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.conf import settings
        from django.contrib.auth.signals import user_logged_in
        from django.core import checks

        from simcore import plugins
        from simcore.lab import use_uploads

        from . import tasks  # noqa: F401  (registers the Celery tasks in every process)
        from .kinds import check_kinds
        from .permissions import adopt, viewer
        from .uploads import SiteUploads

        use_uploads(SiteUploads())
        plugins.allow(settings.HETSITE_PLUGINS)
        checks.register(check_kinds)

        def adopt_on_login(sender, request, user, **kwargs):
            if request is not None:
                adopt(user, viewer(request).token)

        user_logged_in.connect(adopt_on_login, dispatch_uid="hetsite-adopt-on-login", weak=False)
