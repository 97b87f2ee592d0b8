#!/bin/bash
# Helpers for guest tests (sourced).  rxe0 is up and $RXE_GID set by tests/vm/run.
IP=127.0.0.1

# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
# wait_listen, perftest and its server/client halves
# shellcheck source=perftest.sh
source "$(dirname "${BASH_SOURCE[0]}")/perftest.sh"
