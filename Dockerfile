FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    TIERPLAN_DATABASE_URL=sqlite:////data/tierplan.db

RUN useradd --create-home --uid 10001 tierplan && mkdir /data && chown tierplan:tierplan /data
WORKDIR /app
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY templates ./templates
COPY static ./static
COPY migrations ./migrations
RUN pip install --no-cache-dir -e . && chown -R tierplan:tierplan /app

USER tierplan
VOLUME /data
EXPOSE 8000
# Migrate first; the app loads the demo campaign into an empty database on start.
CMD ["sh", "-c", "tierplan migrate && exec uvicorn --factory app.main:create_app --host 0.0.0.0 --port 8000 --proxy-headers"]
