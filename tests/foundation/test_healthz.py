import json

import pytest
from django.test import Client


@pytest.fixture
def client():
    return Client()


@pytest.mark.django_db
def test_healthz_names_unreachable_broker(client, settings, dead_redis_url):
    settings.CELERY_BROKER_URL = dead_redis_url
    response = client.get("/healthz")
    assert response.status_code == 503
    body = json.loads(response.content)
    assert body["failing"] == ["broker"]
    assert body["checks"]["database"]["ok"] is True
    assert body["checks"]["broker"]["ok"] is False


@pytest.mark.django_db
def test_healthz_ok_with_real_redis(client, settings, redis_url):
    settings.CELERY_BROKER_URL = redis_url
    response = client.get("/healthz")
    assert response.status_code == 200, response.content
    assert json.loads(response.content)["failing"] == []
