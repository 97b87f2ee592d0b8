// SPDX-License-Identifier: GPL-2.0
/*
 * young-scale: what rdma_rxe's ODP page aging costs reclaim and
 * invalidation, against the number of ODP MRs in the process.
 *
 * The process joins a memory cgroup, maps a data region and registers N
 * ODP MRs; then, per repetition and per aging mode (odp_aging off/on,
 * switched at runtime, the order alternating), it touches every data page
 * and times one write to memory.reclaim. With --layout outside the MRs are
 * single pages spread evenly through the data (never touched, so reclaim
 * sees only memory outside every MR, but every address it asks about lies
 * between MRs); with --layout inside the N MRs tile the data, so every page
 * reclaim looks at is in an MR. --hot keeps one page of MR 0 in RDMA use
 * (a WRITE every --hot-us) so the mm always has a page rxe used recently.
 * --inval-reps adds the invalidation side: MADV_DONTNEED and munmap of
 * memory outside every MR, and MADV_DONTNEED of one page of an MR that an
 * RDMA READ just mapped.
 *
 * Rows on stdout, as bench/'s raw.csv: section,case,mode,size,tag,run,
 * value,unit with section "young", size = N and tag = the layout.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
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
#include "sysfile.h"
#include "tool.h"

#define PAGE		4096UL
#define MAX_MRS		100000
#define INVAL_LOOPS	64	/* operations timed per invalidation row */
#define INVAL_PAGES	16	/* pages per MADV_DONTNEED / munmap outside */

enum layout { OUTSIDE, INSIDE };

struct opts {
	/* dev, gid, cgroup, param; modes: odp_aging of each mode, in
	 * first-rep order; size: bytes of data (not counting MR pages);
	 * reclaim: bytes per memory.reclaim write */
	struct aging_opts a;
	long mrs;
	enum layout layout;
	int reps;
	bool hot;
	long hot_us;
	int inval_reps;
	int warmup;
	bool keep;
	const char *perf_ctl;
	char lru_gen_memcg[256];	/* the cgroup as /sys/kernel/debug/lru_gen names it */
	char tag[64];
};

struct state {
	const struct opts *o;
	struct aging_rdma rd;	/* src: pinned page, WRITE source, READ target */
	char *base;		/* the region: data and, outside, MR pages */
	size_t pages;		/* pages of the region */
	size_t stride;		/* outside: MR i is page i * stride */
	struct ibv_mr **mr;
	size_t *mr_page;	/* first page of MR i */
	size_t *mr_npages;
	pthread_t hot_thread;
	bool hot_running;
	atomic_bool hot_stop;
	atomic_int hot_error;
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: young-scale --cgroup DIR --mrs N [options]\n"
"\n"
"Times memory.reclaim of a process that has N On-Demand-Paging MRs on an rxe\n"
"device, with rdma_rxe's odp_aging off and on (switched at runtime, in\n"
"alternating order per repetition), to show what page aging costs reclaim as\n"
"N grows; optionally the cost of invalidations too. Run as root in a guest\n"
"with swap (e.g. zram) and cgroup v2; the tool joins the cgroup itself.\n"
"\n"
"options:\n"
"  -c, --cgroup DIR     cgroup v2 directory to join and reclaim from (required)\n"
"  -n, --mrs N          ODP MRs to register (0-%d)\n"
"  -l, --layout L       outside: N one-page MRs spread evenly through the data,\n"
"                       never touched (reclaim takes only memory outside the\n"
"                       MRs, at addresses between them); inside: N MRs tile\n"
"                       the data (every page reclaim sees is in an MR)\n"
"                       (default outside)\n"
"  -s, --size MIB       data the process touches before each reclaim (default 256;\n"
"                       --data is the old name, as aging-probe says --size)\n"
"  -R, --reclaim MIB    asked from memory.reclaim per measurement (default size/2)\n"
"  -r, --reps N         repetitions, each with every mode (default 3)\n"
"  -M, --modes LIST     odp_aging modes, comma separated: off,on (default),\n"
"                       on,off, on or off; the order flips every repetition\n"
"  -H, --hot            keep one page of MR 0 in RDMA use while reclaim runs\n"
"                       (an RDMA WRITE every --hot-us)\n"
"  -u, --hot-us US      pause between two hot WRITEs (default 1000)\n"
"  -w, --warmup N       uncounted reclaims before the repetitions (default 1)\n"
"  -k, --keep           do not drop the data before writing it again: what a\n"
"                       reclaim took is swapped back in (by default every\n"
"                       reclaim starts from freshly faulted data)\n"
"  -i, --inval-reps N   also time invalidations, N repetitions (default 0)\n"
"  -P, --perf-ctl FIFO  write 'enable' / 'disable' to this perf --control fifo\n"
"                       around each counted memory.reclaim (profile only that)\n"
"  -p, --param PATH     aging switch (default\n"
"                       /sys/module/rdma_rxe/parameters/odp_aging)\n"
"  -d, --dev NAME       RDMA device (default rxe0)\n"
"  -g, --gid N          GID index (default $RXE_GID, else 1)\n"
"  -h, --help           this text\n"
"\n"
"SIGTERM or SIGINT ends the repetitions after the reclaim in progress; the\n"
"tool then deregisters its MRs and exits 0 as if the repetitions were done.\n"
"\n"
"Rows on stdout (section,case,mode,size,tag,run,value,unit), section young,\n"
"size = N, tag = layout (+hot):\n"
"  reg / dereg, mode odp: time to register / deregister all N MRs (us);\n"
"  reclaim, mode off|on: one memory.reclaim write (us), with pswpout and\n"
"  young-answers (rxe's odp_young_answers) deltas, aging-passes (MGLRU\n"
"  generations the reclaim created, from /sys/kernel/debug/lru_gen) and\n"
"  short = 1 when memory.reclaim could not reclaim it all;\n"
"  inval-dontneed-outside, inval-munmap-outside (%lu pages), inval-dontneed-mr\n"
"  (one MR page mapped by an RDMA READ just before), mode on: mean time of\n"
"  one operation over %d (us);\n"
"  maps / max_map_count: the process's mappings and the limit.\n"
"Exit 0 when every measurement ran, 1 on errors, 2 on bad options.\n",
		MAX_MRS, (unsigned long)INVAL_PAGES, INVAL_LOOPS);
}

static void row(const struct opts *o, const char *kase, const char *mode, int run,
		double value, const char *unit)
{
	printf("young,%s,%s,%ld,%s,%d,%.6g,%s\n", kase, mode, o->mrs, o->tag, run, value,
	       unit);
	fflush(stdout);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		AGING_LONG_OPTIONS,
		{ "mrs", required_argument, NULL, 'n' },
		{ "layout", required_argument, NULL, 'l' },
		{ "reps", required_argument, NULL, 'r' },
		{ "hot", no_argument, NULL, 'H' },
		{ "hot-us", required_argument, NULL, 'u' },
		{ "inval-reps", required_argument, NULL, 'i' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "keep", no_argument, NULL, 'k' },
		{ "perf-ctl", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct aging_opts *a = &o->a;
	long v;
	int c;

	*o = (struct opts) {
		.mrs = -1, .layout = OUTSIDE, .reps = 3, .hot_us = 1000, .warmup = 1,
	};
	aging_opts_init(a, "young-scale", 256, 1 << 16, 2);
	while ((c = aging_getopt(a, argc, argv, AGING_SHORT_OPTIONS "n:l:r:Hu:i:w:kP:h", lo)) >= 0) {
		switch (c) {
		case 'n':
			if (opt_long(optarg, 0, MAX_MRS, &o->mrs))
				goto bad;
			break;
		case 'l':
			if (!strcmp(optarg, "outside"))
				o->layout = OUTSIDE;
			else if (!strcmp(optarg, "inside"))
				o->layout = INSIDE;
			else
				goto bad;
			break;
		case 'r':
			if (opt_long(optarg, 1, 1000, &v))
				goto bad;
			o->reps = (int)v;
			break;
		case 'H': o->hot = true; break;
		case 'u':
			if (opt_long(optarg, 1, 1000000, &o->hot_us))
				goto bad;
			break;
		case 'i':
			if (opt_long(optarg, 0, 1000, &v))
				goto bad;
			o->inval_reps = (int)v;
			break;
		case 'w':
			if (opt_long(optarg, 0, 100, &v))
				goto bad;
			o->warmup = (int)v;
			break;
		case 'k': o->keep = true; break;
		case 'P': o->perf_ctl = optarg; break;
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
	if (optind != argc || !a->cgroup || o->mrs < 0) {
		fprintf(stderr, "young-scale: --cgroup and --mrs are required (see --help)\n");
		return -1;
	}
	/* the second repetition runs the modes in the other order */
	if (a->nmodes == 2 && a->modes[0] == a->modes[1]) {
		fprintf(stderr, "young-scale: --modes wants off,on, on,off, off or on\n");
		return -1;
	}
	if (!a->reclaim)
		a->reclaim = a->size / 2;
	if (o->layout == INSIDE && (size_t)o->mrs > a->size / PAGE) {
		fprintf(stderr, "young-scale: --layout inside needs at least one page per MR\n");
		return -1;
	}
	if (o->hot && !o->mrs) {
		fprintf(stderr, "young-scale: --hot needs at least one MR\n");
		return -1;
	}
	snprintf(o->tag, sizeof(o->tag), "%s%s", o->layout == INSIDE ? "inside" : "outside",
		 o->hot ? "+hot" : "");
	/* lru_gen names a cgroup by its path below the cgroup2 mount */
	if (!strncmp(a->cgroup, "/sys/fs/cgroup/", 15))
		snprintf(o->lru_gen_memcg, sizeof(o->lru_gen_memcg), "%s", a->cgroup + 14);
	return 0;
bad:
	fprintf(stderr, "young-scale: bad value '%s' for option -%c (see --help)\n", optarg, c);
	return -1;
}

/* ------------------------------------------------------------ the region */

static bool is_mr_page(const struct state *s, size_t p)
{
	return s->o->layout == OUTSIDE && s->o->mrs && p % s->stride == 0 &&
	       p / s->stride < (size_t)s->o->mrs;
}

static int region_map(struct state *s)
{
	const struct opts *o = s->o;
	size_t data_pages = o->a.size / PAGE, i;

	s->pages = data_pages + (o->layout == OUTSIDE ? (size_t)o->mrs : 0);
	s->base = mmap(NULL, s->pages * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (s->base == MAP_FAILED) {
		s->base = NULL;
		fprintf(stderr, "young-scale: mmap %zu pages: %s\n", s->pages, strerror(errno));
		return -1;
	}
	/* one page = one LRU entry and one PTE: reclaim walks the same tables at every N */
	if (madvise(s->base, s->pages * PAGE, MADV_NOHUGEPAGE))
		fprintf(stderr, "young-scale: madvise(NOHUGEPAGE): %s\n", strerror(errno));

	s->mr = calloc((size_t)o->mrs + 1, sizeof(*s->mr));
	s->mr_page = calloc((size_t)o->mrs + 1, sizeof(*s->mr_page));
	s->mr_npages = calloc((size_t)o->mrs + 1, sizeof(*s->mr_npages));
	if (!s->mr || !s->mr_page || !s->mr_npages) {
		fprintf(stderr, "young-scale: out of memory\n");
		return -1;
	}
	s->stride = o->mrs ? s->pages / (size_t)o->mrs : 0;
	for (i = 0; i < (size_t)o->mrs; i++) {
		if (o->layout == OUTSIDE) {
			s->mr_page[i] = i * s->stride;
			s->mr_npages[i] = 1;
		} else {
			s->mr_page[i] = i * data_pages / (size_t)o->mrs;
			s->mr_npages[i] = (i + 1) * data_pages / (size_t)o->mrs - s->mr_page[i];
		}
	}
	return 0;
}

/*
 * Write every data page before a reclaim. By default the data is dropped
 * first (MADV_DONTNEED, which also frees its swap), so every reclaim finds
 * the same state: all data freshly faulted, in the youngest generation.
 * With --keep what the last reclaim took is swapped back in instead, and
 * how much of it MGLRU must age first varies from one reclaim to the next.
 */
static void region_touch(struct state *s)
{
	size_t p;

	if (!s->o->keep && madvise(s->base, s->pages * PAGE, MADV_DONTNEED))
		fprintf(stderr, "young-scale: madvise(DONTNEED): %s\n", strerror(errno));
	for (p = 0; p < s->pages; p++)
		if (!is_mr_page(s, p))
			s->base[p * PAGE] = (char)p | 1;
}

static int mrs_register(struct state *s)
{
	int access = IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE |
		     IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	const struct opts *o = s->o;
	double t0 = tool_now_us();
	long i;

	for (i = 0; i < o->mrs; i++) {
		s->mr[i] = lb_reg_mr(&s->rd.dev, s->base + s->mr_page[i] * PAGE,
				     s->mr_npages[i] * PAGE, access);
		if (!s->mr[i]) {
			fprintf(stderr, "young-scale: MR %ld of %ld: %s\n", i, o->mrs, s->rd.dev.err);
			return -1;
		}
	}
	if (o->mrs)
		row(o, "reg", "odp", 0, tool_now_us() - t0, "us");
	return 0;
}

static void mrs_deregister(struct state *s)
{
	double t0 = tool_now_us();
	long i, n = 0;

	for (i = 0; i < s->o->mrs; i++)
		if (s->mr[i]) {
			if (ibv_dereg_mr(s->mr[i]))
				fprintf(stderr, "young-scale: ibv_dereg_mr: %s\n", strerror(errno));
			s->mr[i] = NULL;
			n++;
		}
	if (n == s->o->mrs && n)
		row(s->o, "dereg", "odp", 0, tool_now_us() - t0, "us");
}

/* ------------------------------------------------------------ RDMA */

static int rdma_setup(struct state *s)
{
	struct lb_pair_attr pa = {
		.cqe_a = 8,
		.cap = { .max_send_wr = 2, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.sq_sig_all = 1,
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_LOCAL_WRITE,
		.max_rd_atomic = 1,
		.hop_limit = 1,
		.timeout = 18,	/* ~1 s: a responder may stall in a swap-in */
	};

	/* with no MR there is nothing to send to: the device alone */
	return aging_rdma_open(&s->rd, &s->o->a, s->o->mrs ? &pa : NULL, PAGE);
}

/* One RDMA WRITE (from src) or READ (into src) of len bytes at addr of mr,
 * waited for. 0, or -1 with the reason printed. */
static int rdma_one(struct state *s, bool read, struct ibv_mr *mr, char *addr, uint32_t len,
		    long pause_us)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)s->rd.src.addr, .length = len, .lkey = s->rd.src.mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1,
		.opcode = read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)addr, .rkey = mr->rkey },
	};
	struct timespec ts = { .tv_sec = 0, .tv_nsec = pause_us * 1000 };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	double t0 = tool_now_us();
	int n, err;

	err = ibv_post_send(s->rd.qps.a.qp, &wr, &bad);
	if (err) {
		fprintf(stderr, "young-scale: ibv_post_send: %s\n", strerror(err));
		return -1;
	}
	while (!(n = ibv_poll_cq(s->rd.qps.a.cq, 1, &wc))) {
		if (tool_now_us() - t0 > 60e6) {
			fprintf(stderr, "young-scale: no completion after 60 s\n");
			return -1;
		}
		if (pause_us)
			nanosleep(&ts, NULL);
	}
	if (n < 0 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "young-scale: RDMA %s: %s\n", read ? "READ" : "WRITE",
			n < 0 ? "ibv_poll_cq failed" : ibv_wc_status_str(wc.status));
		return -1;
	}
	return 0;
}

/* Keeps one page of MR 0 in RDMA use, so rxe always has a page to report */
static void *hot_main(void *arg)
{
	struct state *s = arg;
	struct timespec ts = { .tv_sec = 0, .tv_nsec = s->o->hot_us * 1000 };

	while (!atomic_load(&s->hot_stop)) {
		if (rdma_one(s, false, s->mr[0], s->base + s->mr_page[0] * PAGE, 64, 100)) {
			atomic_store(&s->hot_error, 1);
			break;
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static int hot_start(struct state *s)
{
	int err;

	if (!s->o->hot)
		return 0;
	atomic_store(&s->hot_stop, false);
	err = pthread_create(&s->hot_thread, NULL, hot_main, s);
	if (err) {
		fprintf(stderr, "young-scale: pthread_create: %s\n", strerror(err));
		return -1;
	}
	s->hot_running = true;
	return 0;
}

static int hot_stop(struct state *s)
{
	if (!s->hot_running)
		return 0;
	atomic_store(&s->hot_stop, true);
	pthread_join(s->hot_thread, NULL);
	s->hot_running = false;
	return atomic_load(&s->hot_error) ? -1 : 0;
}

/* ------------------------------------------------------------ measurements */

static long long young_answers(const struct opts *o)
{
	/* fresh, not the RDMA core's cache (see counters.h) */
	return hw_counter_read(o->a.dev, 1, "odp_young_answers");
}

/* The cgroup's largest MGLRU generation number over the nodes, or -1 */
static long long lru_gen_max_seq(const struct opts *o)
{
	FILE *f = fopen("/sys/kernel/debug/lru_gen", "r");
	char line[512], path[256];
	long long seq, max = -1;
	bool ours = false;
	int id;

	if (!f || !o->lru_gen_memcg[0]) {
		if (f)
			fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "memcg %d %255s", &id, path) == 2)
			ours = !strcmp(path, o->lru_gen_memcg);
		else if (ours && sscanf(line, " %lld", &seq) == 1 && seq > max)
			max = seq;
	}
	fclose(f);
	return max;
}

static int reclaim_one(struct state *s, bool aging, int rep)
{
	const struct opts *o = s->o;
	const char *mode = aging ? "on" : "off";
	long long sw0, sw1, y0, y1, g0, g1;
	double t0, t1;
	int err;

	if (aging_switch(&o->a, aging))
		return -1;
	region_touch(s);
	y0 = young_answers(o);
	sw0 = vmstat("pswpout");
	g0 = lru_gen_max_seq(o);
	if (o->perf_ctl && rep)
		sysfile_write(o->perf_ctl, "enable\n");
	t0 = tool_now_us();
	err = aging_reclaim(&o->a, o->a.reclaim);
	t1 = tool_now_us();
	if (o->perf_ctl && rep)
		sysfile_write(o->perf_ctl, "disable\n");
	g1 = lru_gen_max_seq(o);
	sw1 = vmstat("pswpout");
	y1 = young_answers(o);
	if (err == -1)
		return -1;
	if (!rep)
		return 0;
	row(o, "reclaim", mode, rep, t1 - t0, "us");
	row(o, "short", mode, rep, err == -EAGAIN, "flag");
	if (sw0 >= 0 && sw1 >= 0)
		row(o, "pswpout", mode, rep, (double)(sw1 - sw0), "pages");
	if (y0 >= 0 && y1 >= 0)
		row(o, "young-answers", mode, rep, (double)(y1 - y0), "count");
	if (g0 >= 0 && g1 >= 0)
		row(o, "aging-passes", mode, rep, (double)(g1 - g0), "count");
	return 0;
}

/* Set by SIGTERM/SIGINT: a test that must bound how long this process keeps
 * its MRs (tests/guest/43: an `rdma link delete` waits for it, and a task
 * blocked for a minute is a hung-task report) asks it to stop. */
static volatile sig_atomic_t stop_reps;

static void on_stop(int sig)
{
	(void)sig;
	stop_reps = 1;
}

/* no SA_RESTART: a reclaim in progress is cut short, not finished first */
static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

static int reclaim_reps(struct state *s)
{
	const struct opts *o = s->o;
	int rep, k;

	for (rep = 0; rep < o->warmup && !stop_reps; rep++)
		if (reclaim_one(s, o->a.modes[0], 0))
			return stop_reps ? 0 : -1;
	for (rep = 1; rep <= o->reps && !stop_reps; rep++) {
		for (k = 0; k < o->a.nmodes && !stop_reps; k++) {
			/* the second repetition starts with the other mode */
			int m = (rep % 2 || o->a.nmodes == 1) ? k : o->a.nmodes - 1 - k;

			/* a signal may cut the memory.reclaim write short (EINTR) */
			if (reclaim_one(s, o->a.modes[m], rep))
				return stop_reps ? 0 : -1;
		}
		fprintf(stderr, "young-scale: N=%ld %s rep %d done\n", o->mrs, o->tag, rep);
	}
	return 0;
}

/* MADV_DONTNEED and munmap of INVAL_PAGES outside every MR, INVAL_LOOPS
 * times each; MADV_DONTNEED of one page of the middle MR, mapped into the
 * MR by an RDMA READ before each. Mean time per operation. */
static int inval_one(struct state *s, int rep)
{
	const struct opts *o = s->o;
	size_t len = INVAL_PAGES * PAGE, i;
	double dn = 0, um = 0, mr = 0, t0;
	char *p;
	int k;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	for (k = 0; k < INVAL_LOOPS; k++) {
		for (i = 0; i < len; i += PAGE)
			p[i] = 1;
		t0 = tool_now_us();
		if (madvise(p, len, MADV_DONTNEED))
			return -1;
		dn += tool_now_us() - t0;
	}
	munmap(p, len);
	for (k = 0; k < INVAL_LOOPS; k++) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		for (i = 0; i < len; i += PAGE)
			p[i] = 1;
		t0 = tool_now_us();
		if (munmap(p, len))
			return -1;
		um += tool_now_us() - t0;
	}
	row(o, "inval-dontneed-outside", "on", rep, dn / INVAL_LOOPS, "us");
	row(o, "inval-munmap-outside", "on", rep, um / INVAL_LOOPS, "us");
	if (!o->mrs)
		return 0;
	i = (size_t)o->mrs / 2;
	p = s->base + s->mr_page[i] * PAGE;
	for (k = 0; k < INVAL_LOOPS; k++) {
		if (rdma_one(s, true, s->mr[i], p, 64, 0))
			return -1;
		t0 = tool_now_us();
		if (madvise(p, PAGE, MADV_DONTNEED))
			return -1;
		mr += tool_now_us() - t0;
	}
	row(o, "inval-dontneed-mr", "on", rep, mr / INVAL_LOOPS, "us");
	return 0;
}

static long map_count(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	struct state s = { 0 };
	struct opts o;
	int ret = 1, rep;
	bool aging_known = false;
	char aging0[8] = "";
	FILE *f;

	if (parse_opts(argc, argv, &o))
		return 2;
	catch_stop_signals();
	s.o = &o;
	if (aging_join(&o.a))
		return 1;
	f = fopen(o.a.param, "r");
	if (f) {
		aging_known = fgets(aging0, sizeof(aging0), f) != NULL;
		fclose(f);
	}
	if (rdma_setup(&s) || region_map(&s) || mrs_register(&s))
		goto out;
	row(&o, "maps", "-", 0, (double)map_count(), "count");
	row(&o, "max_map_count", "-", 0, (double)file_number("/proc/sys/vm/max_map_count"),
	    "count");
	if (hot_start(&s))
		goto out;
	if (reclaim_reps(&s) || hot_stop(&s))
		goto out;
	for (rep = 1; rep <= o.inval_reps && !stop_reps; rep++)
		if (inval_one(&s, rep)) {
			fprintf(stderr, "young-scale: invalidation rep %d failed: %s\n", rep,
				strerror(errno));
			goto out;
		}
	ret = 0;
out:
	if (hot_stop(&s))
		ret = 1;
	mrs_deregister(&s);
	if (s.base)
		munmap(s.base, s.pages * PAGE);
	free(s.mr);
	free(s.mr_page);
	free(s.mr_npages);
	aging_rdma_close(&s.rd);
	if (aging_known)
		sysfile_write(o.a.param, aging0);
	return ret;
}
