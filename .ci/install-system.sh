#!/usr/bin/env bash
# System tools the end-to-end tests drive: Neovim (LSP client), Chromium (HTML
# preview and the VS Code workbench), code-server (the VS Code workbench).
# Idempotent; needs root (CI runs as root) and the Debian/npm registries.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

need=()
command -v nvim >/dev/null || need+=(neovim)
command -v chromium >/dev/null || need+=(chromium)
command -v chromedriver >/dev/null || need+=(chromium-driver)
command -v rg >/dev/null || need+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
dpkg -s fonts-symbola >/dev/null 2>&1 || need+=(fonts-symbola)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v git >/dev/null || need+=(git)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if [ -x "$here/client-vscode/scripts/install-code-server.sh" ] || [ -f "$here/client-vscode/scripts/install-code-server.sh" ]; then
  bash "$here/client-vscode/scripts/install-code-server.sh"
fi
