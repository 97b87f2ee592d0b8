/* odp-selftest: edge cases of ODP registration (issue 14), with the errno
 * each one must give, and an implicit MR's access flags enforced:
 *   - 1 TiB of never-touched MAP_NORESERVE memory registers as an explicit
 *     ODP MR and is usable at any page, mapping only what is used;
 *   - length 0 is EINVAL, for ODP as for a pinned MR (the RDMA core's
 *     ib_umem_get() answer stock rdma-core meets);
 *   - a range whose end wraps past 2^64 is EOVERFLOW: the ODP core's
 *     ib_umem_odp_get() answer for mlx5, and rxe's for a pinned MR whose
 *     iova range wraps (patch 0022);
 *   - SIZE_MAX at a non-zero address (not the implicit convention) is
 *     EINVAL from libibverbs, which never asks the kernel; asked directly
 *     (uverbs' REG_MR), the kernel answers EOVERFLOW, as it wraps;
 *   - implicit ODP is NULL/SIZE_MAX with iova 0 and without HUGETLB (else
 *     EINVAL); remote write or atomic access without local write is EINVAL
 *     (ib_check_mr_access()); every other combination registers, and its
 *     rkey allows exactly the remote accesses its flags grant, its lkey
 *     local writes only with LOCAL_WRITE.
 * Part of main.c's translation unit, on the harness directly. */

#include "uverbs.h"

/* ibv_reg_mr_iova() must fail with errno want. */
static int re_refused(struct env *e, void *addr, size_t len, uint64_t iova, int acc, int want,
		      const char *what)
{
	struct ibv_mr *mr;
	int err;

	errno = 0;
	mr = ibv_reg_mr_iova(e->dev.pd, addr, len, iova, acc);
	err = errno;
	if (mr)
		ibv_dereg_mr(mr);
	CHECK(!mr, "%s: registered", what);
	CHECK(err == want, "%s: errno %d (%s), expected %d (%s)", what, err, strerror(err), want,
	      strerror(want));
	diag("%s: refused, %s", what, strerror(err));
	return T_PASS;
}

/* The same through uverbs' REG_MR command directly, past libibverbs. */
static int re_raw_refused(struct env *e, uint64_t start, uint64_t len, uint64_t iova, int acc,
			  int want, const char *what)
{
	uint32_t handle;
	int err = uv_reg_mr(e->dev.pd, start, len, iova, acc, &handle);

	if (!err)
		uv_dereg_mr(e->dev.ctx, handle);
	CHECK(err, "%s: registered", what);
	CHECK(err == want, "%s: errno %d (%s), expected %d (%s)", what, err, strerror(err), want,
	      strerror(want));
	diag("%s: refused, %s", what, strerror(err));
	return T_PASS;
}

static int t_reg_1tib(struct env *e)
{
	const size_t len = 1UL << 40, mid = len / 2 + 3 * e->page;
	struct lb_pair p;
	struct ibv_mr *mr, *lmr;
	char *big, *loc;
	long long children, mapped;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	big = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		   -1, 0);
	CHECK(big != MAP_FAILED, "mmap 1 TiB MAP_NORESERVE: %s", strerror(errno));
	loc = map_anon(2 * e->page, e->page);
	CHECK(loc, "mmap");
	mr = reg(e, big, len, ODP_ACC);
	CHECK(mr, "explicit ODP registration of 1 TiB of untouched memory");
	CHECK(mr->length == len, "MR length %zu", mr->length);
	lmr = reg(e, loc, 2 * e->page, ODP_ACC);
	CHECK(lmr, "ODP MR of the local buffer");
	TRY(rc_pair_create(e, &p, NULL));

	/* the first page, one in the middle, the last: WRITE and READ back */
	const size_t at[] = { 0, mid, len - e->page };
	for (size_t i = 0; i < 3; i++) {
		fill(loc, e->page, 50 + i);
		CHECK(!post_rdma(p.a.qp, IBV_WR_RDMA_WRITE, va(loc), e->page, lmr->lkey,
				 va(big + at[i]), mr->rkey, i), "post WRITE");
		TRY(expect_wc(e, p.a.cq, IBV_WC_SUCCESS, "RDMA WRITE into the 1 TiB MR"));
		CHECK(check_fill(big + at[i], e->page, 50 + i) < 0, "WRITE at %zu: data", at[i]);
		CHECK(!post_rdma(p.a.qp, IBV_WR_RDMA_READ, va(loc + e->page), e->page, lmr->lkey,
				 va(big + at[i]), mr->rkey, 10 + i), "post READ");
		TRY(expect_wc(e, p.a.cq, IBV_WC_SUCCESS, "RDMA READ from the 1 TiB MR"));
		CHECK(check_fill(loc + e->page, e->page, 50 + i) < 0, "READ at %zu: data", at[i]);
	}
	children = mr_driver_attr(e->dev_name, mr->lkey, "odp_children");
	mapped = mr_driver_attr(e->dev_name, mr->lkey, "odp_mapped_pages");
	diag("1 TiB explicit ODP MR after 3 pages used: %lld children, %lld pages mapped",
	     children, mapped);
	/* fault-ahead stays within a child: one child per chunk used */
	CHECK(children == 3, "children: %lld, expected 3 (one per chunk used)", children);
	CHECK(mapped >= 3 && mapped <= 3 * 512, "mapped pages: %lld", mapped);
	lb_pair_destroy(&p);
	CHECK(!ibv_dereg_mr(lmr), "dereg");
	CHECK(!ibv_dereg_mr(mr), "dereg of the 1 TiB MR");
	munmap(loc, 2 * e->page);
	munmap(big, len);
	return T_PASS;
}

static int t_reg_edge_errno(struct env *e)
{
	char *buf;
	uint64_t top = 0 - 2 * (uint64_t)e->page;
	int hugetlb = ODP_ACC | IBV_ACCESS_HUGETLB;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE));
	buf = map_anon(2 * e->page, e->page);
	CHECK(buf, "mmap");
	TRY(re_refused(e, buf, 0, va(buf), ODP_ACC, EINVAL, "ODP MR of length 0"));
	TRY(re_refused(e, buf, 0, va(buf), PIN_ACC, EINVAL, "pinned MR of length 0 (control)"));
	TRY(re_refused(e, (void *)(uintptr_t)top, 4 * e->page, top, ODP_ACC, EOVERFLOW,
		       "ODP MR whose address range wraps past 2^64"));
	TRY(re_refused(e, buf, SIZE_MAX - e->page, va(buf), ODP_ACC, EOVERFLOW,
		       "ODP MR of SIZE_MAX - 1 page from a mapped buffer (wraps)"));
	/* libibverbs refuses these itself (ibv_cmd_reg_mr()), the kernel too */
	TRY(re_refused(e, (void *)(uintptr_t)e->page, SIZE_MAX, e->page, ODP_ACC, EINVAL,
		       "SIZE_MAX at a non-zero address"));
	TRY(re_refused(e, buf, SIZE_MAX, va(buf), ODP_ACC, EINVAL,
		       "SIZE_MAX at a mapped buffer's address"));
	TRY(re_raw_refused(e, e->page, UINT64_MAX, e->page, ODP_ACC, EOVERFLOW,
			   "the kernel: U64_MAX at a non-zero address"));
	TRY(re_raw_refused(e, va(buf), UINT64_MAX, va(buf), ODP_ACC, EOVERFLOW,
			   "the kernel: U64_MAX at a mapped buffer's address"));
	if (e->attr.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT) {
		TRY(re_refused(e, NULL, SIZE_MAX, e->page, ODP_ACC, EINVAL,
			       "implicit ODP MR with a non-zero iova"));
		TRY(re_refused(e, NULL, SIZE_MAX, 0, hugetlb, EINVAL,
			       "implicit ODP MR with HUGETLB"));
	} else {
		diag("no IBV_ODP_SUPPORT_IMPLICIT: the implicit cases are left out");
	}
	munmap(buf, 2 * e->page);
	return T_PASS;
}

/* Implicit MRs with each access combination: which register, and which
 * remote accesses their rkey then allows. */
struct re_acc {
	const char *name;
	int acc;		/* without ON_DEMAND */
	int reg_errno;		/* 0: registers */
};

static int re_access_one(struct env *e, const struct re_acc *c, char *buf)
{
	static const struct { const char *what; enum ibv_wr_opcode op; int need; } ops[] = {
		{ "RDMA WRITE", IBV_WR_RDMA_WRITE, IBV_ACCESS_REMOTE_WRITE },
		{ "RDMA READ", IBV_WR_RDMA_READ, IBV_ACCESS_REMOTE_READ },
		{ "fetch-add", IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_ACCESS_REMOTE_ATOMIC },
	};
	struct ibv_mr *mr, *lmr;
	struct lb_pair p;
	char what[160];
	uint64_t old;
	size_t i;
	int err;

	errno = 0;
	mr = ibv_reg_mr(e->dev.pd, NULL, SIZE_MAX, c->acc | IBV_ACCESS_ON_DEMAND);
	err = errno;
	if (c->reg_errno) {
		if (mr)
			ibv_dereg_mr(mr);
		CHECK(!mr, "implicit %s: registered", c->name);
		CHECK(err == c->reg_errno, "implicit %s: errno %d (%s), expected %s", c->name, err,
		      strerror(err), strerror(c->reg_errno));
		diag("implicit %s: refused, %s", c->name, strerror(err));
		return T_PASS;
	}
	CHECK(mr, "implicit %s: %s", c->name, strerror(err));
	/* the local end: an ODP MR with every right, buf's second page */
	lmr = reg(e, buf + e->page, e->page, ODP_ACC);
	CHECK(lmr, "local MR");
	for (i = 0; i < 3; i++) {
		bool ok = c->acc & ops[i].need;

		snprintf(what, sizeof(what), "%s with the rkey of an implicit %s MR", ops[i].what,
			 c->name);
		TRY(rc_pair_create(e, &p, NULL));
		fill(buf, e->page, 60 + i);
		fill(buf + e->page, e->page, 70 + i);
		memcpy(&old, buf, 8);
		if (ops[i].op == IBV_WR_ATOMIC_FETCH_AND_ADD)
			CHECK(!post_atomic(p.a.qp, ops[i].op, va(buf + e->page), lmr->lkey, va(buf),
					   mr->rkey, 1, 0), "post");
		else
			CHECK(!post_rdma(p.a.qp, ops[i].op, va(buf + e->page), 64, lmr->lkey,
					 va(buf), mr->rkey, i), "post");
		TRY(expect_wc(e, p.a.cq, ok ? IBV_WC_SUCCESS : IBV_WC_REM_ACCESS_ERR, what));
		if (!ok)
			CHECK(check_fill(buf, e->page, 60 + i) < 0 &&
			      check_fill(buf + e->page, e->page, 70 + i) < 0,
			      "%s: refused, but data moved", what);
		else if (ops[i].op != IBV_WR_ATOMIC_FETCH_AND_ADD)
			CHECK(!memcmp(buf, buf + e->page, 64), "%s: data", what);
		else
			CHECK(!memcmp(buf + e->page, &old, 8) && *(uint64_t *)buf == old + 1,
			      "%s: fetched or added wrong", what);
		lb_pair_destroy(&p);
	}
	/* its lkey: a local write (the READ's destination) needs LOCAL_WRITE */
	TRY(rc_pair_create(e, &p, NULL));
	fill(buf + e->page, e->page, 80);
	CHECK(!post_rdma(p.a.qp, IBV_WR_RDMA_READ, va(buf), 64, mr->lkey, va(buf + e->page),
			 lmr->rkey, 9), "post");
	snprintf(what, sizeof(what), "RDMA READ into the lkey of an implicit %s MR", c->name);
	TRY(expect_wc(e, p.a.cq, c->acc & IBV_ACCESS_LOCAL_WRITE ? IBV_WC_SUCCESS :
		      IBV_WC_LOC_PROT_ERR, what));
	lb_pair_destroy(&p);
	diag("implicit %s: registered, its keys allow what its flags grant", c->name);
	CHECK(!ibv_dereg_mr(lmr), "dereg");
	CHECK(!ibv_dereg_mr(mr), "dereg");
	return T_PASS;
}

static int t_implicit_access(struct env *e)
{
	static const struct re_acc combos[] = {
		{ "local read only", 0, 0 },
		{ "LOCAL_WRITE", IBV_ACCESS_LOCAL_WRITE, 0 },
		{ "REMOTE_READ", IBV_ACCESS_REMOTE_READ, 0 },
		{ "LOCAL_WRITE|REMOTE_READ", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ, 0 },
		{ "LOCAL_WRITE|REMOTE_WRITE", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, 0 },
		{ "LOCAL_WRITE|REMOTE_ATOMIC", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC, 0 },
		{ "every right, MW_BIND, RELAXED_ORDERING",
		  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
		  IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND | IBV_ACCESS_RELAXED_ORDERING, 0 },
		{ "REMOTE_WRITE without LOCAL_WRITE", IBV_ACCESS_REMOTE_WRITE, EINVAL },
		{ "REMOTE_ATOMIC without LOCAL_WRITE", IBV_ACCESS_REMOTE_ATOMIC, EINVAL },
	};
	char *buf;
	size_t i;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC));
	if (!(e->attr.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT))
		ST_SKIP(e, "%s does not advertise IBV_ODP_SUPPORT_IMPLICIT", e->dev_name);
	buf = map_anon(2 * e->page, e->page);
	CHECK(buf, "mmap");
	for (i = 0; i < sizeof(combos) / sizeof(combos[0]); i++)
		TRY(re_access_one(e, &combos[i], buf));
	munmap(buf, 2 * e->page);
	return T_PASS;
}

ST_TEST(reg_1tib, "1 TiB of untouched MAP_NORESERVE memory registers as an explicit ODP MR; WRITE/READ at its first, middle and last page; children only there")
{
	BODY(t_reg_1tib);
}

ST_TEST(reg_edge_errno, "length 0 = EINVAL (ODP and pinned); a wrapping range = EOVERFLOW; SIZE_MAX at a non-zero address = EINVAL (libibverbs), EOVERFLOW (kernel); implicit with iova or HUGETLB = EINVAL")
{
	BODY(t_reg_edge_errno);
}

ST_TEST(implicit_access, "implicit ODP MRs with each access combination: remote write/atomic without local write = EINVAL; the others' keys allow exactly what their flags grant")
{
	BODY(t_implicit_access);
}
