#!/usr/bin/env bash
# Installs the system tools the tests need, from Debian's packages:
#   prometheus — the Prometheus server and promtool (test/observability/prometheus-scrape.test.ts, test/deploy/*)
#   openssl    — test certificates for the TLS tests
#   go         — Debian's golang-go builds the benchmark's reference Go extender (test/bench/go-extender.test.ts);
#                standard library only, built offline (no Go module is ever downloaded)
# and checks for one that comes with the machine rather than from Debian:
#   kubectl    — `kubectl kustomize` renders every kustomization under deploy/ (test/deploy/kubectl-kustomize.test.ts)
# Idempotent and quiet: does nothing when every tool is already on PATH. Needs root (CI runs as root).
set -euo pipefail

declare -A PACKAGE_FOR_COMMAND=(
  [prometheus]=prometheus
  [promtool]=prometheus
  [openssl]=openssl
  [go]=golang-go
)

if ! command -v kubectl >/dev/null 2>&1; then
  echo "install-tools: kubectl is not on PATH; install a kubectl >= 1.27 (it carries kustomize) first" >&2
  exit 1
fi

missing=()
for command in "${!PACKAGE_FOR_COMMAND[@]}"; do
  if ! command -v "$command" >/dev/null 2>&1; then
    missing+=("${PACKAGE_FOR_COMMAND[$command]}")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

# Unique package names, stable order.
mapfile -t packages < <(printf '%s\n' "${missing[@]}" | sort -u)
echo "install-tools: installing ${packages[*]}"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
# --no-install-recommends: the prometheus package recommends node-exporter and friends we do not need.
# The package's postinst may try to start a prometheus service; policy-rc.d below keeps it from starting one.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null

for command in "${!PACKAGE_FOR_COMMAND[@]}"; do
  command -v "$command" >/dev/null 2>&1 || { echo "install-tools: $command still missing after install" >&2; exit 1; }
done
