/* odp-selftest: RDMA FLUSH of a whole ODP MR (placement type "MR",
 * IB_FLUSH_MR): an implicit MR (2^64 bytes from iova 0) and an explicit
 * one of more than 4 GiB over MAP_NORESERVE memory, each with a few
 * children.  rxe flushes the whole MR for it, with the MR's 64-bit length
 * (patch 0035: stock rxe cut it to 32 bits); the ODP side writes back only
 * what it maps, walks only the children that exist and faults nothing in.
 * A global-visibility FLUSH goes through the MR's rkey (it allows
 * IB_ACCESS_FLUSH_GLOBAL); a persistent one through a type-2 window with
 * IB_ACCESS_FLUSH_PERSISTENT, which registration refuses an ODP MR
 * (KNOWN-ISSUES 10: the window may carry it).  Every FLUSH must complete
 * successfully within the poll limit, and no fault, mapped page or child
 * may appear.  Without pmem the write-back itself cannot be seen; the
 * MR's odp_pages_flushed counts the pages written back: every mapped page
 * for a persistent FLUSH of the whole MR (stock's 32-bit length reached
 * none of the implicit MR's, and only the first 2 GiB of the explicit
 * one), one for the window's page, none for a global one. */
#include "st.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* IBV_ODP_SUPPORT_FLUSH (rdma-core 58 on; 44's headers lack it) */
#define FL_ODP_FLUSH (1u << 6)
#define FL_TOUCHED 4
#define FL_EXPLICIT_LEN (6UL << 30)
#define FL_ACC (ODP_ACC | IBV_ACCESS_MW_BIND | RING_ACCESS_FLUSH_GLOBAL)
#define FL_QP_ACC (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC | \
		   IBV_ACCESS_LOCAL_WRITE | RING_ACCESS_FLUSH_GLOBAL | RING_ACCESS_FLUSH_PERSISTENT)

static double fl_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One FLUSH from QP a that must complete successfully and write back
 * exactly want pages of mr (its odp_pages_flushed). */
static int flush_ok(struct env *e, struct lb_pair *p, struct ibv_mr *mr, uint64_t raddr,
		    uint32_t rkey, uint8_t type, uint8_t level, long long want, const char *what)
{
	long long f0 = mr_driver_attr(e->dev_name, mr->lkey, "odp_pages_flushed"), f1;
	double t0 = fl_now_ms();

	CHECK(f0 >= 0, "the MR has no driver attribute odp_pages_flushed");
	CHECK(!post_flush(p->a.qp, raddr, (uint32_t)e->page, rkey, type, level, 9),
	      "%s: post", what);
	TRY(expect_wc(e, p->a.cq, IBV_WC_SUCCESS, what));
	f1 = mr_driver_attr(e->dev_name, mr->lkey, "odp_pages_flushed");
	diag("%s: completed in %.1f ms, %lld pages written back", what, fl_now_ms() - t0,
	     f1 - f0);
	CHECK(f1 - f0 == want, "%s wrote back %lld pages, expected %lld", what, f1 - f0, want);
	return T_PASS;
}

static int flush_whole_mr(struct env *e, int implicit)
{
	/* of the explicit MR: two pages above 4 GiB, the last one its last */
	const size_t expl_off[FL_TOUCHED] = { 0, 3UL << 30, (4UL << 30) + 5 * e->page,
					      FL_EXPLICIT_LEN - e->page };
	size_t chunk = chunk_size(), len;
	long long c0, c1;
	struct ibv_mr *mr, *smr;
	struct mrc m0, m1;
	struct odpc d0, d1;
	struct ibv_mw *mw;
	struct lb_pair p;
	char *area, *src, *dst[FL_TOUCHED];
	uint64_t base;
	int k;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	if (!(e->attr.odp_caps.per_transport_caps.rc_odp_caps & FL_ODP_FLUSH))
		ST_SKIP(e, "%s does not advertise RDMA FLUSH on ODP MRs", e->dev_name);
	if (implicit && !(e->attr.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT))
		ST_SKIP(e, "%s does not advertise IBV_ODP_SUPPORT_IMPLICIT", e->dev_name);
	if (!chunk)
		ST_SKIP(e, "no odp_child_shift parameter: not rxe-odp's children");

	/* touched: a page in each of FL_TOUCHED chunks */
	len = implicit ? FL_TOUCHED * chunk : FL_EXPLICIT_LEN;
	area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		    -1, 0);
	src = map_anon(e->page, e->page);
	CHECK(area != MAP_FAILED && src, "mmap %zu MAP_NORESERVE: %s", len, strerror(errno));
	for (k = 0; k < FL_TOUCHED; k++)
		dst[k] = area + (implicit ? k * chunk + k * e->page : expl_off[k]);
	mr = implicit ? reg(e, NULL, SIZE_MAX, FL_ACC) : reg(e, area, len, FL_ACC);
	CHECK(mr, "%s ODP registration with MW_BIND and FLUSH_GLOBAL",
	      implicit ? "implicit" : "explicit");
	smr = reg(e, src, e->page, PIN_ACC);
	CHECK(smr, "source MR");
	base = implicit ? 0 : va(area);
	CHECK(mr->length == (implicit ? SIZE_MAX : len), "MR length %zu", mr->length);
	TRY(rc_pair_create(e, &p, NULL));
	{
		struct ibv_qp_attr a = { .qp_access_flags = FL_QP_ACC };

		CHECK(!ibv_modify_qp(p.b.qp, &a, IBV_QP_ACCESS_FLAGS),
		      "QP b: FLUSH_GLOBAL|FLUSH_PERSISTENT access: %s", strerror(errno));
	}

	for (k = 0; k < FL_TOUCHED; k++) {
		fill(src, e->page, 60 + k);
		CHECK(!post_rdma(p.a.qp, IBV_WR_RDMA_WRITE, va(src), e->page, smr->lkey, va(dst[k]),
				 mr->rkey, k), "post WRITE");
		TRY(expect_wc(e, p.a.cq, IBV_WC_SUCCESS, "WRITE into a chunk of the MR"));
	}
	/* the window: one touched page, global and persistent access */
	TRY(bind_mw2(e, &p.b, mr, va(dst[1]), e->page,
		     IBV_ACCESS_REMOTE_WRITE | RING_ACCESS_FLUSH_GLOBAL | RING_ACCESS_FLUSH_PERSISTENT,
		     &mw));

	c0 = mr_driver_attr(e->dev_name, mr->lkey, "odp_children");
	TRY(mrc_read(e, mr, &m0));
	TRY(odpc_read(e, &d0));
	diag("%s MR of %#zx bytes: %lld children, %lld pages mapped", implicit ? "implicit" :
	     "explicit", mr->length, c0, m0.mapped);
	CHECK(c0 >= FL_TOUCHED && m0.mapped >= FL_TOUCHED, "the WRITEs left no children");

	/* a persistent FLUSH of the whole MR writes back every page mapped */
	TRY(flush_ok(e, &p, mr, base, mr->rkey, RING_FLUSH_GLOBAL, RING_FLUSH_MR, 0,
		     "global FLUSH of the whole MR, MR's rkey"));
	TRY(flush_ok(e, &p, mr, va(dst[1]), mw->rkey, RING_FLUSH_PERSISTENT, RING_FLUSH_MR,
		     m0.mapped, "persistent FLUSH of the whole MR, window's rkey"));
	TRY(flush_ok(e, &p, mr, va(dst[1]), mw->rkey, RING_FLUSH_PERSISTENT | RING_FLUSH_GLOBAL,
		     RING_FLUSH_MR, m0.mapped,
		     "persistent+global FLUSH of the whole MR, window's rkey"));
	TRY(flush_ok(e, &p, mr, va(dst[1]), mw->rkey, RING_FLUSH_PERSISTENT, RING_FLUSH_RANGE, 1,
		     "persistent FLUSH of the window's page"));

	c1 = mr_driver_attr(e->dev_name, mr->lkey, "odp_children");
	TRY(mrc_read(e, mr, &m1));
	TRY(odpc_read(e, &d1));
	mrc_diag("the FLUSHes", &m0, &m1);
	CHECK(c1 == c0, "children %lld -> %lld: a FLUSH made children", c0, c1);
	CHECK(m1.faults == m0.faults && m1.pages_faulted == m0.pages_faulted &&
	      m1.mapped == m0.mapped && m1.errors == m0.errors,
	      "a FLUSH faulted (per-MR faults +%lld, pages +%lld, mapped %lld -> %lld, errors +%lld)",
	      m1.faults - m0.faults, m1.pages_faulted - m0.pages_faulted, m0.mapped, m1.mapped,
	      m1.errors - m0.errors);
	CHECK(d1.faults == d0.faults && d1.pages_faulted == d0.pages_faulted,
	      "device odp_faults +%ld, odp_pages_faulted +%ld during the FLUSHes",
	      d1.faults - d0.faults, d1.pages_faulted - d0.pages_faulted);
	for (k = 0; k < FL_TOUCHED; k++)
		CHECK(check_fill(dst[k], e->page, 60 + k) < 0, "data of page %d changed", k);

	ibv_dealloc_mw(mw);
	lb_pair_destroy(&p);
	CHECK(!ibv_dereg_mr(smr) && !ibv_dereg_mr(mr), "dereg");
	munmap(area, len);
	munmap(src, e->page);
	return T_PASS;
}

int t_flush_mr_implicit(struct env *e)
{
	return flush_whole_mr(e, 1);
}

int t_flush_mr_explicit_big(struct env *e)
{
	return flush_whole_mr(e, 0);
}
