/* odp-selftest: the life of ODP children (issue 14): a child whose chunk
 * has been unmapped is freed (later, by the MR's reap work), one whose
 * pages were only reclaimed or zapped is kept, munmap/mmap racing RDMA
 * ends in success or a clean error, and MRs deregistered while frees are
 * pending free everything once (the console gate sees the rest).
 * Per-MR attributes come from "rdma resource show mr -dd". */
#include "st.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* The deferred free: give the reap work this long (guests are slow) */
#define REAP_WAIT_MS 20000

static long long mrattr(struct env *e, struct ibv_mr *mr, const char *name)
{
	return mr_driver_attr(e->dev_name, mr->lkey, name);
}

size_t chunk_size(void)
{
	long long shift = rxe_param("odp_child_shift");

	return shift >= 12 && shift <= 30 ? (size_t)1 << shift : 0;
}

/* Poll odp_children of mr until it is want (or at most want, with
 * at_most): the number seen last */
static long long wait_children_cmp(struct env *e, struct ibv_mr *mr, long long want, int at_most,
				   int ms)
{
	long long n = mrattr(e, mr, "odp_children");
	int i;

	for (i = 0; (at_most ? n > want : n != want) && i < ms / 10; i++) {
		usleep(10000);
		n = mrattr(e, mr, "odp_children");
	}
	return n;
}

static long long wait_children(struct env *e, struct ibv_mr *mr, long long want, int ms)
{
	return wait_children_cmp(e, mr, want, 0, ms);
}

static int children_caps(struct env *e, size_t *chunk)
{
	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	*chunk = chunk_size();
	if (!*chunk)
		ST_SKIP(e, "no odp_child_shift parameter: not rxe-odp's children");
	return T_PASS;
}

/* The registered MR under test: implicit, or explicit over [area, area + len) */
static int test_mr(struct env *e, int implicit, char *area, size_t len, struct ibv_mr **mr)
{
	if (implicit) {
		if (!(e->attr.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT))
			ST_SKIP(e, "%s does not advertise IBV_ODP_SUPPORT_IMPLICIT", e->dev_name);
		*mr = reg(e, NULL, SIZE_MAX, ODP_ACC);
	} else {
		*mr = reg(e, area, len, ODP_ACC);
	}
	CHECK(*mr, "%s ODP registration", implicit ? "implicit" : "explicit");
	return T_PASS;
}

/* One 4 KiB RDMA WRITE of pattern seed + k from src into each of the n
 * chunks of area (through mr's rkey), then READs each back into src + page
 * and checks it; src is in smr. */
static int touch_chunks(struct env *e, struct lb_pair *p, struct ibv_mr *smr, char *src,
			struct ibv_mr *mr, char *area, size_t chunk, int n, unsigned seed)
{
	int k;

	for (k = 0; k < n; k++) {
		char *dst = area + k * chunk + (k % 4) * e->page;

		fill(src, e->page, seed + k);
		memset(src + e->page, 0, e->page);
		CHECK(!post_rdma(p->a.qp, IBV_WR_RDMA_WRITE, va(src), e->page, smr->lkey, va(dst),
				 mr->rkey, k), "post WRITE");
		TRY(expect_wc(e, p->a.cq, IBV_WC_SUCCESS, "WRITE into a chunk"));
		CHECK(!post_rdma(p->a.qp, IBV_WR_RDMA_READ, va(src + e->page), e->page, smr->lkey,
				 va(dst), mr->rkey, k), "post READ");
		TRY(expect_wc(e, p->a.cq, IBV_WC_SUCCESS, "READ from a chunk"));
		CHECK(check_fill(dst, e->page, seed + k) < 0, "WRITE data wrong in chunk %d", k);
		CHECK(check_fill(src + e->page, e->page, seed + k) < 0,
		      "READ data wrong in chunk %d", k);
	}
	return T_PASS;
}

#define NCHUNKS 8

/* n chunks of fresh memory (area), a 2-page source buffer (src), the ODP MR
 * under test over area (mr: implicit, or explicit over area), the source's
 * MR (smr: the implicit MR itself, or a pinned MR beside the explicit one)
 * and a connected loopback pair */
struct chunks {
	size_t chunk, len;
	char *area, *src;
	struct ibv_mr *mr, *smr;
	struct lb_pair p;
};

static int chunks_open(struct env *e, int implicit, int n, struct chunks *c)
{
	memset(c, 0, sizeof(*c));
	TRY(children_caps(e, &c->chunk));
	c->len = n * c->chunk;
	c->area = map_anon(c->len, c->chunk);
	c->src = map_anon(2 * e->page, e->page);
	CHECK(c->area && c->src, "mmap: %s", strerror(errno));
	TRY(test_mr(e, implicit, c->area, c->len, &c->mr));
	c->smr = implicit ? c->mr : reg(e, c->src, 2 * e->page, PIN_ACC);
	CHECK(c->smr, "source MR");
	TRY(rc_pair_create(e, &c->p, NULL));
	return T_PASS;
}

static int chunks_close(struct env *e, struct chunks *c)
{
	lb_pair_destroy(&c->p);
	if (c->smr != c->mr)
		CHECK(!ibv_dereg_mr(c->smr), "dereg");
	CHECK(!ibv_dereg_mr(c->mr), "dereg");
	munmap(c->area, c->len);
	munmap(c->src, 2 * e->page);
	return T_PASS;
}

/* Touch NCHUNKS chunks through rxe, munmap them: their children are freed
 * (odp_children drops by NCHUNKS, odp_children_freed grows by as much);
 * map the same addresses again: RDMA works on them with the new data. */
static int unmap_frees(struct env *e, int implicit)
{
	long long c0, c1, c2, f0, f1;
	struct chunks c;
	char *again;

	TRY(chunks_open(e, implicit, NCHUNKS, &c));

	/* the source's own child (implicit) exists before the count */
	fill(c.src, e->page, 1);
	CHECK(!post_rdma(c.p.a.qp, IBV_WR_RDMA_WRITE, va(c.src), e->page, c.smr->lkey,
			 va(c.src + e->page), c.smr->rkey, 99), "post WRITE");
	TRY(expect_wc(e, c.p.a.cq, IBV_WC_SUCCESS, "WRITE within the source"));
	c0 = mrattr(e, c.mr, "odp_children");
	f0 = mrattr(e, c.mr, "odp_children_freed");
	CHECK(c0 >= 0 && f0 >= 0, "odp_children %lld, odp_children_freed %lld", c0, f0);

	TRY(touch_chunks(e, &c.p, c.smr, c.src, c.mr, c.area, c.chunk, NCHUNKS, 10));
	c1 = mrattr(e, c.mr, "odp_children");
	CHECK(c1 == c0 + NCHUNKS, "children after touching %d chunks: %lld, before %lld",
	      NCHUNKS, c1, c0);

	CHECK(!munmap(c.area, c.len), "munmap: %s", strerror(errno));
	c2 = wait_children(e, c.mr, c0, REAP_WAIT_MS);
	f1 = mrattr(e, c.mr, "odp_children_freed");
	diag("%s MR: %lld children, %lld after touching %d chunks, %lld after their munmap; freed +%lld",
	     implicit ? "implicit" : "explicit", c0, c1, NCHUNKS, c2, f1 - f0);
	CHECK(c2 == c0, "children after munmap: %lld, want %lld", c2, c0);
	CHECK(f1 - f0 == NCHUNKS, "odp_children_freed +%lld, want +%d", f1 - f0, NCHUNKS);

	/* the same addresses again, new memory: new children, the new data */
	again = mmap(c.area, c.len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	CHECK(again == c.area, "mmap at the old address: %s", strerror(errno));
	TRY(touch_chunks(e, &c.p, c.smr, c.src, c.mr, c.area, c.chunk, NCHUNKS, 50));
	c2 = mrattr(e, c.mr, "odp_children");
	CHECK(c2 == c0 + NCHUNKS, "children after touching the remapped chunks: %lld", c2);

	return chunks_close(e, &c);
}

int t_children_unmap_implicit(struct env *e)
{
	return unmap_frees(e, 1);
}

int t_children_unmap_explicit(struct env *e)
{
	return unmap_frees(e, 0);
}

/* READ back through mr the page touch_chunks() wrote in each of the n
 * chunks of area, into src (in smr): pattern seed + k, or zeros for seed -1 */
static int read_chunks(struct env *e, struct lb_pair *p, struct ibv_mr *smr, char *src,
		       struct ibv_mr *mr, char *area, size_t chunk, int n, int seed)
{
	int k;

	for (k = 0; k < n; k++) {
		char *dst = area + k * chunk + (k % 4) * e->page;

		memset(src, 0x5a, e->page);
		CHECK(!post_rdma(p->a.qp, IBV_WR_RDMA_READ, va(src), e->page, smr->lkey, va(dst),
				 mr->rkey, k), "post READ");
		TRY(expect_wc(e, p->a.cq, IBV_WC_SUCCESS, "READ back"));
		if (seed < 0)
			CHECK(check_byte(src, e->page, 0) < 0, "chunk %d not zero", k);
		else
			CHECK(check_fill(src, e->page, seed + k) < 0, "data of chunk %d", k);
	}
	return T_PASS;
}

/* Reclaim keeps children: MADV_PAGEOUT (swapped out if there is swap)
 * and MADV_DONTNEED (zapped: MMU_NOTIFY_CLEAR, not an unmap) invalidate
 * every page of the touched chunks, and no child is freed; the data comes
 * back (PAGEOUT) or reads as zeros (DONTNEED). */
int t_children_reclaim_keeps(struct env *e)
{
	long long c0, c1, f0, f1;
	size_t chunk, len;
	struct ibv_mr *mr;
	struct lb_pair p;
	char *area, *src;

	TRY(children_caps(e, &chunk));
	len = NCHUNKS * chunk;
	area = map_anon(len, chunk);
	src = map_anon(2 * e->page, e->page);
	CHECK(area && src, "mmap: %s", strerror(errno));
	TRY(test_mr(e, 1, NULL, 0, &mr));
	TRY(rc_pair_create(e, &p, NULL));
	TRY(touch_chunks(e, &p, mr, src, mr, area, chunk, NCHUNKS, 70));
	c0 = mrattr(e, mr, "odp_children");
	f0 = mrattr(e, mr, "odp_children_freed");

	CHECK(!madvise(area, len, MADV_PAGEOUT), "MADV_PAGEOUT: %s", strerror(errno));
	usleep(500000);
	c1 = mrattr(e, mr, "odp_children");
	f1 = mrattr(e, mr, "odp_children_freed");
	diag("after MADV_PAGEOUT: %lld children (%lld before), freed +%lld, %lld pages mapped, %ld resident",
	     c1, c0, f1 - f0, mrattr(e, mr, "odp_mapped_pages"), resident_pages(area, len));
	CHECK(c1 == c0 && f1 == f0, "MADV_PAGEOUT freed children");
	TRY(read_chunks(e, &p, mr, src, mr, area, chunk, NCHUNKS, 70));

	CHECK(!madvise(area, len, MADV_DONTNEED), "MADV_DONTNEED: %s", strerror(errno));
	usleep(500000);
	c1 = mrattr(e, mr, "odp_children");
	f1 = mrattr(e, mr, "odp_children_freed");
	diag("after MADV_DONTNEED: %lld children, freed +%lld, %lld pages mapped", c1, f1 - f0,
	     mrattr(e, mr, "odp_mapped_pages"));
	CHECK(c1 == c0 && f1 == f0, "MADV_DONTNEED freed children");
	TRY(read_chunks(e, &p, mr, src, mr, area, chunk, NCHUNKS, -1));
	lb_pair_destroy(&p);
	CHECK(!ibv_dereg_mr(mr), "dereg");
	munmap(area, len);
	munmap(src, 2 * e->page);
	return T_PASS;
}

#define RACE_SECONDS 15

struct remapper {
	char *p;
	size_t len;
	volatile int stop;
	long rounds, holes, fails;
};

/* Map new memory over p in a loop (MAP_FIXED: an unmap of the old pages
 * with no hole), every 8th round through a munmap first (a hole). */
static void *remap_loop(void *arg)
{
	struct remapper *r = arg;
	void *q;

	while (!r->stop) {
		if (!(r->rounds % 8)) {
			munmap(r->p, r->len);
			r->holes++;
			sched_yield();
		}
		q = mmap(r->p, r->len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (q != r->p)
			r->fails++;
		r->rounds++;
		sched_yield();
	}
	return NULL;
}

/* Stop the remapper thread once (it leaves the chunks mapped). */
static void remapper_stop(struct remapper *r, pthread_t th)
{
	if (r->stop)
		return;
	r->stop = 1;
	pthread_join(th, NULL);
}

/* An access got no completion within e->poll_ms while the remapper ran.
 * Each remap invalidates the chunks, so a fault on a slow (debug, TCG)
 * kernel may lose the race every time: the responder answers RNR NAK and
 * the requester, with rnr_retry 7 (unbounded), tries again for as long as
 * the remapper runs. That livelock is the adversary's, not a hang: stop
 * the remapper (it leaves the chunks mapped) and require the completion
 * within e->poll_ms more; none then is a hang. Says the counters either
 * way. Returns poll_one()'s result. */
static int remap_race_stalled(struct env *e, struct remapper *r, pthread_t th,
			      const struct odpc *c0, struct ibv_cq *cq, struct ibv_wc *wc)
{
	static const char *const names[] = { "rcvd_rnr_err", "send_rnr_err" };
	long long rnr[2];
	struct odpc c1, c2;
	int got;

	if (odpc_read(e, &c1) != T_PASS)
		return -1;
	hw_counters(e, names, rnr, 2);
	diag("no completion in %d ms while remapping: since the race began odp_rnr_naks +%ld, odp_fault_retries +%ld, odp_fault_errors +%ld, odp_faults +%ld, odp_invalidations +%ld; rcvd_rnr_err %lld, send_rnr_err %lld; stopping the remapper",
	     e->poll_ms, c1.rnr_naks - c0->rnr_naks, c1.retries - c0->retries,
	     c1.errors - c0->errors, c1.faults - c0->faults,
	     c1.invalidations - c0->invalidations, rnr[0], rnr[1]);
	remapper_stop(r, th);
	got = poll_one(e, cq, wc);
	if (odpc_read(e, &c2) != T_PASS)
		return -1;
	hw_counters(e, names, rnr, 2);
	diag("remapper stopped: %s; since then odp_rnr_naks +%ld, odp_faults +%ld, odp_fault_errors +%ld; rcvd_rnr_err %lld",
	     got == 1 ? wc_str(wc->status) : "still no completion", c2.rnr_naks - c1.rnr_naks,
	     c2.faults - c1.faults, c2.errors - c1.errors, rnr[0]);
	if (got != 1)
		diag("a hang: the fault cannot lose a race any more");
	return got;
}

/* One thread maps and unmaps two chunks in a loop while RDMA WRITEs and
 * READs through the implicit MR hit them: each completes with success, or
 * with a remote access error when it met the hole (the pair is then made
 * again); never a hang, never a kernel report (console gate). Children
 * are freed meanwhile and made again.
 *
 * One more ending is legitimate (KNOWN-ISSUES 15): a READ's ACK timer may
 * fire while the responder is still faulting (a slow kernel), so the READ
 * is sent again after it completed; the responder replays it from the
 * pages mapped now, meets the hole, answers a remote access error at that
 * old PSN, which the requester, past it, drops as a ghost, and goes to the
 * error state, where it drops the next request. Only the requester's
 * retry count ends that: rxe reads retry_cnt 7 as "forever" (stock rxe,
 * unlike the IBTA's seven retries), so the QPs here have retry_cnt 6, and
 * the next access completes with retry exceeded, accepted only when the
 * responder QP is in the error state. The ACK timeout is ~0.5 s, so that
 * seven in a row (~3.8 s) are not spent on a responder that is merely slow
 * (the debug kernel under TCG stalls past ~0.27 s in one run of 2). */
int t_children_remap_race(struct env *e)
{
	static const struct lb_qp_tune tune = { .retry_cnt = 6, .rnr_retry = 7,
						.min_rnr_timer = 12, .max_dest_rd_atomic = 16 };
	static const char *const hw[] = { "duplicate_request", "retry_exceeded_err" };
	long long hw0[2], hw1[2];
	int dead = 0;
	struct remapper r = { 0 };
	time_t t_end;
	long long f0, f1, c1;
	int i, n = 400, ok = 0, err = 0, got = 1, bad = 0, stalled = 0;
	struct odpc c0;
	size_t chunk;
	struct ibv_mr *mr;
	struct lb_pair p;
	struct ibv_wc wc;
	pthread_t th;
	char *src;

	TRY(children_caps(e, &chunk));
	r.len = 2 * chunk;
	r.p = map_anon(r.len, chunk);
	src = map_anon(2 * e->page, e->page);
	CHECK(r.p && src, "mmap: %s", strerror(errno));
	TRY(test_mr(e, 1, NULL, 0, &mr));
	TRY(rc_pair_create_tuned(e, &p, NULL, &tune, 17));
	hw_counters(e, hw, hw0, 2);
	f0 = mrattr(e, mr, "odp_children_freed");
	TRY(odpc_read(e, &c0));
	CHECK(!pthread_create(&th, NULL, remap_loop, &r), "pthread_create");
	/* at most RACE_SECONDS: the debug kernel under TCG is much slower */
	t_end = time(NULL) + RACE_SECONDS;
	for (i = 0; i < n && !r.stop && time(NULL) < t_end; i++) {
		/* 2 pages across the boundary of the two chunks */
		uint64_t dst = va(r.p) + chunk - e->page;

		fill(src, 2 * e->page, i);
		if (post_rdma(p.a.qp, i & 1 ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE, va(src),
			      2 * e->page, mr->lkey, dst, mr->rkey, i)) {
			bad = 1;
			break;
		}
		got = poll_one(e, p.a.cq, &wc);
		if (!got) {
			/* a livelock while the remapper runs, or a hang? */
			got = remap_race_stalled(e, &r, th, &c0, p.a.cq, &wc);
			if (got == 1)
				stalled++;
		}
		if (got != 1) {
			bad = 1;
			break;
		}
		if (wc.status == IBV_WC_SUCCESS) {
			ok++;
			continue;
		}
		if (wc.status == IBV_WC_RETRY_EXC_ERR && qp_state(p.b.qp) == IBV_QPS_ERR)
			dead++;	/* the responder failed a resent READ (above) */
		else if (wc.status == IBV_WC_REM_ACCESS_ERR)
			err++;
		else {
			bad = 1;
			break;
		}
		lb_pair_destroy(&p);
		if (rc_pair_create_tuned(e, &p, NULL, &tune, 17) != T_PASS) {
			remapper_stop(&r, th);
			return T_FAIL;
		}
	}
	remapper_stop(&r, th);
	f1 = mrattr(e, mr, "odp_children_freed");
	c1 = mrattr(e, mr, "odp_children");
	hw_counters(e, hw, hw1, 2);
	diag("%d accesses: %d ok, %d remote access errors, %d retry exceeded (responder in error); %ld remaps (%ld through a hole, %ld failed); children freed +%lld, %lld now; duplicate_request +%lld, retry_exceeded_err +%lld",
	     i, ok, err, dead, r.rounds, r.holes, r.fails, f1 - f0, c1, hw1[0] - hw0[0],
	     hw1[1] - hw0[1]);
	if (stalled)
		diag("access %d completed only once the remapper stopped", i);
	CHECK(!bad, "access %d: %s%s", i + 1,
	      got != 1 ? "no completion" : wc_str(wc.status),
	      got == 1 && wc.status == IBV_WC_RETRY_EXC_ERR ?
	      " with the responder QP not in the error state" : "");
	CHECK(!r.fails, "mmap MAP_FIXED failed");
	CHECK(ok > 0 && i >= 20, "%d accesses, %d succeeded", i, ok);
	lb_pair_destroy(&p);
	CHECK(!ibv_dereg_mr(mr), "dereg");
	munmap(r.p, r.len);
	munmap(src, 2 * e->page);
	return T_PASS;
}

#define NMRS 16

/* NMRS implicit MRs each touch NCHUNKS chunks, then the chunks are
 * unmapped and every MR is deregistered at once, while their children's
 * frees are pending: deregistration frees each child once (the console
 * gate fails on a report), and the MRs are gone. */
int t_children_dereg_pending(struct env *e)
{
	struct ibv_mr *mr[NMRS];
	size_t chunk, len;
	struct lb_pair p;
	char *area, *src;
	int i, k, before;

	TRY(children_caps(e, &chunk));
	if (!(e->attr.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT))
		ST_SKIP(e, "%s does not advertise IBV_ODP_SUPPORT_IMPLICIT", e->dev_name);
	len = NCHUNKS * chunk;
	area = map_anon(len, chunk);
	src = map_anon(e->page, e->page);
	CHECK(area && src, "mmap: %s", strerror(errno));
	before = mr_count(e->dev_name);
	TRY(rc_pair_create(e, &p, NULL));
	for (i = 0; i < NMRS; i++) {
		mr[i] = reg(e, NULL, SIZE_MAX, ODP_ACC);
		CHECK(mr[i], "implicit MR %d", i);
		for (k = 0; k < NCHUNKS; k++) {
			fill(src, e->page, i + k);
			CHECK(!post_rdma(p.a.qp, IBV_WR_RDMA_WRITE, va(src), e->page, mr[i]->lkey,
					 va(area + k * chunk), mr[i]->rkey, k), "post WRITE");
			TRY(expect_wc(e, p.a.cq, IBV_WC_SUCCESS, "WRITE into a chunk"));
		}
		CHECK(mrattr(e, mr[i], "odp_children") == NCHUNKS + 1,
		      "MR %d: %lld children", i, mrattr(e, mr[i], "odp_children"));
	}
	lb_pair_destroy(&p);
	CHECK(!munmap(area, len), "munmap");
	for (i = 0; i < NMRS; i++)
		CHECK(!ibv_dereg_mr(mr[i]), "dereg %d", i);
	CHECK(mr_count(e->dev_name) == before, "MRs left: %d, before %d",
	      mr_count(e->dev_name), before);
	munmap(src, e->page);
	return T_PASS;
}

#define BOUND_MAX 4
#define BOUND_CHUNKS 16

/* The module-wide bound on live children, at BOUND_MAX (the guest runs
 * these tests alone, so this process's MR holds all of them): touching
 * BOUND_CHUNKS chunks leaves at most BOUND_MAX children once the reap
 * work is done, odp_children_evicted counts the rest, and every chunk,
 * its child evicted, reads back through rxe with the data written. */
static int bounded(struct env *e, int implicit)
{
	long long c1, c2, ev1, ev2, f0, f1;
	struct chunks c;
	int i;

	TRY(chunks_open(e, implicit, BOUND_CHUNKS, &c));
	f0 = mrattr(e, c.mr, "odp_children_freed");

	TRY(touch_chunks(e, &c.p, c.smr, c.src, c.mr, c.area, c.chunk, BOUND_CHUNKS, 20));
	c1 = wait_children_cmp(e, c.mr, BOUND_MAX, 1, REAP_WAIT_MS);
	ev1 = mrattr(e, c.mr, "odp_children_evicted");
	/* the reap work frees the evicted ones: wait for the last of them */
	f1 = mrattr(e, c.mr, "odp_children_freed");
	for (i = 0; f1 - f0 < ev1 && i < REAP_WAIT_MS / 10; i++) {
		usleep(10000);
		f1 = mrattr(e, c.mr, "odp_children_freed");
	}
	diag("%s MR, odp_max_children %d: %d chunks touched, %lld children left, %lld evicted, %lld freed",
	     implicit ? "implicit" : "explicit", BOUND_MAX, BOUND_CHUNKS, c1, ev1, f1 - f0);
	CHECK(ev1 >= 0, "no odp_children_evicted attribute: not this rxe-odp");
	CHECK(c1 <= BOUND_MAX, "%lld children past the bound of %d", c1, BOUND_MAX);
	CHECK(ev1 >= BOUND_CHUNKS - BOUND_MAX, "odp_children_evicted %lld, want >= %d", ev1,
	      BOUND_CHUNKS - BOUND_MAX);
	CHECK(f1 - f0 == ev1, "odp_children_freed +%lld, evicted %lld (nothing was unmapped)",
	      f1 - f0, ev1);

	/* every chunk again: made anew, the data there, still bounded */
	TRY(read_chunks(e, &c.p, c.smr, c.src, c.mr, c.area, c.chunk, BOUND_CHUNKS, 20));
	c2 = wait_children_cmp(e, c.mr, BOUND_MAX, 1, REAP_WAIT_MS);
	ev2 = mrattr(e, c.mr, "odp_children_evicted");
	diag("read back: %lld children left, %lld more evicted", c2, ev2 - ev1);
	CHECK(c2 <= BOUND_MAX, "%lld children past the bound of %d after reading back", c2,
	      BOUND_MAX);
	CHECK(ev2 > ev1, "reading back %d evicted chunks evicted nothing", BOUND_CHUNKS);

	return chunks_close(e, &c);
}

/* bounded() with odp_max_children at BOUND_MAX, put back whatever happens */
static int bounded_with_limit(struct env *e, int implicit)
{
	long long old = rxe_param("odp_max_children");
	int r;

	if (old < 0)
		ST_SKIP(e, "no odp_max_children parameter: not this rxe-odp");
	CHECK(!rxe_param_set("odp_max_children", BOUND_MAX), "cannot set odp_max_children: %s",
	      strerror(errno));
	r = bounded(e, implicit);
	CHECK(!rxe_param_set("odp_max_children", old), "cannot put odp_max_children back to %lld",
	      old);
	return r;
}

int t_children_bounded_explicit(struct env *e)
{
	return bounded_with_limit(e, 0);
}

int t_children_bounded_implicit(struct env *e)
{
	return bounded_with_limit(e, 1);
}

/* The default bound, as a peer with the rkey of a huge reservation meets
 * it: an explicit ODP MR over a never-touched MAP_NORESERVE reservation of
 * DEFAULT_EXTRA chunks more than the bound (chunks covering four times
 * MemTotal), one 4 KiB RDMA READ from each chunk (the zero page: no memory
 * but page tables, which the owner's memory cgroup pays for).  Without the
 * bound every chunk kept its child (~8.6 KiB of kernel memory each, no
 * cgroup charged); with it, at most the bound stay, the others are
 * evicted, and every READ completes with zeros. */
#define DEFAULT_EXTRA 256

int t_children_bound_default(struct env *e)
{
	long long mem = meminfo_kib("MemTotal"), max, c1, ev;
	size_t chunk, len, k, n;
	struct ibv_mr *mr, *smr;
	struct lb_pair p;
	char *area, *dst;

	TRY(children_caps(e, &chunk));
	if (rxe_param("odp_max_children") != 0)
		ST_SKIP(e, "odp_max_children is %lld, not the default 0", rxe_param("odp_max_children"));
	CHECK(mem > 0, "no MemTotal in /proc/meminfo");
	max = 4 * mem * 1024 / (long long)chunk;
	n = (size_t)max + DEFAULT_EXTRA;
	len = n * chunk;
	area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		    -1, 0);
	CHECK(area != MAP_FAILED, "mmap %zu MiB MAP_NORESERVE: %s", len >> 20, strerror(errno));
	dst = map_anon(e->page, e->page);
	CHECK(dst, "mmap");
	mr = reg(e, area, len, ODP_ACC);
	CHECK(mr, "ODP registration of %zu MiB", len >> 20);
	smr = reg(e, dst, e->page, PIN_ACC);
	CHECK(smr, "pinned MR");
	TRY(rc_pair_create(e, &p, NULL));

	for (k = 0; k < n; k++) {
		memset(dst, 0x5a, e->page);
		CHECK(!post_rdma(p.a.qp, IBV_WR_RDMA_READ, va(dst), e->page, smr->lkey,
				 va(area + k * chunk), mr->rkey, k), "post READ");
		TRY(expect_wc(e, p.a.cq, IBV_WC_SUCCESS, "READ of a never-touched chunk"));
		CHECK(check_byte(dst, e->page, 0) < 0, "chunk %zu did not read as zeros", k);
	}
	c1 = wait_children_cmp(e, mr, max, 1, REAP_WAIT_MS);
	ev = mrattr(e, mr, "odp_children_evicted");
	diag("MemTotal %lld MiB: bound %lld children (%lld MiB of chunks); %zu chunks read, %lld children left, %lld evicted",
	     mem >> 10, max, max * (long long)(chunk >> 20), n, c1, ev);
	CHECK(c1 <= max, "%lld children past the default bound of %lld", c1, max);
	CHECK(ev >= DEFAULT_EXTRA, "odp_children_evicted %lld, want >= %d", ev, DEFAULT_EXTRA);

	lb_pair_destroy(&p);
	CHECK(!ibv_dereg_mr(smr), "dereg");
	CHECK(!ibv_dereg_mr(mr), "dereg");
	munmap(area, len);
	munmap(dst, e->page);
	return T_PASS;
}
