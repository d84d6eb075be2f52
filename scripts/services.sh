#!/usr/bin/env bash
# Start what the whole suite needs and is missing: PostgreSQL and Redis on 127.0.0.1, Debian's Chromium.
# Sourced by .ci/run and `make test-all`; each step says what it could not do instead of failing silently.

start_services() {
  local missing=0
  if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
    if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
      pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
    else
      echo "PostgreSQL is not installed: apt-get install postgresql (or set DEPUTY_TEST_POSTGRES_URL)" >&2
      missing=1
    fi
  fi
  # A server in crash recovery refuses connections for a while: wait for it rather than fail every test.
  if [ "$missing" = 0 ]; then
    for _ in $(seq 1 120); do pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null && break; sleep 1; done
  fi
  if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    if command -v redis-server >/dev/null 2>&1; then
      redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no || true
    else
      echo "Redis is not installed: apt-get install redis-server (or set DEPUTY_TEST_REDIS_URL)" >&2
      missing=1
    fi
  fi
  # The console's browser tests drive Debian's Chromium through Playwright (its own browser download does not work).
  if [ ! -x "${DEPUTY_CHROMIUM:-/usr/bin/chromium}" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null 2>&1 \
        || { echo "could not install chromium: the browser tests will fail" >&2; missing=1; }
    else
      echo "Chromium is not installed: sudo apt-get install chromium (or set DEPUTY_CHROMIUM)" >&2
      missing=1
    fi
  fi
  # Chinese glyphs for the browser tests' screenshots (the tests pass without; the pictures show boxes).
  if [ "$(id -u)" = 0 ] && command -v fc-list >/dev/null 2>&1 && ! fc-list :lang=zh | grep -q .; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-wqy-microhei >/dev/null 2>&1 || true
  fi
  return "$missing"
}
