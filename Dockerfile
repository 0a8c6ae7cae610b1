# gpuprices: one image for the pipeline and the API (docs/deploy.md "Containers").
#   docker build -t gpuprices .
#   docker volume create gpuprices
#   docker run --rm -v gpuprices:/data gpuprices gpuprices ingest            # one ingest run
#   docker run -d -p 8000:8000 -v gpuprices:/data gpuprices                  # the API
#   docker run -d -p 3000:3000 -v gpuprices:/data gpuprices gpuprices dagster-dev --host 0.0.0.0
# The warehouse, snapshots and Dagster home live under GPUPRICES_HOME=/data; the API only reads
# the published snapshots there, so API containers may mount the volume read-only.
FROM python:3.11-slim-bookworm AS build
COPY --from=ghcr.io/astral-sh/uv:0.9 /uv /usr/local/bin/uv
ENV UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy UV_PROJECT_ENVIRONMENT=/opt/venv
WORKDIR /src
# dependencies first (cached while only the code changes), from the lock file, no dev group
COPY pyproject.toml uv.lock README.md ./
RUN uv sync --frozen --no-dev --no-install-project
COPY scrapers ./scrapers
COPY pipelines ./pipelines
COPY warehouse ./warehouse
COPY api ./api
RUN uv sync --frozen --no-dev --no-editable

FROM python:3.11-slim-bookworm
RUN useradd --create-home --uid 10001 gpuprices && mkdir /data && chown gpuprices /data
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH GPUPRICES_HOME=/data PYTHONUNBUFFERED=1
USER gpuprices
VOLUME /data
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s CMD ["python", "-c", "import urllib.request as u; u.urlopen('http://127.0.0.1:8000/health', timeout=4)"]
CMD ["gpuprices", "serve", "--host", "0.0.0.0", "--port", "8000"]
