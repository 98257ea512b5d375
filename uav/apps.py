from django.apps import AppConfig


class UavConfig(AppConfig):
    name = "uav"
