#!/bin/sh
# tools/setup.sh: make a fresh Debian 12 machine able to build and test
# rankline, then build it.  Installs only the packages that are missing
# (as root, through apt-get), generates the build system, configures and
# builds ./rankline at the top of the tree.  Extra arguments go to
# ./configure.
set -eu
cd "$(dirname "$0")/.."

# Build: compiler, autotools, and the libraries of the design card plus
# zlib and jansson (every JSON written or read).  Test: tmux drives the
# console, python3 runs the corpus scorers, strace shows each log is opened
# once, pdsh's exec module stands in for a cluster's hosts for the command
# sources; valgrind checks analyze in CI.
PKGS="build-essential autoconf automake pkg-config libncurses-dev libuv1-dev
libsqlite3-dev libpcre2-dev zlib1g-dev libzstd-dev libjansson-dev tmux python3
gzip zstd strace pdsh"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
	    missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup: missing packages:$missing (run as root, or install them)" >&2
		exit 1
	fi
	echo "setup: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] ||
    autoreconf -fi
[ -f Makefile ] && [ Makefile -nt configure ] || ./configure "$@"
make -j"$(nproc 2>/dev/null || echo 2)"
