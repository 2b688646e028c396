#!/usr/bin/env bash
# Whether a streamed /v1 answer outlives Chromium's 5-minute fetch-event cap (test/e2e/app/sw-lifetime.ts).
# Usage: scripts/measure-sw-lifetime.sh [minutes] [keepalive=0]   (default 7; takes that long)
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES="${1:-7}"
EXTRA="${2:+&$2}"
PORT="${PORT:-5391}"
PROFILE="$(mktemp -d)"
node_modules/.bin/vite --config test/e2e/vite.config.ts --port "$PORT" --strictPort >/dev/null 2>&1 &
VITE=$!
trap 'kill "$CHROME" "$VITE" 2>/dev/null || true; rm -rf "$PROFILE"' EXIT
for _ in $(seq 60); do curl -sf "http://127.0.0.1:$PORT/sw-lifetime.html" >/dev/null && break; sleep 1; done
LOG="$PROFILE.log"
# No --remote-debugging-*: with DevTools attached Chromium never stops a service worker.
chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$PROFILE" --enable-logging=stderr --v=0 \
  "http://127.0.0.1:$PORT/sw-lifetime.html?minutes=$MINUTES$EXTRA" >"$LOG" 2>&1 &
CHROME=$!
deadline=$(( $(date +%s) + ${MINUTES%.*} * 60 + 180 ))
while [ "$(date +%s)" -lt "$deadline" ] && ! grep -q 'LIFETIME body\|LIFETIME failed' "$LOG"; do sleep 5; done
grep -o 'LIFETIME.*' "$LOG" || echo "no result within $MINUTES min + 2 min"
rm -f "$LOG"
