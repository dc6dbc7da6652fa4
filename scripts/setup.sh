#!/usr/bin/env bash
# Installs everything the service needs on a fresh Debian machine: the Debian packages (Chromium,
# LibreOffice, ghostscript, qpdf, poppler, fonts, bubblewrap) and the npm packages. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."

DEBIAN_PACKAGES=(
  chromium chromium-headless-shell
  libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui libreoffice-draw-nogui
  libreoffice-base-drivers
  python3-uno ghostscript qpdf poppler-utils
  fonts-noto-cjk fonts-liberation2 fonts-crosextra-carlito fonts-crosextra-caladea
  bubblewrap util-linux procps
  socat # the browser jail's forwarder to the SSRF guard proxy (core/engines/browser/browser-bwrap.ts)
  tesseract-ocr tesseract-ocr-eng ffmpeg espeak-ng
  openssl # test/web-proxy-connect.test.ts makes its HTTPS site's certificate with it
  valgrind # bench:instructions only (instruction counts that the machine's load does not move)
)

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund
fi
echo "setup: done"
