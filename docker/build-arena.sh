#!/usr/bin/env bash
# Builds the arena's own image (CLI, gateway, scheduler, store, report) with no registry and
# no network inside the build: the wheels of the arena and of all its dependencies are
# fetched on the host (its pip settings, proxy and CA apply), put into a minimal build
# context next to docker/Dockerfile, and installed offline. Needs a Docker engine, the base
# image (docker/base-image/build.sh, or BASE=python:3.11-slim with a registry) and pip.
#
#   bash docker/build-arena.sh [TAG]        (default flip7/arena:latest)
#   BASE=python:3.11-slim bash docker/build-arena.sh
#   EXTRAS=ray bash docker/build-arena.sh flip7/arena-ray:latest   # a Ray node's image:
#       the extra flip7-arena[ray] and ray[default] (the dashboard), see compose.ray.yaml
set -euo pipefail
TAG="${1:-flip7/arena:latest}"
BASE="${BASE:-flip7/python-base:latest}"
EXTRAS="${EXTRAS:-}"
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
PYTHON="${PYTHON:-$REPO/.venv/bin/python}"
[ -x "$PYTHON" ] || PYTHON=python3
CTX="$(mktemp -d /tmp/flip7-arena-ctx.XXXXXX)"
trap 'rm -rf "$CTX"' EXIT

cp "$HERE/Dockerfile" "$CTX/Dockerfile"
mkdir -p "$CTX/wheels" "$CTX/bots"
# the example bots travel along (to submit them from inside the container)
tar -C "$REPO" --exclude=__pycache__ -c bots/examples | tar -C "$CTX" -x

echo "building the arena's wheel" >&2
"$PYTHON" -m pip wheel --quiet --no-deps --wheel-dir "$CTX/wheels" "$REPO" >&2
ARENA_WHEEL="$(ls "$CTX"/wheels/flip7_arena-*.whl)"
# the versions the test suite ran with, where the host's venv has them
"$PYTHON" -m pip freeze --exclude-editable 2>/dev/null | grep -v '^-e ' > "$CTX/constraints.txt" || true

WANT=("$ARENA_WHEEL" docker)  # what is downloaded, and installed in the image
INSTALL=(flip7-arena docker)
if [ -n "$EXTRAS" ]; then
    WANT=("$ARENA_WHEEL[$EXTRAS]" docker)
    INSTALL=("flip7-arena[$EXTRAS]" docker)
fi
if [[ ",$EXTRAS," == *,ray,* ]]; then
    WANT+=("ray[default]")
    INSTALL+=("ray[default]")
fi
echo "fetching dependency wheels for CPython 3.11 manylinux x86_64 (glibc up to 2.36: bookworm)" >&2
"$PYTHON" -m pip download --quiet --only-binary=:all: --python-version 3.11 \
    --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_31_x86_64 \
    --platform manylinux_2_34_x86_64 --platform manylinux_2_36_x86_64 --platform any \
    -c "$CTX/constraints.txt" -d "$CTX/wheels" "${WANT[@]}" >&2

echo "docker build $TAG (FROM $BASE, no network)" >&2
docker build --network none --build-arg "BASE=$BASE" --build-arg "PACKAGES=${INSTALL[*]}" \
    -t "$TAG" "$CTX" >&2
docker image inspect --format '{{.Id}}' "$TAG"
