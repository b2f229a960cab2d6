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
# installs the templates as package data (pyproject: prompts/*.j2), found through importlib.resources.
# --compile: bytecode for every installed module is written now, not at each container start.
COPY prompts /src/prompts
RUN pip install --no-cache-dir --disable-pip-version-check --compile --prefix=/install /src

# --- the action image ---------------------------------------------------------------------------------
FROM ${BASE}
# git: change detection diffs the workspace. Debian's git is whatever the base's release ships;
# pinning an apt version would break the build on every point release of the base image.
# Perl is dropped after the install (about 47 MB): git's C commands, all that evalgate runs (diff,
# rev-parse, merge-base, cat-file, fetch), do not use it; only porcelain such as `git add -p`,
# send-email or svn does. The smoke test below fails the build if that ever stops being true.
# (dpkg then records git's perl dependency as unmet; nothing in the image runs apt afterwards.)
# hadolint ignore=DL3008,SC2086
RUN apt-get update \
    && apt-get install -y --no-install-recommends git ca-certificates \
    && perl_packages="$(dpkg-query -W -f '${Package}\n' perl 'perl-modules-*' 'libperl5*' liberror-perl 2>/dev/null)" \
    && { [ -z "$perl_packages" ] || dpkg --purge --force-depends $perl_packages; } \
    && rm -rf /var/lib/apt/lists/* /var/log/apt /var/log/dpkg.log /var/cache/debconf/*-old \
    && git init -q /tmp/smoke && git -C /tmp/smoke -c user.name=s -c user.email=s@s commit -q --allow-empty -m s \
    && git -C /tmp/smoke diff --name-status HEAD HEAD && rm -rf /tmp/smoke
# The base keeps no bytecode for the standard library, so every start compiled the modules the action
# imports again (about half of its start-up). Compiled here once (about 12 MB), minus what never runs.
RUN python -m compileall -q -j 0 -x '/(site-packages|test|tests|idlelib|tkinter|turtledemo|lib2to3|ensurepip|pydoc_data)/' \
    "$(python -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')" > /dev/null
COPY --from=copilot /out/copilot /usr/local/bin/copilot
COPY --from=package /install /usr/local
COPY entrypoint.py /app/entrypoint.py
# Unbuffered: workflow commands (::add-mask::, ::error::) must reach the runner in order, at once.
# No bytecode is written at run time: everything the action imports was compiled above.
ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
# No USER: the runner mounts the workspace and GITHUB_OUTPUT/GITHUB_STEP_SUMMARY owned by its own
# user and runs container actions as root; a non-root user could not write to them. What the action
# writes into the workspace is given to the workspace's owner afterwards (evalgate/github/ownership.py).
# The judges do not run as root: the action starts them as the base image's `nobody`
# (evalgate/github/isolation.py).
ENTRYPOINT ["python", "/app/entrypoint.py"]
