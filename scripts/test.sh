#!/usr/bin/env bash
# Install everything the test suite needs into .venv and run the whole suite.
# Usage: ./scripts/test.sh            (CI calls this after starting PostgreSQL)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium
  else
    echo "Browser tests need Debian's chromium: sudo apt-get install chromium" >&2
    exit 1
  fi
fi
# the browser tests lay out Japanese text: they measure it in a CJK font
if ! fc-list :lang=ja 2>/dev/null | grep -q .; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q fonts-noto-cjk
  else
    echo "Browser tests need a Japanese font: sudo apt-get install fonts-noto-cjk" >&2
    exit 1
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test]'

# axe-core for the accessibility browser test and acorn for the compact scripts' test: from the
# npm registry, into the git-ignored .node/ (nothing is fetched while the tests run).
if [ ! -f .node/node_modules/axe-core/axe.min.js ] || [ ! -f .node/node_modules/acorn/package.json ]; then
  if ! command -v npm >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
      apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm
    else
      echo "The accessibility test needs npm: sudo apt-get install nodejs npm" >&2
      exit 1
    fi
  fi
  npm install --prefix .node --no-audit --no-fund --silent axe-core@4 acorn@8
fi
export CANASTA_REQUIRE_AXE=1

run() {
  # pytest exit code 5 means "no tests collected": that is a failure here, never a pass.
  set +e
  .venv/bin/python -m pytest "$@"
  local rc=$?
  set -e
  if [ "$rc" = 5 ]; then
    echo "pytest collected no tests for: $*" >&2
    exit 1
  fi
  [ "$rc" = 0 ] || exit "$rc"
}

echo "== static checks"
.venv/bin/python -m ruff check src tests bench scripts examples
.venv/bin/python -m mypy
echo "== engine, bots and server tests"
run -q -p no:cacheprovider tests --ignore=tests/browser
echo "== browser tests (real Chromium)"
run -q -p no:cacheprovider tests/browser
