#!/usr/bin/env bash
# Install code-server (the VS Code workbench served locally) and playwright-core
# into a cache directory, for the extension's end-to-end test.
#
#   scripts/install-code-server.sh [DIR]
#
# DIR defaults to $CHUNKSEAM_E2E_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/chunkseam/e2e.
# Idempotent: a second run with the same versions does nothing.  On success
# the last line printed on stdout is DIR; code-server is DIR/node_modules/.bin/code-server
# and playwright-core is DIR/node_modules/playwright-core.
#
# Needs Node 20 + npm and these Debian packages (CI installs them):
#   libkrb5-dev pkg-config ripgrep chromium
# No download outside the npm registry: node-gyp uses the installed Node
# headers (nodedir=/usr), @vscode/ripgrep's postinstall is fed Debian's rg,
# and playwright-core does not download a browser (Debian's chromium is used).
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
PLAYWRIGHT_VERSION=1.65.1
# What @vscode/ripgrep (as pulled by code-server 4.100.3) looks for in its cache.
RG_CACHE_NAME=vscode-ripgrep-cache-1.15.11
RG_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz

DIR=${1:-${CHUNKSEAM_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/chunkseam/e2e}}
STAMP="$DIR/.installed"
WANT="code-server@$CODE_SERVER_VERSION playwright-core@$PLAYWRIGHT_VERSION node@$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo none)"

log() { printf '%s\n' "$*" >&2; }

if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$WANT" && -x "$DIR/node_modules/.bin/code-server" \
      && -f "$DIR/node_modules/playwright-core/package.json" ]]; then
  log "code-server $CODE_SERVER_VERSION and playwright-core $PLAYWRIGHT_VERSION already in $DIR"
  echo "$DIR"
  exit 0
fi

missing=()
command -v node >/dev/null || missing+=("nodejs (Node 20)")
command -v npm >/dev/null || missing+=("npm")
[[ -x /usr/bin/rg ]] || missing+=("ripgrep")
command -v pkg-config >/dev/null || missing+=("pkg-config")
[[ -f /usr/include/krb5.h || -f /usr/include/krb5/krb5.h ]] || missing+=("libkrb5-dev")
command -v chromium >/dev/null || [[ -x /usr/bin/chromium ]] || missing+=("chromium")
if ((${#missing[@]})); then
  log "install-code-server.sh: missing system packages: ${missing[*]}"
  log "  apt-get install -y libkrb5-dev pkg-config ripgrep chromium"
  exit 2
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [[ "$major" != 20 ]]; then
  log "install-code-server.sh: code-server $CODE_SERVER_VERSION needs Node 20 (found $(node --version))"
  exit 2
fi

mkdir -p "$DIR"
rm -f "$STAMP"
work_tmp="$DIR/tmp"
rm -rf "$work_tmp"
mkdir -p "$work_tmp/$RG_CACHE_NAME" "$work_tmp/rg"
cp /usr/bin/rg "$work_tmp/rg/rg"
tar -czf "$work_tmp/$RG_CACHE_NAME/$RG_ASSET" -C "$work_tmp/rg" rg

[[ -f "$DIR/package.json" ]] || printf '{\n  "name": "chunkseam-e2e-tools",\n  "private": true\n}\n' >"$DIR/package.json"

log "installing code-server@$CODE_SERVER_VERSION and playwright-core@$PLAYWRIGHT_VERSION into $DIR (about a minute)"
TMPDIR="$work_tmp" \
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
npm_config_yes=true \
npm_config_nodedir=/usr \
npm_config_unsafe_perm=true \
npm_config_fund=false \
npm_config_audit=false \
npm_config_update_notifier=false \
  npm install --prefix "$DIR" --loglevel=error \
    "code-server@$CODE_SERVER_VERSION" "playwright-core@$PLAYWRIGHT_VERSION" >&2

node -p "\"code-server \" + require(process.argv[1]).version" "$DIR/node_modules/code-server/package.json" >&2
rm -rf "$work_tmp"
echo "$WANT" >"$STAMP"
echo "$DIR"
