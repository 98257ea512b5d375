from django.core.management.base import BaseCommand

from hetsite.services.submission import load_presets


class Command(BaseCommand):
    help = "Create or update one saved Scenario per engine preset (the seeds' baseline setups)."

    def handle(self, *args, **options):
        count = load_presets()
        self.stdout.write(f"{count} preset scenarios loaded")
