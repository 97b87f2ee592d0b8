// SPDX-License-Identifier: GPL-2.0
/*
 * aging-probe: does rxe's page aging keep an RDMA-only buffer resident?
 *
 * Two ODP buffers of equal size, A and B, are registered on an rxe device.
 * A is written continuously by RDMA WRITEs over a loopback RC QP pair and is
 * never touched by the CPU after setup; B is registered and left idle. The
 * process sits in a memory cgroup, and the probe applies memory pressure in
 * rounds by writing to memory.reclaim. Between rounds it waits until the
 * traffic has swept all of A (event driven, no timing). For each aging mode
 * (rdma_rxe's odp_aging parameter, switched at runtime) it uses fresh
 * buffers and reports how many pages of A rxe had to fault back in, the
 * swap-ins, and how much of A and B stayed resident.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "aging.h"
#include "counters.h"
#include "loopback.h"
#include "opts.h"
#include "tool.h"

#define PAGE		4096UL
#define MAX_MODES	AGING_MAX_MODES
#define MAX_ROUNDS	64

struct opts {
	/* dev, gid, cgroup, param, modes; size: bytes of A and of B;
	 * reclaim: bytes per memory.reclaim write */
	struct aging_opts a;
	size_t msg;		/* bytes per RDMA WRITE */
	int depth;		/* WRITEs in flight */
	int rounds;
	int sweeps;		/* sweeps of A to wait for between rounds */
	int settle;		/* pressure rounds before the counted ones */
	bool json;
	int wait_limit;		/* seconds without progress before giving up */
	int qp_timeout;		/* local ACK timeout exponent of the QPs */
};

struct counters {
	long long pages_faulted;
	long long faults;
	long long invalidated;
	long long young;
	long long pswpin;
	long long pswpout;
};

struct round_res {
	double a_res;		/* % of A resident right after the reclaim */
	double b_res;
	bool short_reclaim;	/* memory.reclaim could not reclaim it all */
	long long faulted;	/* pages of A faulted from this round on */
	long long pswpin;
};

struct phase {
	bool aging;
	struct counters d;	/* deltas over the pressure rounds */
	long long settle_faulted;	/* pages of A faulted in settle rounds */
	long long settle_pswpin;
	struct round_res r[MAX_ROUNDS];
	double a_end, b_end;	/* % resident at the end */
	long long bytes;	/* RDMA bytes written into A in the phase */
	double secs;		/* wall time of the counted rounds */
};

struct traffic {
	struct aging_rdma *rd;
	const struct opts *o;
	uint64_t a_addr;
	uint32_t a_rkey;
	pthread_t thread;
	atomic_bool stop;
	atomic_llong sweeps;	/* complete passes over A */
	atomic_llong bytes;
	atomic_int error;	/* ibv_wc_status + 1000, or errno */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: aging-probe [options]\n"
"\n"
"Shows whether rdma_rxe's ODP page aging keeps a buffer that only RDMA uses\n"
"resident under memory pressure. Buffers A and B (same size) are registered\n"
"as On-Demand Paging MRs. A is written without pause by RDMA WRITEs over a\n"
"loopback RC QP pair and never touched by the CPU; B stays idle. Memory\n"
"pressure comes in rounds of memory.reclaim writes to the cgroup the probe\n"
"joins; before each round the traffic sweeps A completely --sweeps times.\n"
"Each mode sets /sys/module/rdma_rxe/parameters/odp_aging and uses fresh\n"
"buffers. Per mode it prints the pages of A rxe faulted back in (device\n"
"counter odp_pages_faulted), swap-ins (/proc/vmstat pswpin), young answers\n"
"(odp_young_answers) and how much of A and B stayed resident (mincore).\n"
"Run as root in a guest with swap (e.g. zram) and cgroup v2.\n"
"\n"
"options:\n"
"  -d, --dev NAME        RDMA device (default rxe0)\n"
"  -g, --gid N           GID index for the loopback path (default $RXE_GID or 1;\n"
"                        --gid-index is the old name)\n"
"  -s, --size MIB        size of A and of B in MiB (default 16)\n"
"  -m, --msg BYTES       bytes per RDMA WRITE (default 65536)\n"
"  -q, --depth N         RDMA WRITEs in flight (default 8)\n"
"  -r, --rounds N        counted memory.reclaim rounds per mode (default 5,\n"
"                        max 64)\n"
"  -R, --reclaim MIB     MiB asked from memory.reclaim per round (default\n"
"                        size/8, at least 1: 1 settle + 5 rounds ask for 3/4\n"
"                        of B, pressure that idle memory alone can satisfy)\n"
"  -w, --sweeps N        full sweeps of A before each round (default 2)\n"
"  -S, --settle N        uncounted pressure rounds before the counted ones\n"
"                        (default 1, see below)\n"
"  -c, --cgroup DIR      cgroup v2 directory to join and to reclaim from\n"
"                        (required, e.g. /sys/fs/cgroup/aging)\n"
"  -p, --param PATH      aging switch (default\n"
"                        /sys/module/rdma_rxe/parameters/odp_aging)\n"
"  -M, --modes LIST      comma-separated aging modes to run in order, each\n"
"                        on or off (default off,on)\n"
"  -t, --wait-limit SEC  give up when the traffic makes no progress for SEC\n"
"                        seconds (default 120)\n"
"  -T, --qp-timeout N    local ACK timeout of the RC QPs, 4.096 us * 2^N\n"
"                        (default 14, about 67 ms, as perftest)\n"
"  -j, --json            print one JSON object instead of key=value lines\n"
"  -h, --help            this text\n"
"\n"
"key=value output: one 'mode=on|off ...' line per mode with a_pages_faulted,\n"
"a_faults, pswpin, pswpout, young_answers, rdma_mib (MiB RDMA wrote into A\n"
"during the counted rounds), rdma_mib_s (the same per second of those rounds:\n"
"the RDMA throughput the pressure leaves), a_resident_min_pct (lowest share of\n"
"A resident right after a reclaim round), a_resident_end_pct, b_resident_end_pct;\n"
"'round mode=... n=...' lines per round; a final 'result' line with the ratio\n"
"faulted_off/faulted_on (pages of A faulted with aging off over on, on counted\n"
"as at least 1; -1 unless both modes ran). Exit status 0 when the runs\n"
"completed, 1 on errors, 2 on bad options; it does not judge the numbers\n"
"(the test does).\n"
"\n"
"Settle rounds: A and B are filled together, so they start in the same LRU\n"
"generation, and the first reclaim may age them twice in a row, faster than\n"
"the traffic sweeps A; the second look then finds A's pages unused since the\n"
"first. The settle rounds let reclaim sort A and B once; their faults and\n"
"swap-ins are reported apart (settle_a_pages_faulted, settle_pswpin) and\n"
"are not in the counted numbers or the ratio.\n");
}

static int die_errno(const char *what)
{
	fprintf(stderr, "aging-probe: %s: %s\n", what, strerror(errno));
	return -1;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		AGING_LONG_OPTIONS,
		{ "msg", required_argument, NULL, 'm' },
		{ "depth", required_argument, NULL, 'q' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "sweeps", required_argument, NULL, 'w' },
		{ "settle", required_argument, NULL, 'S' },
		{ "wait-limit", required_argument, NULL, 't' },
		{ "qp-timeout", required_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct aging_opts *a = &o->a;
	long v;
	int c;

	*o = (struct opts) {
		.msg = 65536, .depth = 8, .rounds = 5, .sweeps = 2, .settle = 1,
		.wait_limit = 120, .qp_timeout = 14,
	};
	aging_opts_init(a, "aging-probe", 16, 4096, MAX_MODES);

	while ((c = aging_getopt(a, argc, argv, AGING_SHORT_OPTIONS "m:q:r:w:S:t:T:jh", lo)) >= 0) {
		switch (c) {
		case 'm':
			if (opt_long(optarg, 1, 1 << 24, &v))
				goto bad;
			o->msg = (size_t)v;
			break;
		case 'q':
			if (opt_long(optarg, 1, 64, &v))
				goto bad;
			o->depth = (int)v;
			break;
		case 'r':
			if (opt_long(optarg, 1, MAX_ROUNDS, &v))
				goto bad;
			o->rounds = (int)v;
			break;
		case 'w':
			if (opt_long(optarg, 1, 1000, &v))
				goto bad;
			o->sweeps = (int)v;
			break;
		case 'S':
			if (opt_long(optarg, 0, MAX_ROUNDS, &v))
				goto bad;
			o->settle = (int)v;
			break;
		case 't':
			if (opt_long(optarg, 1, 3600, &v))
				goto bad;
			o->wait_limit = (int)v;
			break;
		case 'T':
			if (opt_long(optarg, 1, 31, &v))
				goto bad;
			o->qp_timeout = (int)v;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (c == -2)
		return -1;
	if (optind != argc) {
		fprintf(stderr, "aging-probe: unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	if (aging_opts_check(a))
		return -1;
	if (o->msg > a->size || a->size % o->msg) {
		fprintf(stderr, "aging-probe: --msg must divide the buffer size\n");
		return -1;
	}
	if (!a->reclaim)
		a->reclaim = a->size / 8 < (1UL << 20) ? 1UL << 20 : a->size / 8;
	return 0;
bad:
	fprintf(stderr, "aging-probe: bad value '%s' for option -%c (see --help)\n",
		optarg, c);
	return -1;
}

/* One reading of each source: a netlink request for the device's
 * counters, one pass over /proc/vmstat (-1 for a counter that is missing) */
static void snapshot(const struct opts *o, struct counters *c)
{
	static const char *const hw[] = {
		"odp_pages_faulted", "odp_faults", "odp_pages_invalidated", "odp_young_answers",
	};
	static const char *const vm[] = { "pswpin", "pswpout" };
	long long h[4], v[2];

	hw_counters_read(o->a.dev, 1, hw, h, 4);
	vmstat_read(vm, v, 2);
	c->pages_faulted = h[0];
	c->faults = h[1];
	c->invalidated = h[2];
	c->young = h[3];
	c->pswpin = v[0];
	c->pswpout = v[1];
}

/* b - a, or -1 when a counter does not exist */
static long long delta(long long a, long long b)
{
	return a < 0 || b < 0 ? -1 : b - a;
}

static double resident_pct(void *buf, size_t size)
{
	size_t pages = size / PAGE, i, n = 0;
	unsigned char *vec = malloc(pages);

	if (!vec || mincore(buf, size, vec)) {
		free(vec);
		return -1;
	}
	for (i = 0; i < pages; i++)
		n += vec[i] & 1;
	free(vec);
	return 100.0 * (double)n / (double)pages;
}

static int rdma_setup(struct aging_rdma *rd, const struct opts *o)
{
	struct lb_pair_attr pa = {
		.cqe_a = 2 * o->depth + 2,
		.cap = { .max_send_wr = (uint32_t)o->depth, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE,
		.max_rd_atomic = 1,
		.hop_limit = 1,
		.timeout = (uint8_t)o->qp_timeout,
	};

	/* the WRITE source is small and pinned: only A and B are ODP */
	return aging_rdma_open(rd, &o->a, &pa, o->msg);
}

static void *traffic_main(void *arg)
{
	struct traffic *t = arg;
	const struct opts *o = t->o;
	struct ibv_sge sge = {
		.addr = (uintptr_t)t->rd->src.addr,
		.length = (uint32_t)o->msg,
		.lkey = t->rd->src.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma.rkey = t->a_rkey,
	};
	struct ibv_send_wr *bad;
	struct ibv_wc wc[16];
	size_t off = 0;
	int inflight = 0, n, i, err;

	while (!atomic_load(&t->stop) || inflight) {
		while (!atomic_load(&t->stop) && inflight < o->depth) {
			wr.wr.rdma.remote_addr = t->a_addr + off;
			wr.wr_id = off;
			err = ibv_post_send(t->rd->qps.a.qp, &wr, &bad);
			if (err) {
				int none = 0;

				atomic_compare_exchange_strong(&t->error, &none,
							       err);
				atomic_store(&t->stop, true);
				break;
			}
			inflight++;
			off += o->msg;
			if (off == o->a.size)
				off = 0;
		}
		n = ibv_poll_cq(t->rd->qps.a.cq, 16, wc);
		if (n < 0) {
			atomic_store(&t->error, EIO);
			break;
		}
		for (i = 0; i < n; i++) {
			inflight--;
			if (wc[i].status != IBV_WC_SUCCESS) {
				int none = 0;

				/* keep the first error: the rest are flushes */
				atomic_compare_exchange_strong(&t->error, &none,
							       1000 + (int)wc[i].status);
				atomic_store(&t->stop, true);
				continue;
			}
			atomic_fetch_add(&t->bytes, (long long)o->msg);
			/* the WRITE to the last chunk of A ends a sweep */
			if (wc[i].wr_id + o->msg == o->a.size)
				atomic_fetch_add(&t->sweeps, 1);
		}
	}
	return NULL;
}

/* On an RDMA error: the device counters that are not zero, for diagnosis */
static void dump_hw_counters(const struct opts *o)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd),
		 "cd /sys/class/infiniband/%s/ports/1/hw_counters 2>/dev/null && grep -v '^0$' * >&2",
		 o->a.dev);
	if (system(cmd) == -1)
		fprintf(stderr, "aging-probe: cannot read hw_counters\n");
}

/* Wait until A has been swept @n more times; fail on errors or a stall */
static int wait_sweeps(struct traffic *t, long long n)
{
	long long target = atomic_load(&t->sweeps) + n;
	long long last_bytes = atomic_load(&t->bytes);
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 10 * 1000 * 1000 };
	int idle = 0;

	while (atomic_load(&t->sweeps) < target) {
		int err = atomic_load(&t->error);
		long long b;

		if (err) {
			if (err >= 1000)
				fprintf(stderr, "aging-probe: RDMA WRITE completed with %s (%d)\n",
					ibv_wc_status_str(err - 1000),
					err - 1000);
			else
				fprintf(stderr, "aging-probe: ibv_post_send: %s\n",
					strerror(err));
			dump_hw_counters(t->o);
			return -1;
		}
		nanosleep(&ts, NULL);
		b = atomic_load(&t->bytes);
		if (b != last_bytes) {
			last_bytes = b;
			idle = 0;
		} else if (++idle > t->o->wait_limit * 100) {
			fprintf(stderr, "aging-probe: no RDMA progress for %d s\n",
				t->o->wait_limit);
			return -1;
		}
	}
	return 0;
}

static void *map_buffer(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	/* one page = one LRU entry, so residency is counted per page */
	madvise(p, size, MADV_NOHUGEPAGE);
	return p;
}

/* MiB per second RDMA wrote into A during the counted rounds */
static double mib_s(const struct phase *ph)
{
	return ph->secs > 0 ? (double)ph->bytes / (1 << 20) / ph->secs : 0;
}

static int run_phase(struct aging_rdma *rd, const struct opts *o, bool aging,
		     struct phase *ph)
{
	int access = IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE |
		     IBV_ACCESS_REMOTE_WRITE;
	struct ibv_mr *mra = NULL, *mrb = NULL;
	struct traffic t = { .rd = rd, .o = o };
	struct counters c0, c1, cr;
	long long bytes0;
	double t0;
	uint8_t *a, *b;
	bool running = false;
	int ret = -1, err, r;
	size_t i;

	memset(ph, 0, sizeof(*ph));
	ph->aging = aging;
	if (aging_switch(&o->a, aging))
		return -1;

	a = map_buffer(o->a.size);
	b = map_buffer(o->a.size);
	if (!a || !b) {
		die_errno("mmap");
		goto out;
	}
	/*
	 * The CPU fills both, page by page in turn, so A and B enter the LRU
	 * interleaved and neither starts out older than the other.
	 */
	for (i = 0; i < o->a.size; i += PAGE) {
		memset(a + i, (int)(i / PAGE) | 1, PAGE);
		memset(b + i, (int)(i / PAGE) | 1, PAGE);
	}

	mra = lb_reg_mr(&rd->dev, a, o->a.size, access);
	mrb = mra ? lb_reg_mr(&rd->dev, b, o->a.size, access) : NULL;
	if (!mra || !mrb) {
		fprintf(stderr, "aging-probe: %s\n", rd->dev.err);
		goto out;
	}

	t.a_addr = (uintptr_t)a;
	t.a_rkey = mra->rkey;
	err = pthread_create(&t.thread, NULL, traffic_main, &t);
	if (err) {
		fprintf(stderr, "aging-probe: pthread_create: %s\n",
			strerror(err));
		goto out;
	}
	running = true;

	/* warm up: every page of A faulted in and written by RDMA */
	if (wait_sweeps(&t, o->sweeps))
		goto out;

	snapshot(o, &c0);
	for (r = 0; r < o->settle; r++) {
		if (aging_reclaim(&o->a, o->a.reclaim) == -1)
			goto out;
		if (wait_sweeps(&t, o->sweeps))
			goto out;
	}
	snapshot(o, &c1);
	ph->settle_faulted = delta(c0.pages_faulted, c1.pages_faulted);
	ph->settle_pswpin = delta(c0.pswpin, c1.pswpin);

	snapshot(o, &c0);
	bytes0 = atomic_load(&t.bytes);
	t0 = tool_now_us();
	cr = c0;
	for (r = 0; r < o->rounds; r++) {
		if (r) {
			if (wait_sweeps(&t, o->sweeps))
				goto out;
			snapshot(o, &c1);
			ph->r[r - 1].faulted = delta(cr.pages_faulted,
						     c1.pages_faulted);
			ph->r[r - 1].pswpin = delta(cr.pswpin, c1.pswpin);
			cr = c1;
		}
		err = aging_reclaim(&o->a, o->a.reclaim);
		if (err == -1)
			goto out;
		ph->r[r].short_reclaim = err == -EAGAIN;
		ph->r[r].a_res = resident_pct(a, o->a.size);
		ph->r[r].b_res = resident_pct(b, o->a.size);
	}
	/* let RDMA fault back what the last round took from A */
	if (wait_sweeps(&t, o->sweeps))
		goto out;
	snapshot(o, &c1);
	ph->r[r - 1].faulted = delta(cr.pages_faulted, c1.pages_faulted);
	ph->r[r - 1].pswpin = delta(cr.pswpin, c1.pswpin);
	ph->bytes = atomic_load(&t.bytes) - bytes0;
	ph->secs = (tool_now_us() - t0) / 1e6;
	ph->a_end = resident_pct(a, o->a.size);
	ph->b_end = resident_pct(b, o->a.size);

	ph->d.pages_faulted = delta(c0.pages_faulted, c1.pages_faulted);
	ph->d.faults = delta(c0.faults, c1.faults);
	ph->d.invalidated = delta(c0.invalidated, c1.invalidated);
	ph->d.young = delta(c0.young, c1.young);
	ph->d.pswpin = delta(c0.pswpin, c1.pswpin);
	ph->d.pswpout = delta(c0.pswpout, c1.pswpout);
	ret = 0;
out:
	if (running) {
		atomic_store(&t.stop, true);
		pthread_join(t.thread, NULL);
	}
	if (mra)
		ibv_dereg_mr(mra);
	if (mrb)
		ibv_dereg_mr(mrb);
	if (a)
		munmap(a, o->a.size);
	if (b)
		munmap(b, o->a.size);
	return ret;
}

static double min_a_res(const struct opts *o, const struct phase *ph)
{
	double m = 100.0;
	int r;

	for (r = 0; r < o->rounds; r++)
		if (ph->r[r].a_res < m)
			m = ph->r[r].a_res;
	return m;
}

/* faulted pages of A with aging off over with aging on (on counted >= 1) */
static double ratio(const struct opts *o, const struct phase *ph)
{
	long long on = -1, off = -1;
	int i;

	for (i = 0; i < o->a.nmodes; i++) {
		if (ph[i].aging && on < 0)
			on = ph[i].d.pages_faulted;
		if (!ph[i].aging && off < 0)
			off = ph[i].d.pages_faulted;
	}
	if (on < 0 || off < 0)
		return -1;
	return (double)off / (double)(on > 0 ? on : 1);
}

static void print_kv(const struct opts *o, const struct phase *ph)
{
	int i, r;

	printf("config size_mib=%zu msg=%zu depth=%d settle=%d rounds=%d reclaim_mib=%zu sweeps=%d a_pages=%zu\n",
	       o->a.size >> 20, o->msg, o->depth, o->settle, o->rounds,
	       o->a.reclaim >> 20, o->sweeps, o->a.size / PAGE);
	for (i = 0; i < o->a.nmodes; i++) {
		const char *m = ph[i].aging ? "on" : "off";

		for (r = 0; r < o->rounds; r++)
			printf("round mode=%s n=%d a_pages_faulted=%lld pswpin=%lld a_resident_pct=%.1f b_resident_pct=%.1f short=%d\n",
			       m, r + 1, ph[i].r[r].faulted, ph[i].r[r].pswpin,
			       ph[i].r[r].a_res, ph[i].r[r].b_res,
			       ph[i].r[r].short_reclaim);
		printf("mode=%s settle_a_pages_faulted=%lld settle_pswpin=%lld a_pages_faulted=%lld a_faults=%lld a_pages_invalidated=%lld pswpin=%lld pswpout=%lld young_answers=%lld rdma_mib=%lld rdma_mib_s=%.2f a_resident_min_pct=%.1f a_resident_end_pct=%.1f b_resident_end_pct=%.1f\n",
		       m, ph[i].settle_faulted, ph[i].settle_pswpin,
		       ph[i].d.pages_faulted, ph[i].d.faults,
		       ph[i].d.invalidated, ph[i].d.pswpin, ph[i].d.pswpout,
		       ph[i].d.young, ph[i].bytes >> 20, mib_s(&ph[i]), min_a_res(o, &ph[i]),
		       ph[i].a_end, ph[i].b_end);
	}
	printf("result ratio_faulted_off_over_on=%.1f\n", ratio(o, ph));
}

static void print_json(const struct opts *o, const struct phase *ph)
{
	int i, r;

	printf("{\"size_mib\": %zu, \"msg\": %zu, \"depth\": %d, \"settle\": %d, \"rounds\": %d, \"reclaim_mib\": %zu, \"sweeps\": %d, \"a_pages\": %zu, \"modes\": [",
	       o->a.size >> 20, o->msg, o->depth, o->settle, o->rounds,
	       o->a.reclaim >> 20, o->sweeps, o->a.size / PAGE);
	for (i = 0; i < o->a.nmodes; i++) {
		printf("%s{\"aging\": \"%s\", \"settle_a_pages_faulted\": %lld, \"settle_pswpin\": %lld, \"a_pages_faulted\": %lld, \"a_faults\": %lld, \"a_pages_invalidated\": %lld, \"pswpin\": %lld, \"pswpout\": %lld, \"young_answers\": %lld, \"rdma_mib\": %lld, \"rdma_mib_s\": %.2f, \"a_resident_min_pct\": %.1f, \"a_resident_end_pct\": %.1f, \"b_resident_end_pct\": %.1f, \"rounds\": [",
		       i ? ", " : "", ph[i].aging ? "on" : "off",
		       ph[i].settle_faulted, ph[i].settle_pswpin,
		       ph[i].d.pages_faulted, ph[i].d.faults,
		       ph[i].d.invalidated, ph[i].d.pswpin, ph[i].d.pswpout,
		       ph[i].d.young, ph[i].bytes >> 20, mib_s(&ph[i]), min_a_res(o, &ph[i]),
		       ph[i].a_end, ph[i].b_end);
		for (r = 0; r < o->rounds; r++)
			printf("%s{\"a_pages_faulted\": %lld, \"pswpin\": %lld, \"a_resident_pct\": %.1f, \"b_resident_pct\": %.1f, \"short\": %s}",
			       r ? ", " : "", ph[i].r[r].faulted,
			       ph[i].r[r].pswpin, ph[i].r[r].a_res,
			       ph[i].r[r].b_res,
			       ph[i].r[r].short_reclaim ? "true" : "false");
		printf("]}");
	}
	printf("], \"ratio_faulted_off_over_on\": %.1f}\n", ratio(o, ph));
}

int main(int argc, char **argv)
{
	struct phase ph[MAX_MODES];
	struct aging_rdma rd = { 0 };
	struct opts o;
	int i, ret = 1;

	if (parse_opts(argc, argv, &o))
		return 2;
	if (aging_join(&o.a))
		return 1;
	if (rdma_setup(&rd, &o))
		goto out;
	for (i = 0; i < o.a.nmodes; i++) {
		if (run_phase(&rd, &o, o.a.modes[i], &ph[i]))
			goto out;
		if (!o.json)
			fprintf(stderr, "aging-probe: mode %s done\n",
				o.a.modes[i] ? "on" : "off");
	}
	if (o.json)
		print_json(&o, ph);
	else
		print_kv(&o, ph);
	ret = 0;
out:
	aging_rdma_close(&rd);
	return ret;
}
