#!/usr/bin/env bash
# Make sure a Chromium is available for the browser tests and for kaleido's image export, with the fonts the
# app's figures use: an emoji font (page icons) and Noto CJK (Korean and Chinese text in the app and in exported
# PNG/SVG/PDF, which otherwise render as empty boxes).
# Installs Debian's packages when running as root; otherwise says how, and the browser tests skip locally.
set -u
emoji_font=/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf
fonts_ready() {
  [ -f "$emoji_font" ] && fc-list 2>/dev/null | grep -q "Noto Sans CJK"
}
for candidate in "${BROWSER_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
  if [ -n "$candidate" ] && [ -x "$candidate" ] && { fonts_ready || [ "$(id -u)" != "0" ]; }; then
    echo "chromium: using $candidate"
    fonts_ready || echo "chromium: the emoji or Noto CJK font is missing (sudo apt-get install fonts-noto-color-emoji fonts-noto-cjk)"
    exit 0
  fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  packages="chromium fonts-noto-color-emoji fonts-noto-cjk"
  echo "chromium: installing Debian's chromium and fonts (apt-get install $packages)"
  export DEBIAN_FRONTEND=noninteractive
  if apt-get update -qq && apt-get install -y -qq $packages >/dev/null; then
    echo "chromium: installed /usr/bin/chromium"
    exit 0
  fi
  echo "chromium: apt-get install $packages failed" >&2
  exit 1
fi
echo "chromium: not found and not root; install it (e.g. 'sudo apt-get install chromium fonts-noto-cjk') or set BROWSER_PATH."
echo "chromium: browser tests will skip locally (in CI they must run)."
exit 0
