# samestory HTTP service. Build: docker build -t samestory .
# Run:   docker run -p 8000:8000 -v samestory-data:/data samestory
# Shared PostgreSQL mode: docker run -e SAMESTORY_DB=postgresql://user@db:5432/news ... samestory \
#          samestory serve --host 0.0.0.0 --port 8000
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# The same install path as the Makefile (pip install .) plus the PostgreSQL client (a shared store) and the Redis client for a
# shared embedding cache (SAMESTORY_EMBEDDING_CACHE), non-editable so that the source tree can
# be dropped afterwards. .dockerignore admits only the package sources.
COPY . /tmp/src
RUN pip install --no-cache-dir "/tmp/src[postgres,redis]" && rm -rf /tmp/src

# Non-root; the store lives on a volume owned by that user.
RUN useradd --system --uid 10001 --create-home --home-dir /home/samestory samestory \
    && mkdir -p /data && chown samestory:samestory /data
USER 10001
WORKDIR /data
VOLUME /data
EXPOSE 8000

# urllib rather than curl: the slim image has no curl, and python is there anyway.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4).status == 200 else 1)"]

# Exec form, so that samestory is PID 1 and receives docker stop's SIGTERM directly.
CMD ["samestory", "serve", "--db", "sqlite:////data/samestory.db", "--host", "0.0.0.0", "--port", "8000"]
