/* odp-selftest: memory windows over ODP MRs (patch 0031: an access
 * through a window stays inside the window, not only inside its MR).
 *
 * A type-2 window is bound over the middle page of three pages of an ODP
 * MR with MW_BIND, explicit (the three pages) or implicit (the whole
 * address space).  The window's rkey is the only remote key used: an RDMA
 * WRITE, an RDMA READ and an atomic wholly inside it succeed with the right
 * data; each of them just outside it on either side, and a WRITE or READ
 * that straddles either edge, completes with IB_WC_REM_ACCESS_ERR at the
 * requester and moves its QP to the error state, as a bad rkey does, and
 * changes no byte.  Every address outside the window is inside the MR (the
 * MR's own rkey reaches it, checked too), so only the window can refuse.
 * A type-2 window belongs to the QP that bound it: the responder (QP b)
 * binds it, QP a uses it.  Each refused access gets a fresh QP pair and
 * window.  Part of main.c's translation unit, on the harness directly. */

#define MW_PAGES 3
#define MW_ACC (IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)

struct mwx {
	struct lb_pair p;
	bool implicit, paired;
	size_t len;		/* of buf: MW_PAGES pages */
	char *buf;		/* the window is its middle page */
	char *ref;		/* what buf must hold */
	char *loc;		/* one page: the local end of every access */
	struct ibv_mr *mr;	/* the ODP MR with MW_BIND under the window */
	struct ibv_mr *lmr;	/* loc's MR: mr itself when implicit */
	struct ibv_mw *mw;
	uint32_t rkey;		/* the window's, once bound */
};

static uint64_t mw_lo(const struct mwx *x, long page)
{
	return va(x->buf + page);
}

static uint64_t mw_hi(const struct mwx *x, long page)
{
	return va(x->buf + 2 * page);
}

/* Bind a new type-2 window over the middle page from QP b. */
static int mw_bind(struct env *e, struct mwx *x)
{
	TRY(bind_mw2(e, &x->p.b, x->mr, mw_lo(x, e->page), (uint64_t)e->page, MW_ACC, &x->mw));
	x->rkey = x->mw->rkey;
	return T_PASS;
}

static int mw_pair(struct env *e, struct mwx *x)
{
	TRY(rc_pair_create(e, &x->p, NULL));
	x->paired = true;
	return mw_bind(e, x);
}

static void mw_unpair(struct mwx *x)
{
	if (x->mw)
		ibv_dealloc_mw(x->mw);
	x->mw = NULL;
	if (x->paired)
		lb_pair_destroy(&x->p);
	x->paired = false;
}

static int mw_setup(struct env *e, struct mwx *x, bool implicit)
{
	memset(x, 0, sizeof(*x));
	x->implicit = implicit;
	x->len = MW_PAGES * e->page;
	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ |
			IBV_ODP_SUPPORT_ATOMIC));
	if (implicit && !(e->attr.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT))
		ST_SKIP(e, "%s does not advertise IBV_ODP_SUPPORT_IMPLICIT", e->dev_name);
	x->buf = map_anon(x->len, e->page);
	x->loc = map_anon(e->page, e->page);
	x->ref = malloc(x->len);
	CHECK(x->buf && x->loc && x->ref, "mmap/malloc: %s", strerror(errno));
	fill(x->buf, x->len, 41);
	memcpy(x->ref, x->buf, x->len);
	if (implicit) {
		x->mr = reg(e, NULL, SIZE_MAX, ODP_ACC | IBV_ACCESS_MW_BIND);
		CHECK(x->mr, "implicit ODP MR with MW_BIND");
		x->lmr = x->mr;
	} else {
		x->mr = reg(e, x->buf, x->len, ODP_ACC | IBV_ACCESS_MW_BIND);
		CHECK(x->mr, "ODP MR with MW_BIND");
		x->lmr = reg(e, x->loc, e->page, ODP_ACC);
		CHECK(x->lmr, "ODP MR of the local page");
	}
	return T_PASS;
}

static void mw_free(struct mwx *x)
{
	mw_unpair(x);
	if (x->lmr && x->lmr != x->mr)
		ibv_dereg_mr(x->lmr);
	if (x->mr)
		ibv_dereg_mr(x->mr);
	if (x->buf)
		munmap(x->buf, x->len);
	if (x->loc)
		munmap(x->loc, x->len / MW_PAGES);
	free(x->ref);
}

/* The window's pages hold exactly what x->ref says. */
static int mw_intact(struct env *e, struct mwx *x, const char *what)
{
	size_t i;

	for (i = 0; i < x->len; i++)
		CHECK(x->buf[i] == x->ref[i], "%s: byte %zd from the window's start changed", what,
		      (ssize_t)i - (ssize_t)e->page);
	return T_PASS;
}

/* An atomic op through the window on the word at byte off of buf, which
 * holds before: it must succeed, return before and leave after there. */
static int mw_atomic_ok(struct env *e, struct mwx *x, enum ibv_wr_opcode op, size_t off,
			uint64_t before, uint64_t cmp_add, uint64_t swap, uint64_t after,
			const char *what)
{
	uint64_t *res = (uint64_t *)x->loc, now;

	memcpy(x->buf + off, &before, 8);
	*res = ~before;
	CHECK(!post_atomic(x->p.a.qp, op, va(res), x->lmr->lkey, va(x->buf + off), x->rkey,
			   cmp_add, swap), "%s: post", what);
	TRY(expect_wc(e, x->p.a.cq, IBV_WC_SUCCESS, what));
	memcpy(&now, x->buf + off, 8);
	CHECK(*res == before && now == after, "%s: returned %llu, left %llu; expected %llu, %llu",
	      what, (unsigned long long)*res, (unsigned long long)now,
	      (unsigned long long)before, (unsigned long long)after);
	memcpy(x->ref + off, &after, 8);
	return T_PASS;
}

/* An RDMA op of len bytes between loc and byte off of buf, with rkey: it
 * must succeed. */
static int mw_rdma_ok(struct env *e, struct mwx *x, enum ibv_wr_opcode op, size_t off,
		      uint32_t len, uint32_t rkey, const char *what)
{
	CHECK(!post_rdma(x->p.a.qp, op, va(x->loc), len, x->lmr->lkey, va(x->buf + off), rkey, 1),
	      "%s: post", what);
	return expect_wc(e, x->p.a.cq, IBV_WC_SUCCESS, what);
}

/* Through the window's rkey only: WRITEs, READs and atomics inside it
 * succeed, the data checked; its edges are reachable; the MR's own rkey
 * reaches the pages beside it (so they are inside the MR). */
static int mw_inside_body(struct env *e, struct mwx *x)
{
	size_t pg = (size_t)e->page;

	TRY(mw_pair(e, x));
	/* the whole window */
	fill(x->loc, pg, 42);
	TRY(mw_rdma_ok(e, x, IBV_WR_RDMA_WRITE, pg, pg, x->rkey, "RDMA WRITE of the whole window"));
	memcpy(x->ref + pg, x->loc, pg);
	TRY(mw_intact(e, x, "after a WRITE of the whole window"));
	memset(x->loc, 0, pg);
	TRY(mw_rdma_ok(e, x, IBV_WR_RDMA_READ, pg, pg, x->rkey, "RDMA READ of the whole window"));
	CHECK(check_fill(x->loc, pg, 42) < 0, "RDMA READ through the window: wrong data");
	/* 8 bytes at each edge, inside */
	fill(x->loc, 8, 43);
	TRY(mw_rdma_ok(e, x, IBV_WR_RDMA_WRITE, 2 * pg - 8, 8, x->rkey,
		       "RDMA WRITE of the window's last 8 bytes"));
	memcpy(x->ref + 2 * pg - 8, x->loc, 8);
	memset(x->loc, 0, 8);
	TRY(mw_rdma_ok(e, x, IBV_WR_RDMA_READ, pg, 8, x->rkey,
		       "RDMA READ of the window's first 8 bytes"));
	CHECK(!memcmp(x->loc, x->ref + pg, 8), "RDMA READ of the window's first 8 bytes: data");
	/* atomics on its first and last word */
	TRY(mw_atomic_ok(e, x, IBV_WR_ATOMIC_FETCH_AND_ADD, pg, 1000, 5, 0, 1005,
			 "fetch-add on the window's first word"));
	TRY(mw_atomic_ok(e, x, IBV_WR_ATOMIC_CMP_AND_SWP, 2 * pg - 8, 7, 7, 9, 9,
			 "compare-swap on the window's last word"));
	TRY(mw_intact(e, x, "after the accesses inside the window"));
	/* control: the pages beside the window are the MR's, its rkey works there */
	TRY(mw_rdma_ok(e, x, IBV_WR_RDMA_READ, pg - 8, 8, x->mr->rkey,
		       "RDMA READ below the window with the MR's rkey"));
	CHECK(!memcmp(x->loc, x->ref + pg - 8, 8), "READ below the window: data");
	TRY(mw_rdma_ok(e, x, IBV_WR_RDMA_READ, 2 * pg, 8, x->mr->rkey,
		       "RDMA READ above the window with the MR's rkey"));
	CHECK(!memcmp(x->loc, x->ref + 2 * pg, 8), "READ above the window: data");
	return T_PASS;
}

static int mw_inside(struct env *e, bool implicit)
{
	struct mwx x;
	int r = mw_setup(e, &x, implicit);

	if (r == T_PASS)
		r = mw_inside_body(e, &x);
	mw_free(&x);
	return r;
}

/* One access through the window's rkey that must be refused. */
struct mw_bad {
	const char *what;
	enum ibv_wr_opcode op;
	int64_t at;		/* bytes from the window's start (lo) or end (hi) */
	bool from_hi;
	uint32_t len;		/* 8 for atomics */
};

static int mw_refused(struct env *e, struct mwx *x, const struct mw_bad *b, bool bad_key)
{
	uint64_t raddr = (b->from_hi ? mw_hi(x, e->page) : mw_lo(x, e->page)) + b->at;
	uint32_t rkey = bad_key ? x->rkey ^ 0x80 : x->rkey;
	char what[160];
	int st, r;

	snprintf(what, sizeof(what), "%s%s", b->what, bad_key ? " with a wrong rkey" : "");
	TRY(mw_pair(e, x));
	fill(x->loc, e->page, 44);
	if (b->op == IBV_WR_ATOMIC_FETCH_AND_ADD)
		r = post_atomic(x->p.a.qp, b->op, va(x->loc), x->lmr->lkey, raddr, rkey, 1, 0);
	else
		r = post_rdma(x->p.a.qp, b->op, va(x->loc), b->len, x->lmr->lkey, raddr, rkey, 8);
	CHECK(!r, "%s: post failed", what);
	TRY(expect_wc(e, x->p.a.cq, IBV_WC_REM_ACCESS_ERR, what));
	st = wait_qp_err(e, x->p.a.qp);
	CHECK(st == IBV_QPS_ERR, "%s: the requester's QP is in state %d, not ERR", what, st);
	TRY(mw_intact(e, x, what));
	CHECK(check_fill(x->loc, e->page, 44) < 0, "%s: the local buffer changed", what);
	mw_unpair(x);
	if (e->verbose)
		diag("%s: refused", what);
	return T_PASS;
}

static int mw_outside(struct env *e, bool implicit)
{
	static const struct mw_bad bad[] = {
		{ "RDMA WRITE of the 8 bytes below the window", IBV_WR_RDMA_WRITE, -8, false, 8 },
		{ "RDMA WRITE of the 8 bytes above the window", IBV_WR_RDMA_WRITE, 0, true, 8 },
		{ "RDMA WRITE across the window's start", IBV_WR_RDMA_WRITE, -8, false, 16 },
		{ "RDMA WRITE across the window's end", IBV_WR_RDMA_WRITE, -8, true, 16 },
		{ "RDMA READ of the 8 bytes below the window", IBV_WR_RDMA_READ, -8, false, 8 },
		{ "RDMA READ of the 8 bytes above the window", IBV_WR_RDMA_READ, 0, true, 8 },
		{ "RDMA READ across the window's start", IBV_WR_RDMA_READ, -8, false, 16 },
		{ "RDMA READ across the window's end", IBV_WR_RDMA_READ, -8, true, 16 },
		{ "fetch-add on the word below the window", IBV_WR_ATOMIC_FETCH_AND_ADD, -8, false, 8 },
		{ "fetch-add on the word above the window", IBV_WR_ATOMIC_FETCH_AND_ADD, 0, true, 8 },
	};
	struct mwx x;
	size_t i;
	int r;

	r = mw_setup(e, &x, implicit);
	if (r == T_PASS)
		r = mw_refused(e, &x, &bad[0], true);
	for (i = 0; r == T_PASS && i < sizeof(bad) / sizeof(bad[0]); i++)
		r = mw_refused(e, &x, &bad[i], false);
	if (r == T_PASS)
		diag("%zu accesses outside the window refused, none changed a byte", i);
	mw_free(&x);
	return r;
}

static int t_mw_inside_explicit(struct env *e)
{
	return mw_inside(e, false);
}

static int t_mw_inside_implicit(struct env *e)
{
	return mw_inside(e, true);
}

static int t_mw_outside_explicit(struct env *e)
{
	return mw_outside(e, false);
}

static int t_mw_outside_implicit(struct env *e)
{
	return mw_outside(e, true);
}

ST_TEST(mw_inside_explicit, "type-2 MW over the middle page of an explicit ODP MR: WRITE, READ, atomics inside it succeed with the right data")
{
	BODY(t_mw_inside_explicit);
}

ST_TEST(mw_inside_implicit, "type-2 MW over a page of an implicit ODP MR: WRITE, READ, atomics inside it succeed with the right data")
{
	BODY(t_mw_inside_implicit);
}

ST_TEST(mw_outside_explicit, "type-2 MW over the middle page of an explicit ODP MR: WRITE, READ, atomic just outside or across either edge = REM_ACCESS_ERR, QP to ERR, no byte changed")
{
	BODY(t_mw_outside_explicit);
}

ST_TEST(mw_outside_implicit, "type-2 MW over a page of an implicit ODP MR: WRITE, READ, atomic just outside or across either edge = REM_ACCESS_ERR, QP to ERR, no byte changed")
{
	BODY(t_mw_outside_implicit);
}
