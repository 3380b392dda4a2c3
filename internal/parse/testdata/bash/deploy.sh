#!/usr/bin/env bash
# Deploys a build to the staging servers.
set -euo pipefail

source ./lib/common.sh
. "$(dirname "$0")/lib/log.sh"

readonly TARGET_DIR=/srv/app

# Copies the build to one host and restarts the service.
deploy_host() {
  local host="$1"
  rsync -a build/ "$host:$TARGET_DIR/"
  # TODO: roll back when the restart fails
  ssh "$host" systemctl restart app
}

function check_build {
  if [ ! -d build ]; then
    echo "build directory is missing, run make first" >&2
    exit 1
  fi
}

check_build
for host in "$@"; do
  deploy_host "$host"
  log_info "deployed to host $host"
done

echo "deployed $# hosts"
