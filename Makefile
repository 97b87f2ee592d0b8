# rxe-odp: Soft-RoCE (rdma_rxe) with On-Demand Paging, built out of tree for
# Debian 12's Linux 6.12.  See README.md.
#
#   make deps    install everything (Debian packages only; needs root)
#   make         build build/rxe/rdma_rxe.ko and the userspace tools
#   make demo    the main job, in a QEMU guest running Debian's 6.12 kernel
#   make demo2   the same across two guests on one link: our ODP server under
#                memory pressure, its client on Debian's stock rdma_rxe
#                (also: make demo HOSTS=2)
#   make check   every test: host tests, then guest tests (also on the debug kernel)
#   make debug-kernel  the debug kernel (KASAN, lockdep, ...; built once per
#                machine, cached in /var/cache/rxe-odp) and our module for it
#   make bench   the full benchmark (out of CI's budget)
#   make fuzz    verbs-fuzz and roce-fuzz in guests (FUZZ_TIME=SEC, default 600)
#   make series-check  patches/ as a git am series, built after every patch
#                (scripts/check-series.sh --build; slow, not in make check)

SHELL := /bin/bash
TOP := $(CURDIR)
B := $(TOP)/build
KVER ?= $(shell $(TOP)/scripts/kver.sh 2>/dev/null)
export KVER
RXE_ODP_VERSION ?= $(shell git -C $(TOP) describe --always --dirty 2>/dev/null | sed 's/^/rxe-odp-/' || echo rxe-odp-unknown)
ifeq ($(RXE_ODP_VERSION),)
RXE_ODP_VERSION := rxe-odp-unknown
endif
export RXE_ODP_VERSION

.PHONY: all deps module userspace debug-kernel check check-host check-guest demo demo2 bench fuzz dkms-src series-check clean help

all: module userspace

help:
	@sed -n '1,16p' Makefile

deps:
	@bash $(TOP)/scripts/deps.sh

module:
	@test -n "$(KVER)" || { echo "make: cannot derive KVER; run 'make deps' or set KVER=" >&2; exit 1; }
	@bash $(TOP)/scripts/build-module.sh $(TOP) $(B) $(KVER) $(RXE_ODP_VERSION)

userspace:
	@$(MAKE) --no-print-directory -C userspace OUT=$(B)/bin

# Debug kernel (scripts/build-debug-kernel.sh; cold: a kernel build, then cached)
# and build/debug/rxe/rdma_rxe.ko built against it.  Not part of 'all'.
debug-kernel:
	@dk=$$(bash $(TOP)/scripts/build-debug-kernel.sh) && \
		KDIR=$$dk/build bash $(TOP)/scripts/build-module.sh $(TOP) $(B)/debug \
		$$(cat $$dk/release) $(RXE_ODP_VERSION)

# Source tree for DKMS (dkms add build/dkms/rxe-odp-<version>).
dkms-src:
	@bash $(TOP)/scripts/dkms-src.sh $(TOP) $(B)/dkms $(RXE_ODP_VERSION)

check: deps all
	@bash $(TOP)/tests/check.sh

check-host: all
	@bash $(TOP)/tests/check.sh --host-only

check-guest: all
	@bash $(TOP)/tests/check.sh --guest-only

HOSTS ?= 1
demo: deps all
	@if [ "$(HOSTS)" = 2 ]; then bash $(TOP)/tests/demo2.sh; \
	elif [ "$(HOSTS)" = 1 ]; then bash $(TOP)/tests/demo.sh; \
	else echo "make demo: HOSTS=1 or HOSTS=2" >&2; exit 2; fi

demo2: deps all
	@bash $(TOP)/tests/demo2.sh

bench: deps all
	@bash $(TOP)/bench/run.sh

FUZZ_TIME ?= 600
fuzz: deps all
	@FUZZ_TIME=$(FUZZ_TIME) bash $(TOP)/scripts/fuzz.sh

# git am onto Debian's 6.12 rxe, subjects, checkpatch, and a W=1 build after
# every patch (tests/host/10-series.sh runs the same without the builds).
series-check:
	@bash $(TOP)/scripts/check-series.sh --build

clean:
	rm -rf $(B)
