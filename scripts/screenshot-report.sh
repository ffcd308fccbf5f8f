#!/usr/bin/env bash
# Look at the report as a reader will: a full-page screenshot of report.html in headless Chromium.
#   bash scripts/screenshot-report.sh [REPORT_HTML] [OUT_PNG] [HEIGHT]
# Defaults: data/report/report.html, ${TMPDIR:-/tmp}/report.png (outside data/report, a pipeline output),
# 12000 px high (the page is cut there).
# Needs Chromium (Debian: `apt-get install chromium`); the tests do not, and CI does not install it.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
html=${1:-$repo/data/report/report.html}  # a path given is read from where the command was typed
out=${2:-${TMPDIR:-/tmp}/report.png}
height=${3:-12000}
[ -f "$html" ] || { echo "no $html: run the pipeline (or paraphrastic report) first" >&2; exit 1; }
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
[ -n "$browser" ] || { echo "no Chromium found: apt-get install chromium" >&2; exit 1; }
# --no-sandbox: as root in a container; --hide-scrollbars: the width is the page's, not the scrollbar's
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="1280,$height" \
  --screenshot="$(realpath -m "$out")" "file://$(realpath "$html")" 2>/dev/null
echo "wrote $out (1280 x $height)"
