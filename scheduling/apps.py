from django.apps import AppConfig


class SchedulingConfig(AppConfig):
    name = "scheduling"

    def ready(self):
        # The replay engine resolves "upload:<sha256>" traces in this directory (no paths ever
        # come from web input).
        from django.conf import settings

        from scheduling.engine import replay

        replay.UPLOAD_DIR = str(settings.HETSITE_TRACE_UPLOAD_DIR)
