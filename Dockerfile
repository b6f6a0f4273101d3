# GPU Advisor: `gpu-advise serve` in a slim image. Build a wheel in one stage, install it in the next,
# run as a non-root user; the SQLite files (the price cache, and the state without
# GPU_ADVISOR_DATABASE_URL) live on the /data volume.

FROM python:3.12-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY rules rules
COPY pricing pricing
COPY bot bot
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.12-slim
# A font with Chinese glyphs, so the weekly report's chart reads in Chinese (without it: English labels).
# hadolint ignore=DL3008
RUN apt-get update && apt-get install -y --no-install-recommends fonts-noto-cjk \
    && rm -rf /var/lib/apt/lists/*
# hadolint ignore=DL3013
RUN --mount=type=bind,from=build,source=/wheels,target=/wheels \
    pip install --no-cache-dir /wheels/*.whl \
    && useradd --create-home --uid 10001 advisor \
    && mkdir /data && chown advisor /data
USER 10001
ENV GPU_ADVISOR_DB=/data/gpu-advisor.db \
    PYTHONUNBUFFERED=1
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:3000/healthz', timeout=4)"]
CMD ["gpu-advise", "serve", "--port", "3000"]
