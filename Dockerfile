# The evalgate action image: Python, the evalgate package with its prompts, git (change detection)
# and the pinned GitHub Copilot CLI binary (the copilot judge backend). Built per run from action.yml,
# or once by .github/workflows/release.yml and used by digest (see docs/action.md).
ARG BASE=python:3.11-slim
ARG NODE_BASE=node:20-bookworm-slim

# --- the Copilot CLI: `npm ci` of the project's lock file, keeping only the native binary -----------
# @github/copilot is a 1 KB loader; the real CLI is a self-contained binary in the platform package
# npm picks (@github/copilot-linux-x64 or -linux-arm64), so only that one file goes to the image.
FROM ${NODE_BASE} AS copilot
WORKDIR /build
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error \
    && mkdir -p /out \
    && cp node_modules/@github/copilot-linux-*/copilot /out/copilot \
    && chmod 0755 /out/copilot

# --- the Python package, installed into a prefix copied whole into the final stage ------------------
FROM ${BASE} AS package
COPY pyproject.toml README.md /src/
COPY evalgate /src/evalgate
# evalgate/prompts is a symlink to ../prompts: with prompts/ beside it the build follows it and
# installs the templates as package data (pyproject: prompts/*.j2), found through importlib.resources
COPY prompts /src/prompts
RUN pip install --no-cache-dir --disable-pip-version-check --prefix=/install /src

# --- the action image ---------------------------------------------------------------------------------
FROM ${BASE}
# git: change detection diffs the workspace. Debian's git is whatever the base's release ships;
# pinning an apt version would break the build on every point release of the base image.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends git ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=package /install /usr/local
COPY --from=copilot /out/copilot /usr/local/bin/copilot
COPY entrypoint.py /app/entrypoint.py
# Unbuffered: workflow commands (::add-mask::, ::error::) must reach the runner in order, at once.
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
# No USER: the runner mounts the workspace and GITHUB_OUTPUT/GITHUB_STEP_SUMMARY owned by its own
# user and runs container actions as root; a non-root user could not write to them.
ENTRYPOINT ["python", "/app/entrypoint.py"]
