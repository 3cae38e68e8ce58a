#!/usr/bin/env bash
# Make sure HAProxy is available for `make class` (N replicas behind a load balancer) and for the tests that run
# the replicas behind it (tests/deploy). Installs Debian's package when running as root; otherwise says how, and
# those tests skip locally (in CI they must run: they fail without it).
set -u
for candidate in "${HAPROXY:-}" "$(command -v haproxy 2>/dev/null)" /usr/sbin/haproxy; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then
    echo "haproxy: using $candidate"
    exit 0
  fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "haproxy: installing Debian's haproxy (apt-get install haproxy)"
  export DEBIAN_FRONTEND=noninteractive
  # The package's service is not started: policy-rc.d or no init in a container; `make class` runs its own.
  if apt-get update -qq && apt-get install -y -qq haproxy >/dev/null; then
    echo "haproxy: installed $(command -v haproxy)"
    exit 0
  fi
  echo "haproxy: apt-get install haproxy failed" >&2
  exit 1
fi
echo "haproxy: not found and not root; install it (e.g. 'sudo apt-get install haproxy') or set HAPROXY."
echo "haproxy: the load-balancer tests will skip locally (in CI they must run)."
exit 0
