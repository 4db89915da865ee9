#!/usr/bin/env bash
# `npm run ci:cold`: runs .ci/run as CI runs it on a new machine. A fresh clone of HEAD (what is
# committed, nothing else), CI=true, no standard input, and every cache empty: the project's
# cache (XDG_CACHE_HOME, so also Go's build cache and pip's), Go's module cache (GOMODCACHE,
# GOPATH), npm's cache and Pulumi's home (PULUMI_HOME). Everything goes under one temporary
# folder, removed at the end unless KEEP=1; the machine's own caches are neither read nor
# changed. What stays from the machine: its tools (Node.js, Go, Python, PostgreSQL), ~/.npmrc
# and the registries, as on a new machine of the same kind. Takes as long as a first CI run
# (22–38 minutes on 2 cores, 2026-11-27 and 28); prints each phase's time (`ci: <phase>: N s`)
# and the total.
set -euo pipefail
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
root=$(mktemp -d "${TMPDIR:-/tmp}/ci-cold-XXXXXX")
cleanup() {
  if [ "${KEEP:-0}" = 1 ]; then
    echo "ci-cold: kept $root"
  else
    chmod -R u+w "$root" 2>/dev/null || true # Go's module cache is read-only
    rm -rf "$root"
  fi
}
trap cleanup EXIT
echo "ci-cold: cloning $(git -C "$repo" rev-parse --short HEAD) into $root/clone"
git clone --quiet --no-local "$repo" "$root/clone"
mkdir -p "$root/cache" "$root/go" "$root/npm" "$root/pulumi-home"
started=$SECONDS
status=0
(
  cd "$root/clone"
  exec env CI=true \
    XDG_CACHE_HOME="$root/cache" \
    PULUMI_SERVICE_CACHE_DIR="$root/cache/pulumi-service" \
    GOPATH="$root/go" GOMODCACHE="$root/go/pkg/mod" GOCACHE="$root/cache/go-build" \
    npm_config_cache="$root/npm" \
    PULUMI_HOME="$root/pulumi-home" \
    bash .ci/run </dev/null
) || status=$?
echo "ci-cold: .ci/run exited $status after $((SECONDS - started)) s"
exit "$status"
