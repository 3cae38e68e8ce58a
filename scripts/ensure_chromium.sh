#!/usr/bin/env bash
# Make sure a Chromium is available for the browser tests and for kaleido's image export.
# Installs Debian's chromium when running as root; otherwise says how, and the browser tests skip locally.
set -u
# The emoji font makes the page icons visible in screenshots; the tests do not depend on it.
emoji_font=/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf
for candidate in "${BROWSER_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
  if [ -n "$candidate" ] && [ -x "$candidate" ] && { [ -f "$emoji_font" ] || [ "$(id -u)" != "0" ]; }; then
    echo "chromium: using $candidate"
    exit 0
  fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "chromium: installing Debian's chromium and an emoji font (apt-get install chromium fonts-noto-color-emoji)"
  export DEBIAN_FRONTEND=noninteractive
  if apt-get update -qq && apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null; then
    echo "chromium: installed /usr/bin/chromium"
    exit 0
  fi
  echo "chromium: apt-get install chromium failed" >&2
  exit 1
fi
echo "chromium: not found and not root; install it (e.g. 'sudo apt-get install chromium') or set BROWSER_PATH."
echo "chromium: browser tests will skip locally (in CI they must run)."
exit 0
