# One image for the web server and the Celery workers.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# The project itself, so its kinds are found by their entry points (pyproject.toml).
RUN pip install --no-deps -e .
ARG CODE_VERSION=unknown
ENV HETSITE_CODE_VERSION=$CODE_VERSION
RUN SECRET_KEY=build-only python manage.py collectstatic --noinput

# The media volume is mounted below .run: created here, a new volume takes this owner.
RUN useradd --create-home hetsite && mkdir -p /app/.run/media && chown -R hetsite /app/.run
USER hetsite

EXPOSE 8000
CMD ["gunicorn", "hetsite.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
