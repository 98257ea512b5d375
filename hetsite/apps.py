from django.apps import AppConfig


class HetsiteConfig(AppConfig):
    name = "hetsite"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.contrib.auth.signals import user_logged_in

        from .permissions import adopt, viewer

        def adopt_on_login(sender, request, user, **kwargs):
            if request is not None:
                adopt(user, viewer(request).token)

        user_logged_in.connect(adopt_on_login, dispatch_uid="hetsite-adopt-on-login", weak=False)
