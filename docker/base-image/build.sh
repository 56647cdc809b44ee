#!/usr/bin/env bash
# Builds the bot base image flip7/python-base from Debian packages and PyPI, with no Docker
# registry: debootstrap a minimal Debian, add Python, grpcio, protobuf and the arena's Python
# SDK, then `docker import` the tree. Needs root, debootstrap and a running Docker engine.
#
#   bash docker/base-image/build.sh [TAG]        (default flip7/python-base:latest)
#
# EXTRA_PACKAGES="pkg1,pkg2" adds Debian packages (e.g. a language runtime for bots in other
# languages: EXTRA_PACKAGES=default-jre-headless bash docker/base-image/build.sh flip7/java-base).
#
# Users who can reach a registry may base their bots on python:3.11-slim instead: the
# example bots' Dockerfiles take the base as a build argument (see docker/README.md).
set -euo pipefail
TAG="${1:-flip7/python-base:latest}"
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SUITE="${DEBIAN_SUITE:-bookworm}"
PYTHON="${PYTHON:-$REPO/.venv/bin/python}"
[ -x "$PYTHON" ] || PYTHON=python3
PY_VERSION_PINS="$("$PYTHON" - <<'PY'
from importlib.metadata import PackageNotFoundError, version
pins = []
for name in ("grpcio", "protobuf"):
    try:
        pins.append(f"{name}=={version(name)}")
    except PackageNotFoundError:
        pins.append(name)
print(" ".join(pins))
PY
)"
WORK="$(mktemp -d /tmp/flip7-base.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
ROOTFS="$WORK/rootfs"

INCLUDE="python3,python3-venv,ca-certificates${EXTRA_PACKAGES:+,$EXTRA_PACKAGES}"
echo "debootstrap $SUITE (minbase + $INCLUDE) into $ROOTFS" >&2
debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$ROOTFS" "$MIRROR" >&2

# wheels are fetched on the host (its pip settings, proxy and CA apply), installed offline
mkdir -p "$ROOTFS/tmp/wheels"
# shellcheck disable=SC2086
"$PYTHON" -m pip download --quiet --only-binary=:all: --python-version 3.11 \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    -d "$ROOTFS/tmp/wheels" $PY_VERSION_PINS >&2
chroot "$ROOTFS" python3 -m venv /opt/arena
# shellcheck disable=SC2086
chroot "$ROOTFS" /opt/arena/bin/pip install --no-index --find-links /tmp/wheels --no-cache-dir \
    --quiet $PY_VERSION_PINS >&2
rm -rf "$ROOTFS/tmp/wheels"

# the arena's Python SDK: the engine, the protocol code and arena.sdk (no server parts)
SITE="$(chroot "$ROOTFS" /opt/arena/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
mkdir -p "$ROOTFS$SITE/arena"
cp -r "$REPO/engine" "$ROOTFS$SITE/engine"
cp "$REPO/arena/__init__.py" "$ROOTFS$SITE/arena/__init__.py"
cp -r "$REPO/arena/protocol" "$REPO/arena/sdk" "$ROOTFS$SITE/arena/"
find "$ROOTFS$SITE" -name __pycache__ -prune -exec rm -rf {} +
# compiled once here: bots run on a read-only root and would otherwise compile on every start
chroot "$ROOTFS" /opt/arena/bin/python -m compileall -q "$SITE/engine" "$SITE/arena" >&2
chroot "$ROOTFS" /opt/arena/bin/python -c "import arena.sdk, engine; print('sdk ok')" >&2

# a non-root user for bots; nothing else needs to be writable
echo "bot:x:10001:10001:bot:/home/bot:/usr/sbin/nologin" >> "$ROOTFS/etc/passwd"
echo "bot:x:10001:" >> "$ROOTFS/etc/group"
mkdir -p "$ROOTFS/home/bot" "$ROOTFS/bot"
chown 10001:10001 "$ROOTFS/home/bot"
rm -rf "$ROOTFS/var/cache/apt/archives/"*.deb "$ROOTFS/var/lib/apt/lists/"* "$ROOTFS/usr/share/doc" \
    "$ROOTFS/usr/share/man"

tar -C "$ROOTFS" -c . | docker import \
    --change 'ENV PATH=/opt/arena/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV PYTHONUNBUFFERED=1' \
    --change 'ENV PYTHONDONTWRITEBYTECODE=1' \
    --change 'USER 10001:10001' \
    --change 'WORKDIR /bot' \
    --message "flip7 arena python base (debootstrap $SUITE)" \
    - "$TAG" >&2
docker image inspect --format '{{.Id}}' "$TAG"
