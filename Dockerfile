FROM python:3.11-slim
WORKDIR /srv/deputy
COPY pyproject.toml README.md ./
COPY app app
COPY fact fact
COPY person person
COPY perception perception
COPY cognitive_core cognitive_core
COPY concern concern
COPY action action
COPY channels channels
RUN pip install --no-cache-dir .
CMD ["deputy", "serve"]
