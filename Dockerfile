# Deputy's image: `docker build -t deputy .` — a virtualenv built in one stage, copied into a slim runtime stage
# that runs as an unprivileged user (uid 10001). Neither stage needs a compiler: every dependency ships wheels.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/deputy
WORKDIR /src
COPY pyproject.toml README.md ./
COPY kernel kernel
COPY channels channels
COPY fact fact
COPY person person
COPY perception perception
COPY action action
COPY concern concern
COPY cognitive_core cognitive_core
COPY app app
RUN /opt/deputy/bin/pip install . && /opt/deputy/bin/python -m compileall -q /opt/deputy

FROM python:3.11-slim
RUN groupadd --system --gid 10001 deputy \
    && useradd --system --uid 10001 --gid deputy --home-dir /srv/deputy --no-create-home --shell /usr/sbin/nologin deputy \
    && mkdir -p /srv/deputy/var \
    && chown -R deputy:deputy /srv/deputy
COPY --from=build /opt/deputy /opt/deputy
ENV PATH=/opt/deputy/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DEPUTY_HOST=0.0.0.0 \
    DEPUTY_PORT=8000
WORKDIR /srv/deputy
# The embedded SQLite database (the default DEPUTY_DATABASE_URL) lives here; PostgreSQL deployments need no volume.
VOLUME ["/srv/deputy/var"]
USER 10001:10001
EXPOSE 8000
# Liveness is GET /healthz, readiness GET /readyz: the orchestrator probes them (docker-compose.yml, deploy/k8s/).
CMD ["deputy", "serve"]
