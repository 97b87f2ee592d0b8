/*
 * fault-cost: what rxe's ODP fault service costs per page, against the
 * kernel's own fault-in of the same pages, in one process (issue 15,
 * deliver 3; bench/'s faultcost step).
 *
 * One region (THP off) registered as an ODP MR, the remote end of a
 * loopback RC pair.  Each pair of trials brings the region to the same
 * state twice and faults it in once each way:
 *   kernel  MADV_POPULATE_WRITE of the whole region, timed around the call:
 *           its time / pages is the kernel's populate per page;
 *   driver  RDMA WRITEs over the whole region (the responder faults it in
 *           through hmm_range_fault()): the device counters
 *           odp_fault_ns_total / odp_pages_faulted moved by the pass give
 *           the driver's fault service per page (rxe times each fault).
 * States (--kinds): zero = MADV_DONTNEED first (every page a zero-fill
 * fault); swap = the region filled and pushed to swap with MADV_PAGEOUT
 * (zram in the guest: every page a swap-in).  The pairs alternate which
 * trial goes first, and every odp_fault_ahead value (--ahead, written to
 * the module parameter at run time) gets its pair in each round, so host
 * drift hits all of them alike.
 *
 * Rows on stdout (section,case,mode,size,tag,run,value,unit), case = kind,
 * tag = ahead=N, run = pair:
 *   faultcost,KIND,kernel,SIZE,ahead=N,I,us,us/page      populate per page
 *   faultcost,KIND,driver,SIZE,ahead=N,I,us,us/page      fault service per page
 *   faultcost,KIND,driver-pass,...,us,us/page             the WRITE pass, wall
 *   faultcost,KIND,order,...,1|2,index                     the kernel trial's slot
 *   faultcost,KIND,ctr:NAME,...,delta,count               counters of the pass
 *   faultcost,KIND,absent-kernel|absent-driver,...,pages,count
 *                                      pages not resident before the trial
 * Diagnostics on stderr.  Needs root (the module parameter) and our
 * rdma_rxe's odp_fault_ns_total; exit 1 when a trial fails.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "counters.h"
#include "loopback.h"
#include "opts.h"
#include "sysfile.h"
#include "tool.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

#define PAGE 4096UL
#define HUGE_ALIGN (2UL << 20)
#define MAX_AHEAD 16
#define DEPTH 8
#define WAIT_MS 60000	/* a completion later than this is a hang */
#define AHEAD_PARAM "/sys/module/rdma_rxe/parameters/odp_fault_ahead"

enum kind { K_ZERO, K_SWAP, NKINDS };
static const char *const kind_names[NKINDS] = { "zero", "swap" };

/* The device counters a driver trial reads before and after its pass. */
static const char *const ctr_names[] = {
	"odp_faults", "odp_pages_faulted", "odp_fault_ns_total",
	"odp_fault_lat_lt10us", "odp_fault_lat_lt100us", "odp_fault_lat_lt1ms",
	"odp_fault_lat_lt10ms", "odp_fault_lat_ge10ms", "odp_invalidations",
	"odp_fault_errors",
};
#define NCTR (sizeof(ctr_names) / sizeof(ctr_names[0]))
enum { C_FAULTS, C_PAGES, C_NS };

struct opts {
	const char *dev;
	int gid;
	uint64_t size;
	uint64_t chunk;
	unsigned pairs;
	unsigned nahead;
	unsigned ahead[MAX_AHEAD];	/* none: leave the parameter alone */
	bool kinds[NKINDS];
};

struct ctx {
	struct opts o;
	struct lb_dev dev;
	struct lb_pair qp;
	struct ibv_comp_channel *chan;	/* QP a's CQ's events */
	struct lb_buf stage;		/* pinned source of the WRITEs */
	void *map;
	size_t map_len;
	char *addr;			/* the region, 2 MiB aligned */
	size_t pages;
	struct ibv_mr *mr;		/* ODP */
	unsigned char *vec;		/* mincore */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: fault-cost [options]\n"
"  rxe's ODP fault service per page (device counters odp_fault_ns_total /\n"
"  odp_pages_faulted over an RDMA WRITE pass) against MADV_POPULATE_WRITE of\n"
"  the same region, in interleaved pairs; CSV rows on stdout.  The pass waits\n"
"  for its completions asleep (a completion channel), so that nothing of\n"
"  this process runs inside the fault service it times.\n"
"  -d, --dev NAME      RDMA device (default rxe0)\n"
"  -g, --gid N         GID index (default $RXE_GID, else the IPv4-mapped one)\n"
"  -s, --size SIZE     region (default 64M; THP off)\n"
"  -c, --chunk SIZE    bytes per RDMA WRITE (default 1M; %d in flight)\n"
"  -n, --pairs N       pairs per kind and fault-ahead value (default 20)\n"
"  -a, --ahead LIST    odp_fault_ahead values, comma list (default: leave it)\n"
"  -k, --kinds LIST    zero,swap (default both; swap needs swap space)\n"
"  -h, --help\n", DEPTH);
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dev", 1, NULL, 'd' }, { "gid", 1, NULL, 'g' }, { "size", 1, NULL, 's' },
		{ "chunk", 1, NULL, 'c' }, { "pairs", 1, NULL, 'n' }, { "ahead", 1, NULL, 'a' },
		{ "kinds", 1, NULL, 'k' }, { "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	char *list, *tok, *save;
	long l;
	int c;

	memset(o, 0, sizeof(*o));
	o->dev = "rxe0";
	o->gid = opt_gid_default(-1);
	o->size = 64UL << 20;
	o->chunk = 1UL << 20;
	o->pairs = 20;
	o->kinds[K_ZERO] = o->kinds[K_SWAP] = true;
	while ((c = getopt_long(argc, argv, "d:g:s:c:n:a:k:h", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dev = optarg;
			break;
		case 'g':
			if (opt_long(optarg, 0, 255, &l))
				goto bad;
			o->gid = (int)l;
			break;
		case 's':
			if (opt_size(optarg, &o->size) || o->size % PAGE)
				goto bad;
			break;
		case 'c':
			if (opt_size(optarg, &o->chunk) || o->chunk > (1UL << 30))
				goto bad;
			break;
		case 'n':
			if (opt_uint(optarg, 1, 10000, &o->pairs))
				goto bad;
			break;
		case 'a':
			list = strdup(optarg);
			o->nahead = 0;
			for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				if (o->nahead == MAX_AHEAD ||
				    opt_uint(tok, 0, 1024, &o->ahead[o->nahead++])) {
					free(list);
					goto bad;
				}
			free(list);
			break;
		case 'k':
			if (opt_names(optarg, kind_names, NKINDS, o->kinds))
				goto bad;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "fault-cost: unexpected argument %s\n", argv[optind]);
		exit(2);
	}
	return 0;
bad:
	fprintf(stderr, "fault-cost: bad value for -%c: %s\n", c, optarg);
	exit(2);
}

static void row(const struct ctx *x, enum kind k, const char *mode, unsigned ahead,
		unsigned run, double value, const char *unit)
{
	char tag[32] = "-";

	if (x->o.nahead)
		snprintf(tag, sizeof(tag), "ahead=%u", ahead);
	printf("faultcost,%s,%s,%" PRIu64 ",%s,%u,%.6g,%s\n", kind_names[k], mode,
	       x->o.size, tag, run, value, unit);
	fflush(stdout);
}

/* The device counters now, in one reading (fresh, see counters.h). */
static int ctr_read(const struct ctx *x, long long *v)
{
	size_t i;

	hw_counters_read(x->o.dev, 1, ctr_names, v, NCTR);
	for (i = 0; i < NCTR; i++)
		if (v[i] < 0) {
			fprintf(stderr, "fault-cost: no hw counter %s on %s (not our rdma_rxe?)\n",
				ctr_names[i], x->o.dev);
			return -1;
		}
	return 0;
}

/* Pages of the region not resident now (-1: mincore failed). */
static long absent(const struct ctx *x)
{
	long n = 0;
	size_t i;

	if (mincore(x->addr, x->pages * PAGE, x->vec))
		return -1;
	for (i = 0; i < x->pages; i++)
		n += !(x->vec[i] & 1);
	return n;
}

/* Bring the region to the state of kind k before a trial. */
static int prepare(struct ctx *x, enum kind k)
{
	size_t i;

	if (madvise(x->addr, x->pages * PAGE, MADV_DONTNEED)) {
		perror("MADV_DONTNEED");
		return -1;
	}
	if (k == K_ZERO)
		return 0;
	/* data zram must compress (a zero page it stores as a flag) */
	for (i = 0; i < x->pages; i++) {
		uint64_t *p = (uint64_t *)(x->addr + i * PAGE);
		size_t j;

		for (j = 0; j < PAGE / sizeof(*p); j += 8)
			p[j] = i * 0x9e3779b97f4a7c15ULL + j;
	}
	if (madvise(x->addr, x->pages * PAGE, MADV_PAGEOUT)) {
		perror("MADV_PAGEOUT");
		return -1;
	}
	return 0;
}

static int trial_kernel(struct ctx *x, enum kind k, unsigned ahead, unsigned run)
{
	double t0, t1;
	long gone;

	if (prepare(x, k))
		return -1;
	gone = absent(x);
	t0 = tool_now_us();
	if (madvise(x->addr, x->pages * PAGE, MADV_POPULATE_WRITE)) {
		perror("MADV_POPULATE_WRITE");
		return -1;
	}
	t1 = tool_now_us();
	row(x, k, "absent-kernel", ahead, run, (double)gone, "count");
	row(x, k, "kernel", ahead, run, (t1 - t0) / (double)x->pages, "us/page");
	return 0;
}

/* RDMA WRITEs of the staging buffer over the whole region, DEPTH in flight;
 * waits for completions asleep on a completion channel. */
static int write_pass(struct ctx *x)
{
	size_t len = x->pages * PAGE, next = 0, done = 0;
	struct ibv_wc wc[DEPTH];
	int inflight = 0, n, i;

	while (done < len) {
		while (next < len && inflight < DEPTH) {
			size_t c = len - next < x->o.chunk ? len - next : x->o.chunk;
			struct ibv_sge sge = {
				.addr = (uintptr_t)x->stage.addr, .length = (uint32_t)c,
				.lkey = x->stage.mr->lkey,
			};
			struct ibv_send_wr wr = {
				.wr_id = c, .sg_list = &sge, .num_sge = 1,
				.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
			}, *bad;

			wr.wr.rdma.remote_addr = (uintptr_t)(x->addr + next);
			wr.wr.rdma.rkey = x->mr->rkey;
			if (ibv_post_send(x->qp.a.qp, &wr, &bad)) {
				perror("ibv_post_send");
				return -1;
			}
			next += c;
			inflight++;
		}
		/*
		 * Sleep on the completion channel, never poll: the worker
		 * that faults shares the vCPUs with this loop, and a poller
		 * waking every 100 us ran inside the timed fault service
		 * (at the fault path's preemption points) and made it look
		 * 1.7-2.3x the kernel's populate on a loaded host, 1.1-1.2x
		 * on an idle one.
		 */
		n = lb_cq_poll_wait(x->chan, x->qp.a.cq, DEPTH, wc, WAIT_MS);
		if (n < 0) {
			perror("fault-cost: waiting for completions");
			return -1;
		}
		if (!n) {
			fprintf(stderr, "fault-cost: no completion in %d s\n", WAIT_MS / 1000);
			return -1;
		}
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "fault-cost: RDMA WRITE: %s\n",
					ibv_wc_status_str(wc[i].status));
				return -1;
			}
			done += wc[i].wr_id;
			inflight--;
		}
	}
	return 0;
}

static int trial_driver(struct ctx *x, enum kind k, unsigned ahead, unsigned run)
{
	long long a[NCTR], b[NCTR];
	double t0, t1, pages;
	long gone;
	size_t i;

	if (prepare(x, k))
		return -1;
	gone = absent(x);
	if (ctr_read(x, a))
		return -1;
	t0 = tool_now_us();
	if (write_pass(x))
		return -1;
	t1 = tool_now_us();
	if (ctr_read(x, b))
		return -1;
	pages = (double)(b[C_PAGES] - a[C_PAGES]);
	row(x, k, "absent-driver", ahead, run, (double)gone, "count");
	for (i = 0; i < NCTR; i++) {
		char name[64];

		snprintf(name, sizeof(name), "ctr:%s", ctr_names[i]);
		row(x, k, name, ahead, run, (double)(b[i] - a[i]), "count");
	}
	if (pages <= 0) {
		fprintf(stderr, "fault-cost: the %s pass faulted no page\n", kind_names[k]);
		return -1;
	}
	row(x, k, "driver", ahead, run, (double)(b[C_NS] - a[C_NS]) / 1e3 / pages, "us/page");
	row(x, k, "driver-pass", ahead, run, (t1 - t0) / (double)x->pages, "us/page");
	return 0;
}

static int setup(struct ctx *x)
{
	struct lb_pair_attr pa = {
		.cqe_a = DEPTH + 2, .cqe_b = 4,
		.cap = { .max_send_wr = DEPTH, .max_recv_wr = 1, .max_send_sge = 1,
			 .max_recv_sge = 1 },
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		.hop_limit = 64,
		.timeout = 18,	/* ~1 s: a swap-in must not exhaust the retries */
	};

	x->pages = x->o.size / PAGE;
	x->map_len = x->o.size + HUGE_ALIGN;
	x->map = mmap(NULL, x->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (x->map == MAP_FAILED) {
		perror("mmap");
		x->map = NULL;
		return -1;
	}
	x->addr = (char *)(((uintptr_t)x->map + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1));
	if (madvise(x->addr, x->o.size, MADV_NOHUGEPAGE)) {
		perror("MADV_NOHUGEPAGE");
		return -1;
	}
	x->vec = malloc(x->pages);
	if (!x->vec)
		return -1;
	if (lb_dev_open(&x->dev, x->o.dev, 1) || lb_dev_gid(&x->dev, x->o.gid)) {
		fprintf(stderr, "fault-cost: %s\n", x->dev.err);
		return -1;
	}
	x->chan = ibv_create_comp_channel(x->dev.ctx);
	if (!x->chan) {
		perror("fault-cost: ibv_create_comp_channel");
		return -1;
	}
	pa.channel_a = x->chan;
	if (lb_pair_create(&x->dev, &x->qp, &pa) ||
	    lb_buf_new(&x->dev, &x->stage, x->o.chunk, 0x5a, IBV_ACCESS_LOCAL_WRITE)) {
		fprintf(stderr, "fault-cost: %s\n", x->dev.err);
		return -1;
	}
	x->mr = lb_reg_mr(&x->dev, x->addr, x->o.size, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_ON_DEMAND);
	if (!x->mr) {
		fprintf(stderr, "fault-cost: %s\n", x->dev.err);
		return -1;
	}
	return 0;
}

static int set_ahead(unsigned v)
{
	char s[16];
	int err;

	snprintf(s, sizeof(s), "%u", v);
	err = sysfile_write(AHEAD_PARAM, s);
	if (err)
		fprintf(stderr, "fault-cost: %s = %s: %s\n", AHEAD_PARAM, s, strerror(-err));
	return err;
}

int main(int argc, char **argv)
{
	struct ctx x;
	long long orig = -1, v[NCTR];
	unsigned run, a, nahead;
	int rc = 0;
	enum kind k;

	memset(&x, 0, sizeof(x));
	parse(argc, argv, &x.o);
	if (setup(&x) || ctr_read(&x, v)) {
		rc = 2;
		goto out;
	}
	if (x.o.nahead) {
		orig = file_number(AHEAD_PARAM);
		if (orig < 0) {
			fprintf(stderr, "fault-cost: cannot read %s\n", AHEAD_PARAM);
			rc = 2;
			goto out;
		}
	}
	nahead = x.o.nahead ? x.o.nahead : 1;
	for (run = 1; run <= x.o.pairs && !rc; run++) {
		for (k = 0; k < NKINDS && !rc; k++) {
			if (!x.o.kinds[k])
				continue;
			for (a = 0; a < nahead && !rc; a++) {
				unsigned ah = x.o.ahead[a];
				bool kernel_first = (run + a) % 2;

				if (x.o.nahead && set_ahead(ah)) {
					rc = 2;
					break;
				}
				row(&x, k, "order", ah, run, kernel_first ? 1 : 2, "index");
				if (kernel_first)
					rc = trial_kernel(&x, k, ah, run) || trial_driver(&x, k, ah, run);
				else
					rc = trial_driver(&x, k, ah, run) || trial_kernel(&x, k, ah, run);
			}
		}
		fprintf(stderr, "fault-cost: pair %u of %u done\n", run, x.o.pairs);
	}
	if (orig >= 0)
		set_ahead((unsigned)orig);
out:
	if (x.mr)
		ibv_dereg_mr(x.mr);
	lb_buf_free(&x.stage);
	lb_pair_destroy(&x.qp);
	if (x.chan)
		ibv_destroy_comp_channel(x.chan);
	lb_dev_close(&x.dev);
	if (x.map)
		munmap(x.map, x.map_len);
	free(x.vec);
	return rc;
}
