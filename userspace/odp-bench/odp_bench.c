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
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "counters.h"
#include "loopback.h"
#include "opts.h"
#include "tool.h"
#include "util.h"
#include "uverbs.h"

#define MAX_SIZES 32
#define MAX_DEPTH 64
#define HUGE_ALIGN (2UL << 20)

enum mode { MODE_PINNED = 1, MODE_ODP = 2, MODE_NOMR = 4 };
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
	bool op_read;		/* pass: RDMA READ instead of WRITE */
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
};

static const char *mode_name(int m)
{
	switch (m) {
	case MODE_PINNED: return "pinned";
	case MODE_ODP: return "odp";
	case MODE_NOMR: return "nomr";
	default: return "?";
	}
}

static void row(const char *section, const char *kase, const char *mode, uint64_t size,
		const struct opts *o, int run, double value, const char *unit)
{
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

	return mode == MODE_ODP ? a | IBV_ACCESS_ON_DEMAND : a;
}

static int region_reg(struct rdma *d, struct region *r, int mode)
{
	r->mr = lb_reg_mr(&d->dev, r->addr, r->len, access_flags(mode));
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
			  IBV_ACCESS_REMOTE_READ,
		.max_rd_atomic = 16,
		.hop_limit = 64,
		/* ~1 s ack timeout: a responder stalled in a swap-in must not exhaust retries. */
		.timeout = 18,
	};

	memset(&d->qps, 0, sizeof(d->qps));
	memset(&d->stage, 0, sizeof(d->stage));
	d->depth = o->depth;
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
 */
struct xfer {
	struct region *reg;
	struct region *stage;
	uint64_t chunk;
	bool read;
	bool side_local;
	int64_t fill_gen;
	int64_t check_gen;
	uint64_t corrupt;	/* out */
};

static int xfer_pass(struct rdma *d, struct xfer *x)
{
	uint64_t slot_off[MAX_DEPTH];
	bool busy[MAX_DEPTH] = { false };
	struct ibv_wc wc[16];
	uint64_t next = 0, done = 0, len = x->reg->len;
	int inflight = 0, n, i, s;

	while (done < len) {
		while (next < len && inflight < d->depth) {
			struct ibv_send_wr wr, *bad;
			struct ibv_sge sge;
			uint64_t c = len - next < x->chunk ? len - next : x->chunk;

			for (s = 0; busy[s]; s++)
				;
			char *slot = x->stage->addr + (uint64_t)s * x->chunk;

			if (!x->read && x->fill_gen >= 0 && !x->side_local)
				pattern_fill(slot, next, c, (uint64_t)x->fill_gen);
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = s;
			wr.opcode = x->read ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE;
			wr.send_flags = IBV_SEND_SIGNALED;
			wr.sg_list = &sge;
			wr.num_sge = 1;
			if (x->side_local) {
				sge.addr = (uintptr_t)(x->reg->addr + next);
				sge.lkey = x->reg->mr->lkey;
				wr.wr.rdma.remote_addr = (uintptr_t)slot;
				wr.wr.rdma.rkey = x->stage->mr->rkey;
			} else {
				sge.addr = (uintptr_t)slot;
				sge.lkey = x->stage->mr->lkey;
				wr.wr.rdma.remote_addr = (uintptr_t)(x->reg->addr + next);
				wr.wr.rdma.rkey = x->reg->mr->rkey;
			}
			sge.length = c;
			if (ibv_post_send(d->qps.a.qp, &wr, &bad)) {
				fprintf(stderr, "ibv_post_send: %s\n", strerror(errno));
				return -1;
			}
			busy[s] = true;
			slot_off[s] = next;
			next += c;
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

			if (x->read && x->check_gen >= 0 && !x->side_local)
				x->corrupt += pattern_corrupt_bytes(x->stage->addr +
								    (uint64_t)s * x->chunk,
								    slot_off[s], c,
								    (uint64_t)x->check_gen);
			busy[s] = false;
			inflight--;
			done += c;
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

/* Registration / deregistration time per size, pinned and ODP interleaved. */
static int cmd_reg(const struct opts *o)
{
	struct rdma d;
	int i, rep, k;

	if (rdma_open(&d, o, false))
		return 2;
	for (i = 0; i < o->nsizes; i++) {
		uint64_t size = o->sizes[i];
		int reps = size >= (256ULL << 20) ? o->big_reps : o->reps;
		struct region r;

		if (region_map(&r, size, o->thp)) {
			row("reg", "map-error", "-", size, o, 0, ENOMEM, "errno");
			continue;
		}
		if (!o->fresh)
			region_touch(&r);
		for (rep = 1; rep <= reps; rep++) {
			/* Alternate the order so neither mode always runs on a warmer cache. */
			for (k = 0; k < 2; k++) {
				int m = ((rep + k) & 1) ? MODE_PINNED : MODE_ODP;
				double t0, t1, t2;
				int e;

				long long pin0, pin1;

				if (!(m == MODE_PINNED ? o->pinned : o->odp))
					continue;
				pin0 = vmstat("nr_foll_pin_acquired");
				t0 = tool_now_us();
				e = region_reg(&d, &r, m);
				t1 = tool_now_us();
				pin1 = vmstat("nr_foll_pin_acquired");
				if (e) {
					fprintf(stderr, "reg %s %" PRIu64 ": %s\n", mode_name(m), size,
						strerror(-e));
					row("reg", "reg-error", mode_name(m), size, o, rep, -e, "errno");
					continue;
				}
				e = region_dereg(&r);
				t2 = tool_now_us();
				if (e)
					row("reg", "dereg-error", mode_name(m), size, o, rep, e, "errno");
				row("reg", "reg", mode_name(m), size, o, rep, t1 - t0, "us");
				row("reg", "dereg", mode_name(m), size, o, rep, t2 - t1, "us");
				/* Pages pinned by this registration (anything else
				 * running adds to it: an upper bound). */
				if (pin0 >= 0 && pin1 >= 0)
					row("reg", "pins", mode_name(m), size, o, rep,
					    (double)(pin1 - pin0), "pages");
			}
		}
		region_unmap(&r);
	}
	rdma_close(&d);
	return 0;
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
			int m = ((rep + k) & 1) ? MODE_PINNED : MODE_ODP;
			struct region r;
			double tr0, tr1;
			int e;

			if (!(m == MODE_PINNED ? o->pinned : o->odp))
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

/*
 * Steady state: a pinned and an ODP MR of the same size, both fully mapped,
 * passed over alternately --reps times, so that both see the same load of
 * the (shared, emulated) machine; the report takes the per-pair ratio.
 */
static int cmd_steady(const struct opts *o)
{
	struct rdma d;
	struct region r[2];
	char kase[64];
	uint64_t size = o->sizes[0];
	int rep, k, i;

	if (rdma_open(&d, o, true))
		return 2;
	snprintf(kase, sizeof(kase), "%s-%" PRIu64, o->op_read ? "read" : "write", o->chunk);
	for (i = 0; i < 2; i++) {
		int m = i ? MODE_ODP : MODE_PINNED, e;

		if (region_map(&r[i], size, o->thp))
			return 2;
		region_touch(&r[i]);
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
				.fill_gen = -1, .check_gen = -1,
			};
			double t0 = tool_now_us(), t1;

			if (xfer_pass(&d, &x)) {
				row("steady", "xfer-error", mode_name(which ? MODE_ODP : MODE_PINNED),
				    size, o, rep, 0, "pass");
				return 2;
			}
			t1 = tool_now_us();
			/* rep 0 maps every page of the ODP MR: not steady state */
			if (rep)
				row("steady", kase, mode_name(which ? MODE_ODP : MODE_PINNED), size,
				    o, rep, t1 - t0, "us");
		}
	}
	for (i = 0; i < 2; i++)
		region_free(&r[i]);
	rdma_close(&d);
	return 0;
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
"  reg       time ibv_reg_mr/ibv_dereg_mr per size (--sizes) on resident memory,\n"
"            pinned and ODP interleaved, --reps times (--big-reps from 256 MiB)\n"
"  pass      register a fresh region of --size, then --passes passes of RDMA\n"
"            WRITE (or --read) over all of it in --chunk messages: the first pass\n"
"            on an ODP MR faults every page (cold), the next ones do not (warm)\n"
"  steady    a pinned and an ODP MR of --size, both fully mapped, passed over\n"
"            alternately (--reps pairs, RDMA WRITE or --read in --chunk messages)\n"
"  inval     time MADV_DONTNEED (or --munmap) of a resident region of --size\n"
"            with no MR vs with an ODP MR whose pages are all mapped\n"
"  pressure  fill a region of --size with a pattern, register it (--mode pinned\n"
"            or odp), then --passes passes of RDMA WRITE + checked RDMA READ and a\n"
"            final CPU check; run it in a cgroup whose memory.max is below --size\n"
"\n"
"options:\n"
"  --dev NAME        RDMA device (default rxe0)\n"
"  --gid N           GID index for the QPs (default $RXE_GID, else 1)\n"
"  --mode M          pinned, odp or both (default both)\n"
"  --reps N          repetitions (default 3)\n"
"  --big-reps N      reg: repetitions for sizes >= 256 MiB (default = --reps)\n"
"  --sizes LIST      reg: comma-separated sizes, e.g. 4K,1M,1G (suffix K/M/G)\n"
"  --size S          pass/inval/pressure: region size (default 16M)\n"
"  --chunk S         message size of a pass (default 1M)\n"
"  --depth N         messages in flight (default 8, max %d)\n"
"  --passes N        pass: passes per registration (default 2: cold, warm);\n"
"                    pressure: write+read passes (default 2)\n"
"  --read            pass: RDMA READ instead of RDMA WRITE\n"
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
"  -h, --help        this text\n", MAX_DEPTH);
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
		{ "local", no_argument, NULL, 'l' },
		{ "fresh", no_argument, NULL, 'f' },
		{ "prefetch", required_argument, NULL, 'P' },
		{ "munmap", no_argument, NULL, 'u' },
		{ "thp", required_argument, NULL, 't' },
		{ "tag", required_argument, NULL, 'T' },
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
		case 'm':
			o->pinned = !strcmp(optarg, "pinned") || !strcmp(optarg, "both");
			o->odp = !strcmp(optarg, "odp") || !strcmp(optarg, "both");
			if (!o->pinned && !o->odp)
				goto bad;
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
	if (!strcmp(cmd, "inval"))
		return cmd_inval(&o);
	if (!strcmp(cmd, "pressure"))
		return cmd_pressure(&o);
	fprintf(stderr, "odp-bench: unknown command '%s' (see --help)\n", cmd);
	return 2;
}
