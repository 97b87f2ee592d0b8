/*
 * aging: what the two tools that measure rdma_rxe's ODP page aging
 * (aging-probe, young-scale) share: their common options, parsed into
 * struct aging_opts; joining the cgroup they reclaim from; switching
 * odp_aging; one memory.reclaim write; and the loopback RC QP pair with
 * its small pinned source buffer. Every function that fails prints why,
 * prefixed with the tool's name. Built into each tool that lists it in LIB
 * (../common.mk), with loopback, sysfile and opts.
 */
#ifndef RXE_ODP_AGING_H
#define RXE_ODP_AGING_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "loopback.h"

#define AGING_MAX_MODES 4
#define AGING_PARAM "/sys/module/rdma_rxe/parameters/odp_aging"

struct aging_opts {
	const char *prog;	/* for messages */
	const char *dev;	/* --dev: RDMA device (default rxe0) */
	int gid;		/* --gid: GID index ($RXE_GID, else 1) */
	const char *cgroup;	/* --cgroup: cgroup v2 directory (required) */
	const char *param;	/* --param: the aging switch (AGING_PARAM) */
	int nmodes;		/* --modes: odp_aging of each phase, in order */
	bool modes[AGING_MAX_MODES];
	int max_modes;		/* how many phases the tool takes */
	size_t size;		/* --size MIB: the data the tool works on, bytes */
	long size_max_mib;
	size_t reclaim;		/* --reclaim MIB: bytes per memory.reclaim write;
				 * 0 = not given (the tool picks) */
};

/*
 * The long options aging_opt() handles, to put first in a tool's table,
 * and their short letters for getopt_long's optstring. --gid-index and
 * --data are the names aging-probe's --gid and young-scale's --size had.
 */
#define AGING_LONG_OPTIONS \
	{ "dev", required_argument, NULL, 'd' }, \
	{ "gid", required_argument, NULL, 'g' }, \
	{ "gid-index", required_argument, NULL, 'g' }, \
	{ "cgroup", required_argument, NULL, 'c' }, \
	{ "param", required_argument, NULL, 'p' }, \
	{ "modes", required_argument, NULL, 'M' }, \
	{ "size", required_argument, NULL, 's' }, \
	{ "data", required_argument, NULL, 's' }, \
	{ "reclaim", required_argument, NULL, 'R' }
#define AGING_SHORT_OPTIONS "d:g:c:p:M:s:R:"

/* The defaults: modes off,on; size_mib MiB of data, at most size_max_mib. */
void aging_opts_init(struct aging_opts *a, const char *prog, long size_mib,
		     long size_max_mib, int max_modes);
/* Option c of getopt_long with its argument: 1 when it was one of the
 * shared ones and is now in *a, 0 when it is not one of them, -1 when its
 * value is bad (message printed). */
int aging_opt(struct aging_opts *a, int c, const char *arg);
/* getopt_long(argc, argv, optstring, lo) that keeps the shared options in
 * *a itself: the next option of the tool's own, -1 at the end, or -2 after
 * a bad value of a shared one (message printed). */
int aging_getopt(struct aging_opts *a, int argc, char **argv, const char *optstring,
		 const struct option *lo);
/* After the last option: 0, or -1 with a message when --cgroup is missing. */
int aging_opts_check(const struct aging_opts *a);
/* "off,on" -> the modes; -1 for other words, none, or more than max. */
int aging_parse_modes(const char *arg, bool *modes, int max, int *n);

/* Join the cgroup: 0 or -1. */
int aging_join(const struct aging_opts *a);
/* Set odp_aging: 0 or -1. */
int aging_switch(const struct aging_opts *a, bool on);
/* Ask the cgroup's memory.reclaim for bytes: 0, -EAGAIN when it could not
 * reclaim all of it (no message: a short reclaim is a result), or -1. */
int aging_reclaim(const struct aging_opts *a, size_t bytes);

/* The RDMA side: a device, a loopback RC QP pair (qps.a posts, qps.b is
 * the target) and a pinned buffer that WRITEs come from. */
struct aging_rdma {
	struct lb_dev dev;
	struct lb_pair qps;
	struct lb_buf src;
};

/* Open the device; with pa, also the GID, the QP pair and src_len bytes
 * of source (filled with 0x5a). 0, or -1 (aging_rdma_close() cleans up). */
int aging_rdma_open(struct aging_rdma *r, const struct aging_opts *a,
		    const struct lb_pair_attr *pa, size_t src_len);
void aging_rdma_close(struct aging_rdma *r);

#endif
