/* odp-selftest: lazy ODP translation (children made on first use) and
 * implicit ODP (one MR for the whole address space, issue 14).
 * Per-MR attributes come from "rdma resource show mr -dd". */
#include "st.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long long mrattr(struct env *e, struct ibv_mr *mr, const char *name)
{
	return mr_driver_attr(e->dev_name, mr->lkey, name);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define REG_RUNS 9
#define REG_SIZES 5

/* Registration of never-touched MAP_NORESERVE memory, 4 KiB .. 1 TiB, 9
 * registrations per size, the sizes interleaved (one of each per round, so
 * a busy moment of the host hits them alike). All must register, and the
 * cost must not grow with the size: the fastest registration of each size
 * (noise on a shared host only ever adds time) within 10x of the fastest of
 * any other. Work per page fails that by orders of magnitude (before
 * children: 1 GiB ~100x 4 KiB, 64 GiB ~4000x, 1 TiB ENOMEM); the goal of
 * issue 14 itself, largest/smallest median <= 2, is a measurement with an
 * interval, made by bench/run.sh's reg step on an idle host, not a pass
 * criterion on a host whose load a test cannot choose. */
int t_reg_size(struct env *e)
{
	static const size_t sizes[REG_SIZES] = { 4096, 1UL << 20, 1UL << 30, 64UL << 30,
						 1UL << 40 };
	static const char *const names[REG_SIZES] = { "4 KiB", "1 MiB", "1 GiB", "64 GiB",
						      "1 TiB" };
	double t[REG_SIZES][REG_RUNS], d[REG_SIZES], med, lo = 0, hi = 0, mlo = 0, mhi = 0, t0;
	void *p[REG_SIZES];
	struct ibv_mr *mr;
	size_t i;
	int k;

	if (!has_odp(e))
		ST_SKIP(e, "%s has no ODP", e->dev_name);
	for (i = 0; i < REG_SIZES; i++) {
		p[i] = mmap(NULL, sizes[i], PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		CHECK(p[i] != MAP_FAILED, "mmap %s MAP_NORESERVE: %s", names[i], strerror(errno));
		d[i] = 0;
	}
	/* the first ODP MR of a process hooks the mm into page aging: not timed */
	mr = reg(e, p[0], sizes[0], ODP_ACC);
	CHECK(mr, "warm-up ODP registration");
	CHECK(!ibv_dereg_mr(mr), "dereg");

	for (k = 0; k < REG_RUNS; k++) {
		for (i = 0; i < REG_SIZES; i++) {
			t0 = now_us();
			mr = reg(e, p[i], sizes[i], ODP_ACC);
			t[i][k] = now_us() - t0;
			CHECK(mr, "ODP registration of %s of untouched memory", names[i]);
			t0 = now_us();
			CHECK(!ibv_dereg_mr(mr), "dereg");
			d[i] += now_us() - t0;
		}
	}
	for (i = 0; i < REG_SIZES; i++) {
		munmap(p[i], sizes[i]);
		qsort(t[i], REG_RUNS, sizeof(t[i][0]), cmp_double);
		med = t[i][REG_RUNS / 2];
		diag("ODP registration of %6s: median %8.1f us (min %.1f, max %.1f), dereg mean %.1f us",
		     names[i], med, t[i][0], t[i][REG_RUNS - 1], d[i] / REG_RUNS);
		if (!i || med < mlo)
			mlo = med;
		if (!i || med > mhi)
			mhi = med;
		if (!i || t[i][0] < lo)
			lo = t[i][0];
		if (!i || t[i][0] > hi)
			hi = t[i][0];
	}
	diag("largest/smallest median: %.2f, largest/smallest minimum: %.2f", mhi / mlo, hi / lo);
	CHECK(hi <= 10 * lo, "registration cost depends on the size: fastest %.1f us vs %.1f us",
	      hi, lo);
	return T_PASS;
}

/* The implicit MR of the test, or a skip when the device has none. */
static int implicit_mr(struct env *e, struct ibv_mr **mr)
{
	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
			IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_ATOMIC));
	if (!(e->attr.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT))
		ST_SKIP(e, "%s does not advertise IBV_ODP_SUPPORT_IMPLICIT", e->dev_name);
	*mr = reg(e, NULL, SIZE_MAX, ODP_ACC);
	CHECK(*mr, "implicit ODP registration");
	return T_PASS;
}

/* One implicit MR, no other: WRITE, READ, SEND/RECV, fetch-add and
 * compare-swap between buffers that were never registered, both keys of
 * the implicit MR; the per-MR attributes show children and mapped pages;
 * an unmapped address fails as on an explicit MR. */
int t_implicit_rdma(struct env *e)
{
	size_t n = 600, len = n * e->page;	/* > 2 MiB: spans children */
	char *src, *dst, *gone;
	struct lb_pair p;
	struct ibv_mr *mr;
	uint64_t *word, *res;
	long long children, mapped;

	TRY(implicit_mr(e, &mr));
	CHECK(mrattr(e, mr, "odp_children") == 0, "a fresh implicit MR has children");
	/* the pair first: its rings are mmap'd and could land in the hole */
	TRY(rc_pair_create(e, &p, NULL));
	src = map_anon(len, e->page);
	dst = map_anon(len, e->page);
	gone = map_anon(len, e->page);
	CHECK(src && dst && gone, "mmap: %s", strerror(errno));
	CHECK(!munmap(gone, len), "munmap");

	fill(src, len, 21);
	CHECK(!post_rdma(p.a.qp, IBV_WR_RDMA_WRITE, va(src), len, mr->lkey, va(dst), mr->rkey, 1),
	      "post WRITE");
	TRY(expect_wc(e, p.a.cq, IBV_WC_SUCCESS, "RDMA WRITE, implicit lkey and rkey"));
	CHECK(check_fill(dst, len, 21) < 0, "RDMA WRITE data wrong");

	memset(src, 0, len);
	CHECK(!post_rdma(p.a.qp, IBV_WR_RDMA_READ, va(src), len, mr->lkey, va(dst), mr->rkey, 2),
	      "post READ");
	TRY(expect_wc(e, p.a.cq, IBV_WC_SUCCESS, "RDMA READ, implicit lkey and rkey"));
	CHECK(check_fill(src, len, 21) < 0, "RDMA READ data wrong");

	fill(src, e->page, 22);
	memset(dst, 0, e->page);
	CHECK(!post_recv(p.b.qp, va(dst), e->page, mr->lkey, 3), "post RECV");
	CHECK(!post_rdma(p.a.qp, IBV_WR_SEND, va(src), e->page, mr->lkey, 0, 0, 4), "post SEND");
	TRY(expect_wc(e, p.a.cq, IBV_WC_SUCCESS, "SEND from an implicit MR"));
	TRY(expect_wc(e, p.b.cq, IBV_WC_SUCCESS, "RECV into an implicit MR"));
	CHECK(check_fill(dst, e->page, 22) < 0, "SEND data wrong");

	word = (uint64_t *)(dst + len - 8);
	res = (uint64_t *)src;
	*word = 40;
	CHECK(!post_atomic(p.a.qp, IBV_WR_ATOMIC_FETCH_AND_ADD, va(res), mr->lkey, va(word),
			   mr->rkey, 2, 0), "post fetch-add");
	TRY(expect_wc(e, p.a.cq, IBV_WC_SUCCESS, "fetch-add on an implicit MR"));
	CHECK(*res == 40 && *word == 42, "fetch-add: got %llu, word %llu",
	      (unsigned long long)*res, (unsigned long long)*word);
	CHECK(!post_atomic(p.a.qp, IBV_WR_ATOMIC_CMP_AND_SWP, va(res), mr->lkey, va(word),
			   mr->rkey, 42, 7), "post compare-swap");
	TRY(expect_wc(e, p.a.cq, IBV_WC_SUCCESS, "compare-swap on an implicit MR"));
	CHECK(*res == 42 && *word == 7, "compare-swap: got %llu, word %llu",
	      (unsigned long long)*res, (unsigned long long)*word);

	children = mrattr(e, mr, "odp_children");
	mapped = mrattr(e, mr, "odp_mapped_pages");
	diag("implicit MR after traffic over 2 x %zu pages: %lld children, %lld pages mapped",
	     n, children, mapped);
	CHECK(children >= 2 && children <= 8, "children: %lld", children);
	CHECK(mapped >= (long long)n && mapped <= 2 * (long long)n + 64, "mapped pages: %lld",
	      mapped);

	/* an unmapped address: remote access error, as on an explicit MR */
	CHECK(!post_rdma(p.a.qp, IBV_WR_RDMA_WRITE, va(src), e->page, mr->lkey, va(gone),
			 mr->rkey, 5), "post WRITE to unmapped");
	TRY(expect_wc(e, p.a.cq, IBV_WC_REM_ACCESS_ERR, "RDMA WRITE to an unmapped address"));

	lb_pair_destroy(&p);
	CHECK(!ibv_dereg_mr(mr), "dereg of the implicit MR");
	munmap(src, len);
	munmap(dst, len);
	return T_PASS;
}

/* The local side: an lkey of the implicit MR on an unmapped address
 * completes with a local protection error. */
int t_implicit_local_err(struct env *e)
{
	struct lb_pair p;
	struct ibv_mr *mr;
	char *dst, *gone;

	TRY(implicit_mr(e, &mr));
	dst = map_anon(e->page, e->page);
	gone = map_anon(e->page, e->page);
	CHECK(dst && gone, "mmap");
	TRY(rc_pair_create(e, &p, NULL));
	/* unmapped only now: the QP's and CQ's own mmaps could reuse the hole */
	CHECK(!munmap(gone, e->page), "munmap");
	CHECK(!post_rdma(p.a.qp, IBV_WR_RDMA_WRITE, va(gone), e->page, mr->lkey, va(dst), mr->rkey,
			 1), "post WRITE from unmapped");
	TRY(expect_wc(e, p.a.cq, IBV_WC_LOC_PROT_ERR, "RDMA WRITE from an unmapped address"));
	lb_pair_destroy(&p);
	CHECK(!ibv_dereg_mr(mr), "dereg");
	munmap(dst, e->page);
	return T_PASS;
}

/* Edge cases of registration: length 0, SIZE_MAX at a non-zero address,
 * a range that wraps, an implicit MR with a non-zero iova are refused;
 * many implicit MRs in one process, each used, all deregister. */
int t_implicit_edges(struct env *e)
{
	struct ibv_mr *mr, *many[16];
	struct lb_pair p;
	char *buf;
	int i;

	TRY(implicit_mr(e, &mr));
	CHECK(!ibv_dereg_mr(mr), "dereg");
	buf = map_anon(2 * e->page, e->page);
	CHECK(buf, "mmap");

	errno = 0;
	mr = ibv_reg_mr(e->dev.pd, buf, 0, ODP_ACC);
	CHECK(!mr, "length 0 registered");
	mr = ibv_reg_mr(e->dev.pd, (void *)(uintptr_t)e->page, SIZE_MAX, ODP_ACC);
	CHECK(!mr, "SIZE_MAX at a non-zero address registered");
	mr = ibv_reg_mr(e->dev.pd, (void *)(uintptr_t)(0 - 2 * e->page), 4 * e->page, ODP_ACC);
	CHECK(!mr, "a wrapping range registered");
	mr = ibv_reg_mr_iova(e->dev.pd, NULL, SIZE_MAX, e->page, ODP_ACC);
	CHECK(!mr, "an implicit MR with iova %ld registered", e->page);

	TRY(rc_pair_create(e, &p, NULL));
	for (i = 0; i < 16; i++) {
		many[i] = reg(e, NULL, SIZE_MAX, ODP_ACC);
		CHECK(many[i], "implicit MR %d", i);
	}
	for (i = 0; i < 16; i++) {
		fill(buf, e->page, 30 + i);
		CHECK(!post_rdma(p.a.qp, IBV_WR_RDMA_WRITE, va(buf), e->page, many[i]->lkey,
				 va(buf + e->page), many[(i + 1) % 16]->rkey, i), "post");
		TRY(expect_wc(e, p.a.cq, IBV_WC_SUCCESS, "WRITE between implicit MRs"));
		CHECK(check_fill(buf + e->page, e->page, 30 + i) < 0, "data of MR %d", i);
	}
	lb_pair_destroy(&p);
	for (i = 0; i < 16; i++)
		CHECK(!ibv_dereg_mr(many[i]), "dereg %d", i);
	munmap(buf, 2 * e->page);
	return T_PASS;
}
