/*
 * odp-bench: measurements of pinned vs On-Demand-Paging (ODP) memory regions
 * on one RDMA device, in one process (loopback RC QP pair), for bench/.
 *
 * Every measurement is printed as a CSV row on stdout:
 *   section,case,mode,size,tag,run,value,unit
 * Diagnostics go to stderr.  See usage() for the subcommands.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "counters.h"
#include "sysfile.h"
#include "loopback.h"
#include "opts.h"
#include "tool.h"
#include "util.h"
#include "uverbs.h"

#define MAX_SIZES 32
#define MAX_SHIFTS 8
#define PARAMS "/sys/module/rdma_rxe/parameters/"
#define MAX_DEPTH 64
#define HUGE_ALIGN (2UL << 20)

enum mode { MODE_PINNED = 1, MODE_ODP = 2, MODE_NOMR = 4, MODE_IMPLICIT = 8 };
enum thp { THP_DEFAULT, THP_ON, THP_OFF };

struct opts {
	const char *dev;
	int gid;
	int reps;
	int big_reps;		/* reps for sizes >= 256 MiB (reg) */
	int nsizes;
	uint64_t sizes[MAX_SIZES];
	uint64_t chunk;
	int depth;
	bool pinned, odp;	/* --mode: which kinds of MR to measure */
	bool implicit;		/* --mode implicit: an implicit ODP MR (NULL, SIZE_MAX) */
	bool vs_implicit;	/* pass/steady --implicit: explicit vs implicit ODP */
	uint64_t pinned_max;	/* reg: no pinned registration above this size (0: none) */
	int touch;		/* reg: also dereg an MR that faulted this many pages */
	int nshifts;		/* chunk: odp_child_shift values to compare */
	unsigned int shifts[MAX_SHIFTS];
	int nchunks;		/* chunk: chunks touched by the sparse pass */
	bool op_read;		/* pass: RDMA READ instead of WRITE */
	bool op_atomic;		/* steady: 8-byte ATOMIC FETCH_AND_ADDs instead of WRITE */
	bool side_local;	/* pass: the measured MR is the local SGE, not the remote one */
	bool fresh;		/* pass: do not touch the region before the cold pass */
	bool munmap;		/* inval: munmap instead of MADV_DONTNEED */
	enum thp thp;
	int passes;
	int npf;		/* pass: prefetch kinds to compare (0: no prefetch run) */
	int pf[PF_KINDS];
	const char *tag;
};

/* A buffer of len bytes, optionally registered. */
struct region {
	void *map;		/* what mmap returned (for munmap) */
	size_t map_len;
	char *addr;		/* 2 MiB aligned start */
	size_t len;
	struct ibv_mr *mr;
};

/* One device and PD, and for the transfers a connected pair of RC QPs
 * (qps.a posts, qps.b answers) and the staging buffer they copy through. */
struct rdma {
	struct lb_dev dev;
	struct lb_pair qps;
	struct region stage;
	int depth;
	int mr_access;		/* added to the access of every MR (--atomic: REMOTE_ATOMIC) */
};

static const char *mode_name(int m)
{
	switch (m) {
	case MODE_PINNED: return "pinned";
	case MODE_ODP: return "odp";
	case MODE_NOMR: return "nomr";
	case MODE_IMPLICIT: return "implicit";
	default: return "?";
	}
}

/* Set while a warm-up runs: its rows are not printed. */
static bool rows_off;

static void row(const char *section, const char *kase, const char *mode, uint64_t size,
		const struct opts *o, int run, double value, const char *unit)
{
	if (rows_off)
		return;
	printf("%s,%s,%s,%" PRIu64 ",%s,%d,%.6g,%s\n", section, kase, mode, size,
	       o->tag ? o->tag : "-", run, value, unit);
	fflush(stdout);
}

/* ------------------------------------------------------------------ memory */

static int region_map(struct region *r, size_t len, enum thp thp)
{
	char *p;
	size_t head;

	memset(r, 0, sizeof(*r));
	r->map_len = len + HUGE_ALIGN;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r->map == MAP_FAILED) {
		fprintf(stderr, "mmap %zu bytes: %s\n", r->map_len, strerror(errno));
		r->map = NULL;
		return -errno;
	}
	/* 2 MiB alignment so THP on/off means the same at every size. */
	p = (char *)(((uintptr_t)r->map + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1));
	head = p - (char *)r->map;
	r->addr = p;
	r->len = len;
	if (thp != THP_DEFAULT &&
	    madvise(p, len, thp == THP_ON ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		fprintf(stderr, "madvise(THP %s): %s\n", thp == THP_ON ? "on" : "off",
			strerror(errno));
	(void)head;
	return 0;
}

static void region_touch(struct region *r)
{
	size_t i;

	for (i = 0; i < r->len; i += 4096)
		r->addr[i] = 1;
}

static void region_unmap(struct region *r)
{
	if (r->map)
		munmap(r->map, r->map_len);
	r->map = NULL;
}

static int access_flags(int mode)
{
	int a = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

	return mode & (MODE_ODP | MODE_IMPLICIT) ? a | IBV_ACCESS_ON_DEMAND : a;
}

/* Register r pinned or ODP, or (MODE_IMPLICIT) give it an implicit ODP MR:
 * one MR for the whole address space, used at r's addresses. */
static int region_reg(struct rdma *d, struct region *r, int mode)
{
	int access = access_flags(mode) | d->mr_access;

	if (mode == MODE_IMPLICIT)
		r->mr = lb_reg_mr(&d->dev, NULL, SIZE_MAX, access);
	else
		r->mr = lb_reg_mr(&d->dev, r->addr, r->len, access);
	if (!r->mr)
		return errno ? -errno : -EIO;
	return 0;
}

static int region_dereg(struct region *r)
{
	int rc = 0;

	if (r->mr)
		rc = ibv_dereg_mr(r->mr);
	r->mr = NULL;
	return rc;
}

static void region_free(struct region *r)
{
	region_dereg(r);
	region_unmap(r);
}

/* ------------------------------------------------------------------ device */

/* The pinned staging buffer of the transfers: depth slots of chunk bytes. */
static int stage_new(struct rdma *d, struct region *st, const struct opts *o)
{
	if (region_map(st, o->chunk * o->depth, THP_DEFAULT))
		return -1;
	region_touch(st);
	if (region_reg(d, st, MODE_PINNED)) {
		fprintf(stderr, "register staging buffer: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static int rdma_open(struct rdma *d, const struct opts *o, bool with_qps)
{
	struct lb_pair_attr pa = {
		.cqe_a = 2 * o->depth + 2,
		.cqe_b = 4,
		.cap = { .max_send_wr = o->depth, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC,
		/* READs and atomics in flight, both ways (max_dest_rd_atomic too) */
		.max_rd_atomic = 16,
		.hop_limit = 64,
		/* ~1 s ack timeout: a responder stalled in a swap-in must not exhaust retries. */
		.timeout = 18,
	};

	memset(&d->qps, 0, sizeof(d->qps));
	memset(&d->stage, 0, sizeof(d->stage));
	d->depth = o->depth;
	d->mr_access = o->op_atomic ? IBV_ACCESS_REMOTE_ATOMIC : 0;
	if (lb_dev_open(&d->dev, o->dev, 1) ||
	    (with_qps && (lb_dev_gid(&d->dev, o->gid) || lb_pair_create(&d->dev, &d->qps, &pa)))) {
		fprintf(stderr, "%s\n", d->dev.err);
		return -1;
	}
	return with_qps ? stage_new(d, &d->stage, o) : 0;
}

static void rdma_close(struct rdma *d)
{
	region_free(&d->stage);
	lb_pair_destroy(&d->qps);
	lb_dev_close(&d->dev);
}

/* ------------------------------------------------------------------ traffic */

/*
 * One pass of RDMA WRITEs or READs over a whole region, chunk by chunk, up to
 * depth in flight, against a pinned staging buffer of depth chunk-sized slots.
 * side_local: the region is the local SGE and staging the remote buffer.
 * fill_gen >= 0: before a WRITE, the slot gets the pattern of its region
 * offset; check_gen >= 0: after a READ, the slot is compared with it.
 * atomic: instead, an 8-byte ATOMIC FETCH_AND_ADD of 1 at every chunk of the
 * region (the remote MR), sweeps times over; the word at offset off must
 * fetch off + base + the sweep's index (atomic_words_init() gave it off,
 * base is the visits it had before): a wrong one is counted in corrupt.
 */
struct xfer {
	struct region *reg;
	struct region *stage;
	uint64_t chunk;
	uint64_t stride;	/* a message every stride bytes (0: chunk, back to back) */
	bool read;
	bool side_local;
	bool atomic;
	uint64_t sweeps;	/* atomic: passes over the words */
	uint64_t base;		/* atomic: visits of every word before this call */
	int64_t fill_gen;
	int64_t check_gen;
	uint64_t corrupt;	/* out: bytes (READ) or words (atomic) wrong */
};

static int xfer_pass(struct rdma *d, struct xfer *x)
{
	uint64_t slot_off[MAX_DEPTH], slot_sweep[MAX_DEPTH];
	bool busy[MAX_DEPTH] = { false };
	struct ibv_wc wc[16];
	uint64_t next = 0, len = x->reg->len;
	/* atomic: next runs sweeps times over the chunks (span bytes) */
	uint64_t span = x->atomic ? atomic_words(len, x->chunk) * x->chunk : len;
	uint64_t end = x->atomic ? span * x->sweeps : len;
	int inflight = 0, n, i, s;

	while (next < end || inflight) {
		while (next < end && inflight < d->depth) {
			struct ibv_send_wr wr, *bad;
			struct ibv_sge sge;
			uint64_t off = next % span;
			uint64_t c = x->atomic ? 8 : len - off < x->chunk ? len - off : x->chunk;

			for (s = 0; busy[s]; s++)
				;
			char *slot = x->stage->addr + (uint64_t)s * x->chunk;

			if (!x->read && x->fill_gen >= 0 && !x->side_local)
				pattern_fill(slot, off, c, (uint64_t)x->fill_gen);
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = s;
			wr.opcode = x->atomic ? IBV_WR_ATOMIC_FETCH_AND_ADD :
				    x->read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			if (x->side_local) {
				sge.addr = (uintptr_t)(x->reg->addr + off);
				sge.lkey = x->reg->mr->lkey;
				wr.wr.rdma.remote_addr = (uintptr_t)slot;
				wr.wr.rdma.rkey = x->stage->mr->rkey;
			} else if (x->atomic) {
				sge.addr = (uintptr_t)slot;
				sge.lkey = x->stage->mr->lkey;
				wr.wr.atomic.remote_addr = (uintptr_t)(x->reg->addr + off);
				wr.wr.atomic.rkey = x->reg->mr->rkey;
				wr.wr.atomic.compare_add = 1;
			} else {
				sge.addr = (uintptr_t)slot;
				sge.lkey = x->stage->mr->lkey;
				wr.wr.rdma.remote_addr = (uintptr_t)(x->reg->addr + off);
				wr.wr.rdma.rkey = x->reg->mr->rkey;
			}
			sge.length = c;
			if (ibv_post_send(d->qps.a.qp, &wr, &bad)) {
				fprintf(stderr, "ibv_post_send: %s\n", strerror(errno));
				return -1;
			}
			busy[s] = true;
			slot_off[s] = off;
			slot_sweep[s] = next / span;
			next += x->atomic ? x->chunk : x->stride ? x->stride : c;
			inflight++;
		}
		n = ibv_poll_cq(d->qps.a.cq, 16, wc);
		if (n < 0) {
			fprintf(stderr, "ibv_poll_cq failed\n");
			return -1;
		}
		if (n == 0) {
			sched_yield();
			continue;
		}
		for (i = 0; i < n; i++) {
			s = (int)wc[i].wr_id;
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "completion error at region offset %" PRIu64 ": %s\n",
					slot_off[s], ibv_wc_status_str(wc[i].status));
				return -1;
			}
			uint64_t c = len - slot_off[s] < x->chunk ? len - slot_off[s] : x->chunk;

			if (x->atomic) {
				uint64_t got, want = slot_off[s] + x->base + slot_sweep[s];

				memcpy(&got, x->stage->addr + (uint64_t)s * x->chunk, 8);
				if (got != want && !x->corrupt++)
					fprintf(stderr, "atomic at region offset %" PRIu64 " fetched %"
						PRIu64 ", not %" PRIu64 "\n", slot_off[s], got, want);
			}
			if (x->read && x->check_gen >= 0 && !x->side_local)
				x->corrupt += pattern_corrupt_bytes(x->stage->addr +
								    (uint64_t)s * x->chunk,
								    slot_off[s], c,
								    (uint64_t)x->check_gen);
			busy[s] = false;
			inflight--;
		}
	}
	return 0;
}

/* One pass of o's kind (WRITE or --read, the region remote or --local)
 * over all of r: its time in µs, or -1 if a transfer failed. */
static double timed_pass(struct rdma *d, const struct opts *o, struct region *r)
{
	struct xfer x = {
		.reg = r, .stage = &d->stage, .chunk = o->chunk,
		.read = o->op_read, .side_local = o->side_local,
		.fill_gen = -1, .check_gen = -1,
	};
	double t0 = tool_now_us();

	if (xfer_pass(d, &x))
		return -1;
	return tool_now_us() - t0;
}

static const char *pass_name(int p)
{
	return p == 0 ? "cold" : p == 1 ? "warm" : "warm2";
}

/* ------------------------------------------------------------------ commands */

static int cmd_caps(const struct opts *o)
{
	struct ibv_device_attr_ex attr;
	struct rdma d;
	struct region r;
	uint32_t need = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE |
			IBV_ODP_SUPPORT_READ;
	int rc = 0;

	if (rdma_open(&d, o, false))
		return 2;
	memset(&attr, 0, sizeof(attr));
	if (ibv_query_device_ex(d.dev.ctx, NULL, &attr)) {
		fprintf(stderr, "ibv_query_device_ex: %s\n", strerror(errno));
		rdma_close(&d);
		return 2;
	}
	printf("odp_general_caps=0x%" PRIx64 " rc_odp_caps=0x%x ud_odp_caps=0x%x\n",
	       attr.odp_caps.general_caps, attr.odp_caps.per_transport_caps.rc_odp_caps,
	       attr.odp_caps.per_transport_caps.ud_odp_caps);
	if (!(attr.odp_caps.general_caps & IBV_ODP_SUPPORT) ||
	    (attr.odp_caps.per_transport_caps.rc_odp_caps & need) != need)
		rc = 3;
	if (region_map(&r, 4096, THP_DEFAULT) == 0) {
		int e = region_reg(&d, &r, MODE_ODP);

		printf("odp_reg_4k=%s\n", e ? strerror(-e) : "ok");
		if (e)
			rc = 3;
		region_free(&r);
	}
	rdma_close(&d);
	printf("odp=%s\n", rc ? "no" : "yes");
	return rc;
}

/* An ODP MR's per-MR driver counter (rdma resource show mr -dd), or -1. */
static long long mr_counter(const struct opts *o, const struct region *r, const char *name)
{
	return mr_driver_attr(o->dev, r->mr->lkey, name);
}

/*
 * advise_mr over the whole region: sync (IB_UVERBS_ADVISE_MR_FLAG_FLUSH,
 * returns once every page is mapped) or async (queued).  An SGE covers at
 * most 1 GiB (its length is 32 bits).  0 or an errno value.
 */
#define PF_SGE_MAX (1ULL << 30)
#define PF_MAX_SGES 64
static int region_prefetch(struct rdma *d, struct region *r, bool write, bool sync)
{
	struct ibv_sge sg[PF_MAX_SGES];
	uint64_t off = 0;
	uint32_t n = 0;

	while (off < r->len) {
		uint64_t c = r->len - off < PF_SGE_MAX ? r->len - off : PF_SGE_MAX;

		if (n == PF_MAX_SGES)
			return EOVERFLOW;
		sg[n].addr = (uintptr_t)(r->addr + off);
		sg[n].length = (uint32_t)c;
		sg[n].lkey = r->mr->lkey;
		n++;
		off += c;
	}
	return uv_advise_mr(d->dev.pd, write ? IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE :
				  IBV_ADVISE_MR_ADVICE_PREFETCH,
			    sync ? IBV_ADVISE_MR_FLAG_FLUSH : 0, sg, n);
}

/* Is mode m one of the kinds o measures? */
static bool mode_on(const struct opts *o, int m)
{
	return m == MODE_PINNED ? o->pinned : m == MODE_ODP ? o->odp :
	       m == MODE_IMPLICIT ? o->implicit : false;
}

/* The two modes a pass/steady pair compares: pinned vs ODP, or with
 * --implicit explicit vs implicit ODP. */
static int pair_mode(const struct opts *o, bool first)
{
	if (o->vs_implicit)
		return first ? MODE_ODP : MODE_IMPLICIT;
	return first ? MODE_PINNED : MODE_ODP;
}

/*
 * Fault n pages of r's ODP MR in, spread evenly over the region (so a large
 * region gets them in n different children), with a sync prefetch of
 * PREFETCH_WRITE: what an MR that saw a few accesses has.  0 or an errno.
 */
#define TOUCH_MAX 64
static int region_fault_pages(struct rdma *d, struct region *r, int n)
{
	struct ibv_sge sg[TOUCH_MAX];
	uint64_t pages = r->len / 4096, k;

	if ((uint64_t)n > pages)
		n = (int)pages;
	for (k = 0; k < (uint64_t)n; k++) {
		sg[k].addr = (uintptr_t)(r->addr + (pages * k / n) * 4096);
		sg[k].length = 4096;
		sg[k].lkey = r->mr->lkey;
	}
	return uv_advise_mr(d->dev.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
			    IBV_ADVISE_MR_FLAG_FLUSH, sg, (uint32_t)n);
}

/*
 * One registration and deregistration of size bytes in mode m, timed: of
 * res (resident, kept mapped by the caller) or, res NULL, of a fresh
 * never-touched MAP_NORESERVE mapping made and unmapped around it (a pinned
 * registration of it faults every page in: allocation and zeroing are part
 * of what it measures).  Then, with --touch for ODP modes, a second MR
 * whose --touch pages were faulted in, and the time of its deregistration.
 */
static int reg_one(struct rdma *d, const struct opts *o, struct region *res, uint64_t size,
		   int m, int rep)
{
	struct region fresh, *r = res ? res : &fresh;
	long long pin0, pin1, ch;
	double t0, t1, t2;
	int e;

	if (!res && region_map(&fresh, size, o->thp)) {
		row("reg", "map-error", mode_name(m), size, o, rep, ENOMEM, "errno");
		return -1;
	}
	pin0 = vmstat("nr_foll_pin_acquired");
	t0 = tool_now_us();
	e = region_reg(d, r, m);
	t1 = tool_now_us();
	pin1 = vmstat("nr_foll_pin_acquired");
	if (e) {
		fprintf(stderr, "reg %s %" PRIu64 ": %s\n", mode_name(m), size, strerror(-e));
		row("reg", "reg-error", mode_name(m), size, o, rep, -e, "errno");
		goto out;
	}
	e = region_dereg(r);
	t2 = tool_now_us();
	if (e)
		row("reg", "dereg-error", mode_name(m), size, o, rep, e, "errno");
	row("reg", "reg", mode_name(m), size, o, rep, t1 - t0, "us");
	row("reg", "dereg", mode_name(m), size, o, rep, t2 - t1, "us");
	/* Pages pinned by this registration (anything else running adds to
	 * it: an upper bound). */
	if (pin0 >= 0 && pin1 >= 0)
		row("reg", "pins", mode_name(m), size, o, rep, (double)(pin1 - pin0), "pages");
	if (!o->touch || m == MODE_PINNED)
		goto out;
	e = region_reg(d, r, m);
	if (e) {
		row("reg", "reg-error", mode_name(m), size, o, rep, -e, "errno");
		goto out;
	}
	e = region_fault_pages(d, r, o->touch);
	if (e) {
		fprintf(stderr, "advise_mr %s %" PRIu64 ": %s\n", mode_name(m), size, strerror(e));
		row("reg", "touch-error", mode_name(m), size, o, rep, e, "errno");
	}
	/* the children: the same every repetition; reading them forks rdma(8) */
	ch = rep == 1 ? mr_counter(o, r, "odp_children") : -1;
	t0 = tool_now_us();
	e = region_dereg(r);
	t1 = tool_now_us();
	if (e)
		row("reg", "dereg-error", mode_name(m), size, o, rep, e, "errno");
	row("reg", "dereg-touched", mode_name(m), size, o, rep, t1 - t0, "us");
	if (ch >= 0)
		row("reg", "touched-children", mode_name(m), size, o, rep, (double)ch, "count");
out:
	if (!res)
		region_unmap(&fresh);
	return 0;
}

/*
 * Registration / deregistration time per size and mode (pinned, ODP,
 * implicit ODP), interleaved: each repetition goes over every size, and
 * within a size over every mode, both in an order that rotates from one
 * repetition to the next, so no size or mode always runs on a warmer
 * cache or a quieter host.  Resident memory (touched once up front), or
 * with --fresh a never-touched mapping per registration.
 */
static int cmd_reg(const struct opts *o)
{
	static struct region res[MAX_SIZES];
	int modes[3], nm = 0, i, j, k, rep, maxreps = 0;
	struct rdma d;

	for (k = MODE_PINNED; k <= MODE_IMPLICIT; k <<= 1)
		if (k != MODE_NOMR && mode_on(o, k))
			modes[nm++] = k;
	if (rdma_open(&d, o, false))
		return 2;
	for (i = 0; i < o->nsizes; i++) {
		int reps = o->sizes[i] >= (256ULL << 20) ? o->big_reps : o->reps;

		maxreps = reps > maxreps ? reps : maxreps;
		if (o->fresh)
			continue;
		if (region_map(&res[i], o->sizes[i], o->thp)) {
			row("reg", "map-error", "-", o->sizes[i], o, 0, ENOMEM, "errno");
			continue;
		}
		region_touch(&res[i]);
	}
	for (rep = 1; rep <= maxreps; rep++) {
		for (j = 0; j < o->nsizes; j++) {
			uint64_t size;

			i = (j + rep - 1) % o->nsizes;
			size = o->sizes[i];
			if (rep > (size >= (256ULL << 20) ? o->big_reps : o->reps))
				continue;
			if (!o->fresh && !res[i].map)
				continue;
			for (k = 0; k < nm; k++) {
				int m = modes[(k + rep - 1) % nm];

				if (m == MODE_PINNED && o->pinned_max && size > o->pinned_max)
					continue;
				reg_one(&d, o, o->fresh ? NULL : &res[i], size, m, rep);
			}
		}
	}
	for (i = 0; i < o->nsizes; i++)
		region_unmap(&res[i]);
	rdma_close(&d);
	return 0;
}

/*
 * Flush every slab cache's per-CPU slabs to its lists (SLUB's shrink file),
 * so that slabinfo's active_objs, which counts a per-CPU slab's free room as
 * in use, counts the objects in use only.
 */
static void slab_flush(void)
{
	DIR *dir = opendir("/sys/kernel/slab");
	struct dirent *e;
	char path[512];

	if (!dir)
		return;
	while ((e = readdir(dir)))
		if (e->d_type == DT_DIR && e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", e->d_name);
			sysfile_write(path, "1");
		}
	closedir(dir);
}

/*
 * The kernel heap in use, in KiB: the objects in use in every slab cache
 * (/proc/slabinfo active_objs x objsize after slab_flush(): a cache's free
 * room, which page counts such as meminfo's Slab include, does not count),
 * the kmallocs too large for a cache (meminfo Slab, which accounts them,
 * minus the caches' own slab pages), and vmalloc (kvmalloc's fallback).
 * Root only (slabinfo); -1 if unreadable.
 */
static long long kmem_kib(void)
{
	unsigned long long act, num, osz, per, pps, t1, t2, t3, as, ns;
	long long slab = meminfo_kib("Slab"), vm = meminfo_kib("VmallocUsed");
	double objs = 0, slab_pages = 0;
	char line[512], name[64];
	FILE *f;

	if (slab < 0 || vm < 0)
		return -1;
	slab_flush();
	slab = meminfo_kib("Slab");
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %llu %llu %llu %llu %llu : tunables %llu %llu %llu : slabdata %llu %llu",
			   name, &act, &num, &osz, &per, &pps, &t1, &t2, &t3, &as, &ns) != 11)
			continue;
		objs += (double)act * (double)osz;
		slab_pages += (double)ns * (double)pps;
	}
	fclose(f);
	return (long long)(objs / 1024 + ((double)slab - slab_pages * 4) + (double)vm);
}

/*
 * The memory the translation of an ODP MR takes per GiB touched: a
 * resident region of --size, registered (ODP or implicit), every page
 * mapped into the MR by a sync prefetch; the growth of the kernel heap
 * (kmem_kib()) across the prefetch: the children, their per-page arrays
 * and page-use bits; the MR's own counters of children and mapped pages;
 * what deregistration gives back.
 */
static int cmd_mem(const struct opts *o)
{
	uint64_t size = o->sizes[0];
	int modes[2], nm = 0, rep, k, e;
	struct rdma d;

	if (o->odp)
		modes[nm++] = MODE_ODP;
	if (o->implicit)
		modes[nm++] = MODE_IMPLICIT;
	if (rdma_open(&d, o, false))
		return 2;
	for (rep = 1; rep <= o->reps; rep++) {
		for (k = 0; k < nm; k++) {
			int m = modes[(k + rep - 1) % nm];
			long long k0, k1, k2, ch, mp;
			struct region r;
			double t0, t1;

			if (region_map(&r, size, o->thp))
				return 2;
			region_touch(&r);
			e = region_reg(&d, &r, m);
			if (e) {
				row("mem", "reg-error", mode_name(m), size, o, rep, -e, "errno");
				region_unmap(&r);
				continue;
			}
			k0 = kmem_kib();
			t0 = tool_now_us();
			e = region_prefetch(&d, &r, true, true);
			t1 = tool_now_us();
			k1 = kmem_kib();
			if (e) {
				row("mem", "advise-error", mode_name(m), size, o, rep, e, "errno");
				region_free(&r);
				continue;
			}
			ch = mr_counter(o, &r, "odp_children");
			mp = mr_counter(o, &r, "odp_mapped_pages");
			region_dereg(&r);
			k2 = kmem_kib();
			row("mem", "prefetch", mode_name(m), size, o, rep, t1 - t0, "us");
			if (k0 >= 0 && k1 >= 0 && k2 >= 0) {
				row("mem", "kmem", mode_name(m), size, o, rep, (double)(k1 - k0), "KiB");
				row("mem", "kmem-freed", mode_name(m), size, o, rep, (double)(k1 - k2),
				    "KiB");
			}
			if (ch >= 0)
				row("mem", "children", mode_name(m), size, o, rep, (double)ch, "count");
			if (mp >= 0)
				row("mem", "mapped-pages", mode_name(m), size, o, rep, (double)mp, "pages");
			region_unmap(&r);
		}
	}
	rdma_close(&d);
	return 0;
}

/* A sync PREFETCH_WRITE of one page every stride bytes of r, TOUCH_MAX
 * pages per call: its time in µs, or -1. */
static double prefetch_strided(struct rdma *d, struct region *r, uint64_t stride)
{
	struct ibv_sge sg[TOUCH_MAX];
	uint64_t off = 0;
	double t0 = tool_now_us();

	while (off < r->len) {
		uint32_t n = 0;

		for (; off < r->len && n < TOUCH_MAX; off += stride, n++) {
			sg[n].addr = (uintptr_t)(r->addr + off);
			sg[n].length = 4096;
			sg[n].lkey = r->mr->lkey;
		}
		if (uv_advise_mr(d->dev.pd, IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
				 IBV_ADVISE_MR_FLAG_FLUSH, sg, n))
			return -1;
	}
	return tool_now_us() - t0;
}

/* Write an unsigned value to a module parameter: 0 or -errno. */
static int param_set(const char *name, long long v)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	snprintf(val, sizeof(val), "%lld", v);
	return sysfile_write(path, val);
}

/*
 * The chunk of an ODP child (module parameter odp_child_shift), measured:
 * for each shift, in an order rotating per repetition,
 *  sparse: a resident page in each of --chunks chunks, an ODP MR over them,
 *   one 4 KiB RDMA WRITE per chunk: the cold pass makes a child per chunk
 *   and faults one page (odp_fault_ahead 0, so nothing else), the warm pass
 *   finds both; (cold - warm) / chunks is the first-access cost of a chunk,
 *   slab + vmalloc growth / children the memory of a child, and the
 *   deregistration frees them all; then the same through the CPU alone: a
 *   new MR over the same pages, a sync prefetch of one page per chunk
 *   (cold: makes the children) and again (warm);
 *  sequential: cold and warm pass over a resident region of --size in
 *   --chunk messages (odp_fault_ahead as it was).
 * Needs root (the parameters); both are restored at the end.
 */
static int cmd_chunk(const struct opts *o)
{
	long long shift0 = file_number(PARAMS "odp_child_shift");
	long long ahead0 = file_number(PARAMS "odp_fault_ahead");
	uint64_t size = o->sizes[0];
	int rep, k, e, rc = 0;
	struct opts oc = *o;
	char tag[32];
	struct rdma d;

	if (shift0 < 0 || ahead0 < 0) {
		fprintf(stderr, "odp-bench chunk: no odp_child_shift/odp_fault_ahead in " PARAMS "\n");
		return 3;
	}
	if (rdma_open(&d, o, true))
		return 2;
	oc.tag = tag;
	/* rep 0 is a warm-up of the first shift (first transfers, caches): no rows */
	for (rep = 0; rep <= o->reps && !rc; rep++) {
		rows_off = !rep;
		for (k = 0; k < (rep ? o->nshifts : 1) && !rc; k++) {
			unsigned int sh = o->shifts[(k + rep + o->nshifts - 1) % o->nshifts];
			uint64_t csz = 1ULL << sh, i;
			long long k0, k1, ch;
			struct region r;
			double t0, t1, t2, t3;

			snprintf(tag, sizeof(tag), "shift=%u", sh);
			e = param_set("odp_child_shift", sh);
			if (!e)
				e = param_set("odp_fault_ahead", 0);
			if (e || file_number(PARAMS "odp_child_shift") != sh) {
				fprintf(stderr, "odp_child_shift=%u: %s\n", sh, strerror(-e));
				row("chunk", "shift-rejected", "odp", csz, &oc, rep, -e, "errno");
				continue;
			}
			/* sparse: one resident page per chunk */
			if (region_map(&r, csz * o->nchunks, o->thp)) {
				rc = 2;
				break;
			}
			for (i = 0; i < (uint64_t)o->nchunks; i++)
				r.addr[i * csz] = 1;
			e = region_reg(&d, &r, MODE_ODP);
			if (e) {
				row("chunk", "reg-error", "odp", csz, &oc, rep, -e, "errno");
				region_unmap(&r);
				continue;
			}
			{
				struct xfer x = {
					.reg = &r, .stage = &d.stage, .chunk = 4096, .stride = csz,
					.fill_gen = -1, .check_gen = -1,
				};

				k0 = kmem_kib();
				t0 = tool_now_us();
				e = xfer_pass(&d, &x);
				t1 = tool_now_us();
				k1 = kmem_kib();
				if (!e)
					e = xfer_pass(&d, &x);
				t2 = tool_now_us();
			}
			if (e) {
				row("chunk", "xfer-error", "odp", csz, &oc, rep, 0, "pass");
				rc = 2;
				break;
			}
			ch = mr_counter(o, &r, "odp_children");
			t3 = tool_now_us();
			region_dereg(&r);
			row("chunk", "dereg", "odp", csz, &oc, rep, tool_now_us() - t3, "us");
			if (!region_reg(&d, &r, MODE_ODP)) {
				double p0 = prefetch_strided(&d, &r, csz);
				double p1 = p0 < 0 ? -1 : prefetch_strided(&d, &r, csz);

				if (p1 >= 0) {
					row("chunk", "pf-cold", "odp", csz, &oc, rep, p0, "us");
					row("chunk", "pf-warm", "odp", csz, &oc, rep, p1, "us");
				}
				region_dereg(&r);
			}
			region_unmap(&r);
			row("chunk", "sparse-cold", "odp", csz, &oc, rep, t1 - t0, "us");
			row("chunk", "sparse-warm", "odp", csz, &oc, rep, t2 - t1, "us");
			row("chunk", "sparse-chunks", "odp", csz, &oc, rep, o->nchunks, "count");
			if (ch >= 0)
				row("chunk", "children", "odp", csz, &oc, rep, (double)ch, "count");
			if (k0 >= 0 && k1 >= 0)
				row("chunk", "kmem", "odp", csz, &oc, rep, (double)(k1 - k0), "KiB");
			/* sequential: the whole region, fault-ahead as configured */
			param_set("odp_fault_ahead", ahead0);
			if (region_map(&r, size, o->thp)) {
				rc = 2;
				break;
			}
			region_touch(&r);
			e = region_reg(&d, &r, MODE_ODP);
			if (e) {
				row("chunk", "reg-error", "odp", csz, &oc, rep, -e, "errno");
				region_unmap(&r);
				continue;
			}
			t0 = timed_pass(&d, o, &r);
			t1 = t0 < 0 ? -1 : timed_pass(&d, o, &r);
			region_free(&r);
			if (t1 < 0) {
				row("chunk", "xfer-error", "odp", csz, &oc, rep, 1, "pass");
				rc = 2;
				break;
			}
			row("chunk", "seq-cold", "odp", csz, &oc, rep, t0, "us");
			row("chunk", "seq-warm", "odp", csz, &oc, rep, t1, "us");
			row("chunk", "seq-size", "odp", csz, &oc, rep, (double)size, "bytes");
		}
	}
	rows_off = false;
	param_set("odp_child_shift", shift0);
	param_set("odp_fault_ahead", ahead0);
	rdma_close(&d);
	return rc;
}

/*
 * Cold vs warm: a fresh registration, then two identical passes over the
 * whole region; for ODP the first pass faults every page into the MR.
 */
static int cmd_pass(const struct opts *o)
{
	struct rdma d;
	char kase[64];
	const char *what = o->op_read ? "read" : "write";
	const char *side = o->side_local ? "local" : "remote";
	uint64_t size = o->sizes[0];
	int rep, k, p;

	if (rdma_open(&d, o, true))
		return 2;
	for (rep = 1; rep <= o->reps; rep++) {
		for (k = 0; k < 2; k++) {
			int m = pair_mode(o, (rep + k) & 1);
			struct region r;
			double tr0, tr1;
			int e;

			if (!mode_on(o, m))
				continue;
			if (region_map(&r, size, o->thp))
				return 2;
			if (!o->fresh)
				region_touch(&r);
			tr0 = tool_now_us();
			e = region_reg(&d, &r, m);
			tr1 = tool_now_us();
			if (e) {
				fprintf(stderr, "reg %s: %s\n", mode_name(m), strerror(-e));
				row("pass", "reg-error", mode_name(m), size, o, rep, -e, "errno");
				region_unmap(&r);
				continue;
			}
			snprintf(kase, sizeof(kase), "%s-%s-reg", what, side);
			row("pass", kase, mode_name(m), size, o, rep, tr1 - tr0, "us");
			for (p = 0; p < o->passes; p++) {
				double us = timed_pass(&d, o, &r);

				if (us < 0) {
					row("pass", "xfer-error", mode_name(m), size, o, rep, p, "pass");
					return 2;
				}
				snprintf(kase, sizeof(kase), "%s-%s-%s", what, side, pass_name(p));
				row("pass", kase, mode_name(m), size, o, rep, us, "us");
			}
			region_free(&r);
		}
	}
	rdma_close(&d);
	return 0;
}

/*
 * Prefetch (issue 13): the first pass over a fresh ODP MR after a sync
 * prefetch (ibv_advise_mr with FLUSH: the call returns once every page is
 * mapped), after an async one (queued; the pass starts at once and races
 * it) and without one, then the warm pass(es); the kinds rotate which goes
 * first.  Rows (section prefetch, mode = the prefetch kind): the advise
 * call's own time and that per GiB, each pass's time, and from the MR's
 * own counters the pages the cold pass faulted and the pages prefetched.
 */
static int cmd_prefetch(const struct opts *o)
{
	struct rdma d;
	char kase[64], base[48];
	const char *what = o->op_read ? "read" : "write";
	const char *side = o->side_local ? "local" : "remote";
	uint64_t size = o->sizes[0];
	/* The pages a pass writes: the remote MR of a WRITE, the local one of a READ. */
	bool write = o->op_read == o->side_local;
	double gib = (double)size / (double)(1ULL << 30);
	int rep, k, p;

	if (rdma_open(&d, o, true))
		return 2;
	snprintf(base, sizeof(base), "%s-%s", what, side);
	for (rep = 1; rep <= o->reps; rep++) {
		for (k = 0; k < o->npf; k++) {
			int pf = o->pf[(rep - 1 + k) % o->npf];
			const char *pn = prefetch_name(pf);
			long long f0, f1, pre;
			struct region r;
			int e;

			if (region_map(&r, size, o->thp))
				return 2;
			if (!o->fresh)
				region_touch(&r);
			e = region_reg(&d, &r, MODE_ODP);
			if (e) {
				fprintf(stderr, "reg odp: %s\n", strerror(-e));
				row("prefetch", "reg-error", pn, size, o, rep, -e, "errno");
				region_unmap(&r);
				continue;
			}
			f0 = mr_counter(o, &r, "odp_pages_faulted");
			if (pf != PF_NONE) {
				double t0 = tool_now_us(), t1;

				e = region_prefetch(&d, &r, write, pf == PF_SYNC);
				t1 = tool_now_us();
				if (e) {
					fprintf(stderr, "advise_mr %s: %s\n", pn, strerror(e));
					row("prefetch", "advise-error", pn, size, o, rep, e, "errno");
					region_free(&r);
					continue;
				}
				row("prefetch", "advise", pn, size, o, rep, t1 - t0, "us");
				row("prefetch", "advise-per-gib", pn, size, o, rep, (t1 - t0) / gib,
				    "us/GiB");
			}
			for (p = 0; p < o->passes; p++) {
				double us = timed_pass(&d, o, &r);

				if (us < 0) {
					row("prefetch", "xfer-error", pn, size, o, rep, p, "pass");
					return 2;
				}
				snprintf(kase, sizeof(kase), "%s-%s", base, pass_name(p));
				row("prefetch", kase, pn, size, o, rep, us, "us");
				if (p == 0) {
					/* what the data pass itself had to fault in */
					f1 = mr_counter(o, &r, "odp_pages_faulted");
					if (f0 >= 0 && f1 >= 0) {
						snprintf(kase, sizeof(kase), "%s-cold-faulted", base);
						row("prefetch", kase, pn, size, o, rep,
						    (double)(f1 - f0), "pages");
					}
				}
			}
			pre = mr_counter(o, &r, "odp_pages_prefetched");
			if (pre >= 0)
				row("prefetch", "prefetched", pn, size, o, rep, (double)pre, "pages");
			region_free(&r);
		}
	}
	rdma_close(&d);
	return 0;
}

/* steady --atomic: the fewest atomics of a timed pass */
#define ATOMIC_MIN 512

/* How many words of r do not hold their offset + adds (util.h), said on stderr. */
static uint64_t region_atomic_wrong(const struct region *r, uint64_t chunk, uint64_t adds)
{
	uint64_t first = 0, v, bad = atomic_words_wrong(r->addr, r->len, chunk, adds, &first);

	if (bad) {
		memcpy(&v, r->addr + first, 8);
		fprintf(stderr, "%" PRIu64 " wrong words; the word at offset %" PRIu64 " holds %"
			PRIu64 ", not %" PRIu64 "\n", bad, first, v, first + adds);
	}
	return bad;
}

/*
 * Steady state: a pinned and an ODP MR of the same size, both fully mapped,
 * passed over alternately --reps times, so that both see the same load of
 * the (shared, emulated) machine; the report takes the per-pair ratio.
 * --atomic: a pass is ATOMIC_MIN or more fetch-and-adds instead, and every
 * fetched value and at the end every word of both MRs is checked.
 */
static int cmd_steady(const struct opts *o)
{
	struct rdma d;
	struct region r[2];
	char kase[64];
	uint64_t size = o->sizes[0], words = atomic_words(size, o->chunk), sweeps = 1;
	uint64_t wrong[2] = { 0, 0 };
	int rep, k, i, rc = 0;

	if (rdma_open(&d, o, true))
		return 2;
	/* --atomic: sweeps enough for ATOMIC_MIN atomics a pass */
	if (o->op_atomic)
		sweeps = atomic_sweeps(size, o->chunk, ATOMIC_MIN);
	snprintf(kase, sizeof(kase), "%s-%" PRIu64,
		 o->op_atomic ? "atomic" : o->op_read ? "read" : "write", o->chunk);
	for (i = 0; i < 2; i++) {
		int m = pair_mode(o, !i), e;

		if (region_map(&r[i], size, o->thp))
			return 2;
		region_touch(&r[i]);
		if (o->op_atomic)
			atomic_words_init(r[i].addr, size, o->chunk);
		e = region_reg(&d, &r[i], m);
		if (e) {
			row("steady", "reg-error", mode_name(m), size, o, 0, -e, "errno");
			return 0;
		}
	}
	for (rep = 0; rep <= o->reps; rep++) {
		for (k = 0; k < 2; k++) {
			int which = (rep + k) & 1;
			struct xfer x = {
				.reg = &r[which], .stage = &d.stage, .chunk = o->chunk,
				.read = o->op_read, .side_local = o->side_local,
				.atomic = o->op_atomic, .sweeps = sweeps,
				.base = (uint64_t)rep * sweeps,
				.fill_gen = -1, .check_gen = -1,
			};
			double t0 = tool_now_us(), t1;

			if (xfer_pass(&d, &x)) {
				row("steady", "xfer-error", mode_name(pair_mode(o, !which)),
				    size, o, rep, 0, "pass");
				return 2;
			}
			t1 = tool_now_us();
			wrong[which] += x.corrupt;
			/* rep 0 maps every page of the ODP MR: not steady state */
			if (!rep)
				continue;
			if (o->op_atomic)
				row("steady", kase, mode_name(pair_mode(o, !which)), size, o, rep,
				    (t1 - t0) / (double)(words * sweeps), "us/atomic");
			else
				row("steady", kase, mode_name(pair_mode(o, !which)), size, o, rep,
				    t1 - t0, "us");
		}
	}
	for (i = 0; i < 2; i++) {
		if (o->op_atomic) {
			char name[80];

			/* every pass added 1 to every word sweeps times */
			wrong[i] += region_atomic_wrong(&r[i], o->chunk,
							(uint64_t)(o->reps + 1) * sweeps);
			snprintf(name, sizeof(name), "%s-value-error", kase);
			row("steady", name, mode_name(pair_mode(o, !i)), size, o, 0,
			    (double)wrong[i], "words");
			if (wrong[i]) {
				fprintf(stderr, "steady --atomic: %" PRIu64 " wrong words in the %s MR\n",
					wrong[i], mode_name(pair_mode(o, !i)));
				rc = 1;
			}
		}
		region_free(&r[i]);
	}
	rdma_close(&d);
	return rc;
}

/*
 * Invalidation: MADV_DONTNEED (or munmap) of a fully mapped region, without
 * an MR and with an ODP MR whose every page was mapped by an RDMA READ pass.
 * After DONTNEED the ODP MR must read zeros (stale bytes are counted).
 */
static int cmd_inval(const struct opts *o)
{
	struct rdma d;
	char kase[64];
	uint64_t size = o->sizes[0];
	const char *meth = o->munmap ? "munmap" : "dontneed";
	const char *thp = o->thp == THP_ON ? "thp" : o->thp == THP_OFF ? "4k" : "default";
	int rep, k;

	if (rdma_open(&d, o, true))
		return 2;
	snprintf(kase, sizeof(kase), "%s-%s", meth, thp);
	for (rep = 1; rep <= o->reps; rep++) {
		for (k = 0; k < 2; k++) {
			int m = ((rep + k) & 1) ? MODE_NOMR : MODE_ODP;
			struct region r;
			double t0, t1;
			int e;

			if (!o->odp && m == MODE_ODP)
				continue;
			if (region_map(&r, size, o->thp))
				return 2;
			region_touch(&r);
			if (m == MODE_ODP) {
				struct xfer x = {
					.reg = &r, .stage = &d.stage, .chunk = o->chunk, .read = true,
					.fill_gen = -1, .check_gen = -1,
				};

				e = region_reg(&d, &r, MODE_ODP);
				if (e) {
					row("inval", "reg-error", "odp", size, o, rep, -e, "errno");
					region_unmap(&r);
					continue;
				}
				if (xfer_pass(&d, &x))
					return 2;
			}
			t0 = tool_now_us();
			if (o->munmap)
				e = munmap(r.map, r.map_len);
			else
				e = madvise(r.addr, r.len, MADV_DONTNEED);
			t1 = tool_now_us();
			if (e) {
				fprintf(stderr, "%s: %s\n", meth, strerror(errno));
				return 2;
			}
			row("inval", kase, mode_name(m), size, o, rep, t1 - t0, "us");
			if (o->munmap)
				r.map = NULL;
			if (m == MODE_ODP && !o->munmap) {
				/* The MR must now see the zero pages, not the old ones. */
				uint64_t c = o->chunk < size ? o->chunk : size, i, stale = 0;
				struct region one = r;
				struct xfer x = {
					.reg = &one, .stage = &d.stage, .chunk = c, .read = true,
					.fill_gen = -1, .check_gen = -1,
				};

				one.len = c;
				memset(d.stage.addr, 0xff, c);
				if (xfer_pass(&d, &x))
					return 2;
				for (i = 0; i < c; i++)
					stale += d.stage.addr[i] != 0;
				row("inval", "stale-bytes", "odp", size, o, rep, (double)stale,
				    "bytes");
			}
			region_free(&r);
		}
	}
	rdma_close(&d);
	return 0;
}

/*
 * Memory pressure: a region (meant to be larger than the cgroup's
 * memory.max) filled with a pattern, registered, then passes of RDMA WRITE
 * (new generation) and RDMA READ (checked) over all of it; at the end the
 * CPU checks every byte.  Everything that happens is reported as rows:
 * a failed registration is a result, not an error of this tool.
 */
static int cmd_pressure(const struct opts *o)
{
	struct rdma d;
	struct region r;
	uint64_t size = o->sizes[0], off, bad = 0;
	const char *mn;
	int m = o->odp ? MODE_ODP : MODE_PINNED;
	int p, e;
	double t0, t1;

	mn = mode_name(m);
	if (rdma_open(&d, o, true))
		return 2;
	if (region_map(&r, size, o->thp))
		return 2;
	t0 = tool_now_us();
	for (off = 0; off < size; off += o->chunk) {
		uint64_t c = size - off < o->chunk ? size - off : o->chunk;

		pattern_fill(r.addr + off, off, c, 0);
	}
	t1 = tool_now_us();
	row("pressure", "fill", mn, size, o, 0, t1 - t0, "us");
	fprintf(stderr, "pressure %s: filled %" PRIu64 " MiB, registering\n", mn, size >> 20);
	t0 = tool_now_us();
	e = region_reg(&d, &r, m);
	t1 = tool_now_us();
	if (e) {
		fprintf(stderr, "pressure %s: registration failed: %s\n", mn, strerror(-e));
		row("pressure", "reg-error", mn, size, o, 0, -e, "errno");
		return 0;
	}
	row("pressure", "reg", mn, size, o, 0, t1 - t0, "us");
	for (p = 1; p <= o->passes; p++) {
		struct xfer w = {
			.reg = &r, .stage = &d.stage, .chunk = o->chunk, .read = false,
			.fill_gen = p, .check_gen = -1,
		};
		struct xfer rd = {
			.reg = &r, .stage = &d.stage, .chunk = o->chunk, .read = true,
			.fill_gen = -1, .check_gen = p,
		};

		t0 = tool_now_us();
		if (xfer_pass(&d, &w)) {
			row("pressure", "xfer-error", mn, size, o, p, 0, "write");
			return 2;
		}
		t1 = tool_now_us();
		row("pressure", "write", mn, size, o, p, t1 - t0, "us");
		t0 = tool_now_us();
		if (xfer_pass(&d, &rd)) {
			row("pressure", "xfer-error", mn, size, o, p, 1, "read");
			return 2;
		}
		t1 = tool_now_us();
		row("pressure", "read", mn, size, o, p, t1 - t0, "us");
		row("pressure", "corrupt-rdma", mn, size, o, p, (double)rd.corrupt, "bytes");
		bad += rd.corrupt;
	}
	t0 = tool_now_us();
	{
		uint64_t cpu_bad = 0;

		for (off = 0; off < size; off += o->chunk) {
			uint64_t c = size - off < o->chunk ? size - off : o->chunk;

			cpu_bad += pattern_corrupt_bytes(r.addr + off, off, c, o->passes);
		}
		t1 = tool_now_us();
		row("pressure", "verify-cpu", mn, size, o, 0, t1 - t0, "us");
		row("pressure", "corrupt-cpu", mn, size, o, 0, (double)cpu_bad, "bytes");
		bad += cpu_bad;
	}
	region_free(&r);
	rdma_close(&d);
	fprintf(stderr, "pressure %s: %" PRIu64 " corrupt bytes\n", mn, bad);
	return bad ? 1 : 0;
}

/* ------------------------------------------------------------------ main */

static void usage(FILE *f)
{
	fprintf(f,
"usage: odp-bench COMMAND [options]\n"
"\n"
"Measures what On-Demand-Paging (ODP) memory regions cost against pinned ones on\n"
"one RDMA device, inside one process (a loopback RC QP pair on the device).\n"
"Results are CSV rows on stdout: section,case,mode,size,tag,run,value,unit.\n"
"\n"
"commands:\n"
"  caps      print the device's ODP capabilities and try one ODP registration;\n"
"            exit 0 if ODP works for RC send/recv/write/read, 3 if not\n"
"  reg       time ibv_reg_mr/ibv_dereg_mr per size (--sizes) on resident memory\n"
"            (--fresh: a never-touched MAP_NORESERVE mapping per registration),\n"
"            --mode pinned,odp,implicit; sizes and modes interleaved in rotating\n"
"            order, --reps times (--big-reps from 256 MiB); --touch N: also\n"
"            the dereg of an ODP MR that faulted N pages (case dereg-touched)\n"
"  mem       kernel memory of the translation: an ODP (or implicit) MR over a\n"
"            resident region of --size, every page mapped by a sync prefetch;\n"
"            slab+vmalloc growth, MemFree drop, odp_children, odp_mapped_pages\n"
"  chunk     per odp_child_shift in --shifts (root): first-access cost of a\n"
"            chunk (one 4 KiB WRITE into each of --chunks chunks, cold vs\n"
"            warm), memory per child, dereg, and a cold/warm pass over --size\n"
"  pass      register a fresh region of --size, then --passes passes of RDMA\n"
"            WRITE (or --read) over all of it in --chunk messages: the first pass\n"
"            on an ODP MR faults every page (cold), the next ones do not (warm)\n"
"  steady    a pinned and an ODP MR of --size, both fully mapped, passed over\n"
"            alternately (--reps pairs, RDMA WRITE or --read in --chunk messages,\n"
"            or --atomic); the first pair (run 0, which maps the ODP MR) is\n"
"            not reported\n"
"  inval     time MADV_DONTNEED (or --munmap) of a resident region of --size\n"
"            with no MR vs with an ODP MR whose pages are all mapped\n"
"  pressure  fill a region of --size with a pattern, register it (--mode pinned\n"
"            or odp), then --passes passes of RDMA WRITE + checked RDMA READ and a\n"
"            final CPU check; run it in a cgroup whose memory.max is below --size\n"
"\n"
"options:\n"
"  --dev NAME        RDMA device (default rxe0)\n"
"  --gid N           GID index for the QPs (default $RXE_GID, else 1)\n"
"  --mode M          pinned, odp, implicit (an implicit ODP MR: NULL,\n"
"                    SIZE_MAX), a comma list of them, both (pinned,odp) or\n"
"                    all (default both)\n"
"  --implicit        pass/steady: explicit vs implicit ODP instead of pinned\n"
"                    vs ODP (modes odp and implicit)\n"
"  --pinned-max S    reg: no pinned registration of sizes above S\n"
"  --touch N         reg: see above (1-%d)\n"
"  --shifts LIST     chunk: odp_child_shift values (default 16,18,21,24,27)\n"
"  --chunks N        chunk: chunks of the sparse pass (default 256)\n"
"  --reps N          repetitions (default 3)\n"
"  --big-reps N      reg: repetitions for sizes >= 256 MiB (default = --reps)\n"
"  --sizes LIST      reg: comma-separated sizes, e.g. 4K,1M,1G (suffix K/M/G)\n"
"  --size S          pass/inval/pressure: region size (default 16M)\n"
"  --chunk S         message size of a pass (default 1M); steady --atomic:\n"
"                    the distance between the atomics' words\n"
"  --depth N         messages in flight (default 8, max %d)\n"
"  --passes N        pass: passes per registration (default 2: cold, warm);\n"
"                    pressure: write+read passes (default 2)\n"
"  --read            pass, steady: RDMA READ instead of RDMA WRITE\n"
"  --atomic          steady: 8-byte ATOMIC FETCH_AND_ADDs (add 1) instead of\n"
"                    RDMA WRITE, one at every --chunk of the MR (the remote\n"
"                    target; --depth in flight).  A pass sweeps the MR as often\n"
"                    as it takes to post at least %d atomics (2M at 1M: 256\n"
"                    sweeps of 2); case atomic-CHUNK, value = pass time per\n"
"                    atomic (unit us/atomic).  Every fetched value and, at the\n"
"                    end, every word of both MRs is checked: case\n"
"                    atomic-CHUNK-value-error counts the wrong words per MR\n"
"                    (0: all right; else exit 1).  Not with --read or --local\n"
"  --local           pass: the measured MR is the local buffer of the QP, not\n"
"                    the remote target (the requester faults instead of the\n"
"                    responder)\n"
"  --prefetch LIST   pass: ODP only, the cold pass after ibv_advise_mr\n"
"                    PREFETCH(_WRITE) of the whole MR: sync (FLUSH: returns\n"
"                    once mapped), async (queued) or none; a comma list\n"
"                    (none,sync,async) compares them in rotating order.  Rows\n"
"                    of section prefetch: advise time (also per GiB), pass\n"
"                    times, pages the cold pass faulted (per-MR counter)\n"
"  --fresh           pass: do not touch the region before registering (the cold\n"
"                    pass then also allocates and zeroes the pages); reg: do not\n"
"                    touch it (for ODP-only runs: nothing to pin)\n"
"  --munmap          inval: munmap instead of MADV_DONTNEED\n"
"  --thp on|off      transparent huge pages for the region (default: system's)\n"
"  --tag STR         value of the tag column (e.g. a parameter being swept)\n"
"  -h, --help        this text\n", TOUCH_MAX, MAX_DEPTH, ATOMIC_MIN);
}

/*
 * The command line, checked once into *o: the command, or NULL after a
 * message (exit 2). --help prints the usage and returns "help".
 */
static const char *parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "gid", required_argument, NULL, 'g' },
		{ "mode", required_argument, NULL, 'm' },
		{ "reps", required_argument, NULL, 'r' },
		{ "big-reps", required_argument, NULL, 'R' },
		{ "sizes", required_argument, NULL, 'S' },
		{ "size", required_argument, NULL, 's' },
		{ "chunk", required_argument, NULL, 'c' },
		{ "depth", required_argument, NULL, 'q' },
		{ "passes", required_argument, NULL, 'p' },
		{ "read", no_argument, NULL, 'x' },
		{ "atomic", no_argument, NULL, 'A' },
		{ "local", no_argument, NULL, 'l' },
		{ "fresh", no_argument, NULL, 'f' },
		{ "prefetch", required_argument, NULL, 'P' },
		{ "munmap", no_argument, NULL, 'u' },
		{ "thp", required_argument, NULL, 't' },
		{ "tag", required_argument, NULL, 'T' },
		{ "implicit", no_argument, NULL, 'I' },
		{ "pinned-max", required_argument, NULL, 'X' },
		{ "touch", required_argument, NULL, 'K' },
		{ "shifts", required_argument, NULL, 'H' },
		{ "chunks", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cmd;
	long v;
	int c;

	*o = (struct opts) {
		.dev = "rxe0", .gid = opt_gid_default(1), .reps = 3, .big_reps = -1,
		.chunk = 1 << 20, .depth = 8, .pinned = true, .odp = true,
		.thp = THP_DEFAULT, .passes = 2, .nsizes = 1, .sizes = { 16 << 20 },
		.nshifts = 5, .shifts = { 16, 18, 21, 24, 27 }, .nchunks = 256,
	};
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? NULL : "help";
	}
	cmd = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o->dev = optarg; break;
		case 'g':
			if (opt_long(optarg, 0, 255, &v))
				goto bad;
			o->gid = (int)v;
			break;
		case 'm': {
			static const char *const mn[] = { "pinned", "odp", "implicit" };
			bool on[3] = { false };

			if (!strcmp(optarg, "both"))
				on[0] = on[1] = true;
			else if (opt_names(optarg, mn, 3, on))
				goto bad;
			o->pinned = on[0];
			o->odp = on[1];
			o->implicit = on[2];
			if (!o->pinned && !o->odp && !o->implicit)
				goto bad;
			break;
		}
		case 'I': o->vs_implicit = true; break;
		case 'X':
			if (opt_size(optarg, &o->pinned_max))
				goto bad;
			break;
		case 'K':
			if (opt_long(optarg, 1, TOUCH_MAX, &v))
				goto bad;
			o->touch = (int)v;
			break;
		case 'H': {
			uint64_t sh[MAX_SHIFTS];
			int n = opt_size_list(optarg, sh, MAX_SHIFTS), i;

			if (n < 1)
				goto bad;
			for (i = 0; i < n; i++) {
				if (sh[i] < 12 || sh[i] > 40)
					goto bad;
				o->shifts[i] = (unsigned int)sh[i];
			}
			o->nshifts = n;
			break;
		}
		case 'N':
			if (opt_long(optarg, 1, 65536, &v))
				goto bad;
			o->nchunks = (int)v;
			break;
		case 'r':
			if (opt_long(optarg, 1, 1000000, &v))
				goto bad;
			o->reps = (int)v;
			break;
		case 'R':
			if (opt_long(optarg, 1, 1000000, &v))
				goto bad;
			o->big_reps = (int)v;
			break;
		case 'S':
			o->nsizes = opt_size_list(optarg, o->sizes, MAX_SIZES);
			if (o->nsizes < 0)
				goto bad;
			break;
		case 's':
			if (opt_size(optarg, &o->sizes[0]))
				goto bad;
			o->nsizes = 1;
			break;
		case 'c':
			if (opt_size(optarg, &o->chunk) || o->chunk % 8 || o->chunk > (1ULL << 30))
				goto bad;
			break;
		case 'q':
			if (opt_long(optarg, 1, MAX_DEPTH, &v))
				goto bad;
			o->depth = (int)v;
			break;
		case 'p':
			if (opt_long(optarg, 1, 1000000, &v))
				goto bad;
			o->passes = (int)v;
			break;
		case 'x': o->op_read = true; break;
		case 'A': o->op_atomic = true; break;
		case 'l': o->side_local = true; break;
		case 'f': o->fresh = true; break;
		case 'P':
			o->npf = parse_prefetch_list(optarg, o->pf, PF_KINDS);
			if (o->npf < 0)
				goto bad;
			break;
		case 'u': o->munmap = true; break;
		case 't':
			if (!strcmp(optarg, "on"))
				o->thp = THP_ON;
			else if (!strcmp(optarg, "off"))
				o->thp = THP_OFF;
			else
				goto bad;
			break;
		case 'T': o->tag = optarg; break;
		case 'h': usage(stdout); return "help";
		default: goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (o->big_reps < 1)
		o->big_reps = o->reps;
	if (o->tag && strchr(o->tag, ','))
		goto bad;
	if (o->npf && strcmp(cmd, "pass"))
		goto bad;
	if (o->vs_implicit) {
		if (strcmp(cmd, "pass") && strcmp(cmd, "steady"))
			goto bad;
		o->pinned = false;
		o->odp = o->implicit = true;
	}
	if (o->op_atomic) {
		if (strcmp(cmd, "steady") || o->op_read || o->side_local) {
			fprintf(stderr, "odp-bench: --atomic is for steady only, without --read "
				"or --local (the MR is the atomics' remote target)\n");
			return NULL;
		}
		if (o->sizes[0] % 8) {
			fprintf(stderr, "odp-bench steady --atomic: --size must be a multiple of 8\n");
			return NULL;
		}
	}
	if (!strcmp(cmd, "pressure")) {
		if (o->pinned && o->odp) {
			fprintf(stderr, "odp-bench pressure: --mode pinned or --mode odp\n");
			return NULL;
		}
		if (o->sizes[0] % 8) {
			fprintf(stderr, "odp-bench pressure: --size must be a multiple of 8\n");
			return NULL;
		}
	}
	return cmd;
bad:
	fprintf(stderr, "odp-bench: bad arguments (see odp-bench --help)\n");
	return NULL;
}

int main(int argc, char **argv)
{
	struct opts o;
	const char *cmd = parse_opts(argc, argv, &o);

	if (!cmd)
		return 2;
	if (!strcmp(cmd, "help"))
		return 0;
	if (!strcmp(cmd, "caps"))
		return cmd_caps(&o);
	if (!strcmp(cmd, "reg"))
		return cmd_reg(&o);
	if (!strcmp(cmd, "pass"))
		return o.npf ? cmd_prefetch(&o) : cmd_pass(&o);
	if (!strcmp(cmd, "steady"))
		return cmd_steady(&o);
	if (!strcmp(cmd, "mem"))
		return cmd_mem(&o);
	if (!strcmp(cmd, "chunk"))
		return cmd_chunk(&o);
	if (!strcmp(cmd, "inval"))
		return cmd_inval(&o);
	if (!strcmp(cmd, "pressure"))
		return cmd_pressure(&o);
	fprintf(stderr, "odp-bench: unknown command '%s' (see --help)\n", cmd);
	return 2;
}
