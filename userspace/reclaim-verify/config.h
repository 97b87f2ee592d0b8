/* SPDX-License-Identifier: GPL-2.0 */
/* Command line of reclaim-verify: parsed into struct rv_config, no globals. */
#ifndef RV_CONFIG_H
#define RV_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rv_mode { RV_LOOPBACK, RV_SERVER, RV_CLIENT };
enum rv_mrkind { RV_MR_ODP, RV_MR_PINNED, RV_MR_MIX };

enum rv_op { RV_OP_WRITE, RV_OP_READ, RV_OP_SEND, RV_OP_ATOMIC, RV_NOPS };

/* Reclaim event kinds; every one is on by default. */
enum rv_kind {
	RV_EV_PAGEOUT,
	RV_EV_DONTNEED,
	RV_EV_REMAP,
	RV_EV_MPROTECT,
	RV_EV_FORK,
	RV_EV_THP,
	RV_EV_COMPACT,
	RV_EV_CGROUP,
	RV_NKINDS
};

struct rv_config {
	enum rv_mode mode;
	char addr[128];		/* loopback/client: server address; server: bind address */
	unsigned port;
	unsigned qps;		/* connections (RC QPs) */
	unsigned window;	/* transactions in flight per QP */
	size_t block;		/* bytes per block, multiple of 4096 */
	size_t target;		/* bytes of the remote write target per QP */
	bool op[RV_NOPS];	/* the operations each transaction does */
	enum rv_mrkind mr;
	bool implicit;		/* ODP buffers take their keys from one implicit MR per side */
	bool kind[RV_NKINDS];	/* the reclaim kinds to run */
	unsigned interval_ms;	/* pause between reclaim rounds */
	double duration;	/* seconds of traffic */
	unsigned min_events;	/* run on until each reclaim kind hit this many in flight */
	double max_duration;	/* ... but no longer than this; 0 = 10 x duration */
	size_t cgroup_max;	/* memory.max; 0 = automatic (half the working set) */
	unsigned progress;	/* seconds between progress lines; 0 = none */
	unsigned stall;		/* seconds without progress before giving up */
	int ack_timeout;	/* QP Local ACK Timeout exponent; -1 = rdma_cm's */
	unsigned seed;
	bool json;
	char json_file[256];	/* also write the JSON report here */
	bool verbose;
};

extern const char *const rv_op_names[RV_NOPS];
extern const char *const rv_kind_names[RV_NKINDS];

void rv_config_defaults(struct rv_config *c);
/* 0 = run, 1 = --help was printed (exit 0), -1 = error (message in err). */
int rv_parse_args(struct rv_config *c, int argc, char **argv, char *err, size_t errlen);
void rv_usage(FILE *f, const char *prog);
/* the operations as the client's hello carries them: bit i = op[i] */
uint32_t rv_ops_to_wire(const struct rv_config *c);
void rv_ops_from_wire(struct rv_config *c, uint32_t bits);
/* is any reclaim kind but @except selected? */
bool rv_any_kind_but(const struct rv_config *c, enum rv_kind except);
/*
 * Does the cgroup kind count the slots the limit swapped out (buffers.c)?
 * Only when no other selected kind empties pages (pageout, dontneed, remap):
 * a slot not resident is then the limit's doing.
 */
bool rv_cgroup_counts_slots(const struct rv_config *c);

#endif
