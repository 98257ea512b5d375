from django.apps import AppConfig


class UavAppConfig(AppConfig):
    name = "uav"
