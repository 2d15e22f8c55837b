#!/usr/bin/env bash
# Installs the pinned CometBFT (version in ./cometbft.version) into ./.tools/bin with `go install`.
# Idempotent: does nothing when .tools/bin/cometbft already reports the pinned version.
# Needs Go >= 1.22.11 (CometBFT v0.38's go.mod); an older Go fetches a newer toolchain through the module proxy.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"

version="$(tr -d '[:space:]' < cometbft.version)"
if [[ ! "$version" =~ ^v0\.38\.[0-9]+$ ]]; then
  echo "cometbft.version must hold one pinned v0.38.x patch version (got '${version}')" >&2
  exit 1
fi
bin="$root/.tools/bin/cometbft"

if [[ -x "$bin" ]] && [[ "$("$bin" version 2>/dev/null || true)" == "${version#v}" ]]; then
  echo "cometbft ${version#v} already installed at .tools/bin/cometbft"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "go is not on PATH: install Go >= 1.22.11 (https://go.dev/dl/) to build CometBFT ${version}" >&2
  exit 1
fi

# Debian-style and some distribution Go builds default to GOTOOLCHAIN=local, which refuses modules that need a
# newer Go; `auto` keeps a new-enough local Go and otherwise downloads the toolchain go.mod asks for.
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
export CGO_ENABLED=0 GOBIN="$root/.tools/bin" GOFLAGS=-trimpath
mkdir -p "$GOBIN"
echo "building cometbft ${version} with $(go version) into .tools/bin (a cold build downloads ~130 modules)"
start=$SECONDS
go install -ldflags "-s -w" "github.com/cometbft/cometbft/cmd/cometbft@${version}"
got="$("$bin" version)"
if [[ "$got" != "${version#v}" ]]; then
  echo "built cometbft reports version '$got', expected '${version#v}'" >&2
  exit 1
fi
echo "installed cometbft $got at .tools/bin/cometbft in $((SECONDS - start))s"
