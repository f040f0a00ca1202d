FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    TIERPLAN_DATABASE_URL=sqlite:////data/tierplan.db \
    TIERPLAN_UPLOAD_DIR=/data/uploads

# The locked dependencies first, in their own layer: a change to the code does not reinstall them.
COPY requirements.lock /tmp/requirements.lock
RUN pip install -r /tmp/requirements.lock

# Then the package itself (templates, static files and migrations ship inside it), owned by root.
COPY pyproject.toml README.md /src/
COPY src /src/src
RUN pip install --no-deps /src && rm -rf /src

RUN useradd --create-home --uid 10001 tierplan && mkdir -p /data/uploads && chown -R tierplan:tierplan /data
USER tierplan
WORKDIR /data
VOLUME /data
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
# `tierplan serve` migrates, loads the demo campaign into an empty database, and refuses to listen beyond
# loopback while nobody is registered: make the first user first (README: docker run ... tierplan user add NAME).
CMD ["tierplan", "serve", "--host", "0.0.0.0", "--port", "8000"]
