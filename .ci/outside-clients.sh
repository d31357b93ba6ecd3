#!/usr/bin/env bash
# Outside clients: install Node 22 (the npm package node@22), the MCP Inspector, the TypeScript
# SDK and the conformance suite into .ci/node (gitignored), run the conformance suite against
# `toolbay serve --transport http`, then the pytest checks in tests/outside with
# OUTSIDE_CLIENTS_NODE pointing at that folder.
#
#   bash .ci/outside-clients.sh            # install (if needed), conformance, tests/outside
#   bash .ci/outside-clients.sh --conformance-only   # install (if needed), conformance (.ci/run)
#   OUTSIDE_CLIENTS_NODE=.ci/node uv run pytest tests/outside   # afterwards, by hand
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TOOLS=$ROOT/.ci/node
export OUTSIDE_CLIENTS_NODE=$TOOLS

mkdir -p "$TOOLS/home"
if [ ! -x "$TOOLS/node_modules/.bin/conformance" ] || [ ! -x "$TOOLS/node_modules/.bin/mcp-inspector" ]; then
  [ -f "$TOOLS/package.json" ] || echo '{"name": "toolbay-outside-clients", "private": true}' > "$TOOLS/package.json"
  (cd "$TOOLS" && npm install --no-audit --no-fund --loglevel=error \
    node@22 @modelcontextprotocol/inspector@2 @modelcontextprotocol/sdk@1 @modelcontextprotocol/conformance@0.1.16)
fi
export PATH=$TOOLS/node_modules/.bin:$PATH
export HOME=$TOOLS/home   # the Inspector keeps its catalog under ~/.mcp-inspector
node --version

DATA=$(mktemp -d)
LOG=$DATA/serve.log
# The bundled roles and the prompts the suite asks for by name (test_simple_prompt, ...).
TOOLBAY_AGENTS="[\"$ROOT/agents\", \"$ROOT/tests/fixtures/agents/conformance\"]" \
  uv run toolbay serve --transport http --port 0 --data-dir "$DATA" 2>"$LOG" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; rm -rf "$DATA"' EXIT
URL=
for _ in $(seq 1 600); do   # a cold start describes the bundled tools first
  URL=$(grep -o 'serving MCP on http://[^ ]*/mcp' "$LOG" | head -1 | sed 's/serving MCP on //') || true
  [ -n "$URL" ] && break
  kill -0 $SERVER 2>/dev/null || { cat "$LOG"; echo "toolbay exited before serving" >&2; exit 1; }
  sleep 0.2
done
[ -n "$URL" ] || { cat "$LOG"; echo "toolbay did not start serving in time" >&2; exit 1; }

# Its per-scenario lines go to a log (printed in full only on failure): expected failures
# print as "0 passed, 1 failed", which reads like a test run's verdict out of context.
if ! conformance server --url "$URL" -o "$DATA/conformance" \
    --expected-failures tests/outside/conformance-expected-failures.yml >"$DATA/conformance.log" 2>&1; then
  cat "$DATA/conformance.log"
  echo "conformance suite: unexpected failures (see above)" >&2
  exit 1
fi
passed=$(grep -c '^.*✓' "$DATA/conformance.log" || true)
expected=$(grep -c '^  ~ ' "$DATA/conformance.log" || true)
echo "conformance suite: $passed scenarios passed, $expected expected failures (tests/outside/conformance-expected-failures.yml)"

[ "${1:-}" = "--conformance-only" ] || uv run pytest -q tests/outside
