FROM python:3.12-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY rules rules
COPY pricing pricing
COPY bot bot
RUN pip install --no-cache-dir .
ENV GPU_ADVISOR_DB=/data/gpu-advisor.db
VOLUME /data
EXPOSE 3000
CMD ["gpu-advise", "serve", "--port", "3000"]
