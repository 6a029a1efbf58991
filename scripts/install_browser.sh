#!/usr/bin/env bash
# Install what the end-to-end browser test needs, from Debian's packages:
#   chromium         - driven by Playwright via executable_path=/usr/bin/chromium
#                      (`playwright install` cannot download browsers on our machines)
#   fonts-noto-core  - Noto Sans for every Brahmic script SGPE knows, so screenshots show
#                      real glyphs instead of tofu boxes, and the HarfBuzz oracle of
#                      sgpe/oracles.py (tests/test_oracles.py) shapes with these fonts
#   fonts-liberation - metric-compatible Latin fallbacks (Arial/Times/Courier)
# Skips apt entirely when everything is present, so reruns are fast.
# Set SGPE_FORCE_APT=1 to run apt-get anyway.
set -euo pipefail

FONT_DIR=/usr/share/fonts/truetype/noto
needed_files=(
    /usr/bin/chromium
    "$FONT_DIR/NotoSansSinhala-Regular.ttf"
    "$FONT_DIR/NotoSansDevanagari-Regular.ttf"
    "$FONT_DIR/NotoSansBengali-Regular.ttf"
    "$FONT_DIR/NotoSansGurmukhi-Regular.ttf"
    "$FONT_DIR/NotoSansGujarati-Regular.ttf"
    "$FONT_DIR/NotoSansOriya-Regular.ttf"
    "$FONT_DIR/NotoSansTamil-Regular.ttf"
    "$FONT_DIR/NotoSansTelugu-Regular.ttf"
    "$FONT_DIR/NotoSansKannada-Regular.ttf"
    "$FONT_DIR/NotoSansMalayalam-Regular.ttf"
    "$FONT_DIR/NotoSansMyanmar-Regular.ttf"
    "$FONT_DIR/NotoSansKhmer-Regular.ttf"
)

all_present() {
    local f
    for f in "${needed_files[@]}"; do
        [[ -e "$f" ]] || return 1
    done
}

if all_present && [[ "${SGPE_FORCE_APT:-0}" != "1" ]]; then
    echo "install_browser: chromium and the Noto fonts already present" >&2
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_browser: apt-get not found; install chromium and Debian's" \
         "fonts-noto-core by hand (browser tests are skipped without /usr/bin/chromium)" >&2
    exit 1
fi

SUDO=""
if [[ "$(id -u)" != "0" ]]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO="sudo"
    else
        echo "install_browser: not root and no sudo; cannot apt-get install" >&2
        exit 1
    fi
fi

start=$(date +%s)
echo "install_browser: apt-get install chromium fonts-noto-core fonts-liberation" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# No recommends: headless Chromium with --disable-gpu --no-sandbox needs none of them
# (GL drivers, the setuid sandbox, printer and notification daemons).
$SUDO apt-get install -y -qq --no-install-recommends \
    chromium fonts-noto-core fonts-liberation fontconfig >/dev/null
# Refresh the font cache so Chromium sees the new fonts at its first start.
fc-cache -f >/dev/null 2>&1 || true

if ! all_present; then
    echo "install_browser: still missing after apt-get:" >&2
    for f in "${needed_files[@]}"; do [[ -e "$f" ]] || echo "  $f" >&2; done
    exit 1
fi
echo "install_browser: done in $(( $(date +%s) - start ))s" >&2
