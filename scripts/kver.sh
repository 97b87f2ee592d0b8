#!/bin/bash
# Print the Debian 6.12 kernel ABI (e.g. 6.12.118+deb12-amd64) the project builds for.
#
# KVER in the environment wins.  Otherwise the ABI follows the linux-source-6.12
# package: the installed one if there is one (so the build matches the sources it
# extracts), else the version Debian serves now (so `make deps` follows security
# updates).  Debian versions look like 6.12.118-1~deb12u1 -> ABI 6.12.118+deb12-amd64.
set -euo pipefail
if [ -n "${KVER:-}" ]; then
	echo "$KVER"
	exit 0
fi
mode=${1:-installed}
ver=
if [ "$mode" = installed ]; then
	ver=$(dpkg-query -W -f='${Status} ${Version}\n' linux-source-6.12 2>/dev/null |
		awk '$3 == "installed" {print $4}')
fi
if [ -z "$ver" ]; then
	ver=$(apt-cache policy linux-source-6.12 2>/dev/null | awk '/Candidate:/ {print $2}')
fi
case "$ver" in
6.12.*-*) ;;
*)
	echo "kver.sh: cannot tell the linux-source-6.12 version (got '${ver:-nothing}');" \
		"run 'apt-get update' or set KVER=6.12.N+deb12-amd64" >&2
	exit 1
	;;
esac
echo "${ver%%-*}+deb12-amd64"
