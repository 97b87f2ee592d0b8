/* odp-selftest: exact deltas of an MR's own counters (rxe-odp's drv_odp_*
 * restrack attributes, read over RDMA netlink by mrc_read()), where the
 * driver's behaviour is exact:
 *   - a fault maps the pages the access needs plus up to odp_fault_ahead
 *     following unmapped pages of the MR (never past its end, nor past the
 *     chunk of its child, 1 << odp_child_shift bytes: the ODP buffer is
 *     placed inside one chunk so that only the MR's end can cut a fault
 *     short): each page faulted is counted once in odp_pages_faulted, each
 *     fault once in odp_faults;
 *   - an invalidation counts 1 in odp_invalidations and the pages it
 *     unmapped in odp_pages_invalidated; MADV_DONTNEED of a range in one
 *     VMA is one invalidation, and breaking COW of a page is one;
 *   - an access that can never work counts 1 in odp_fault_errors and maps
 *     nothing.
 * The ODP MR is the remote end (the responder faults), the local end is
 * pinned, so only the counted MR faults; its memory is never THP-backed
 * (khugepaged would move it).  Written on the harness directly: the model
 * for a new file of cases.  Part of main.c's translation unit. */

/* One ODP MR of n pages (the one counted), a pinned buffer as large, and a
 * connected loopback pair. */
struct ex {
	struct lb_pair p;
	size_t n, len;
	char *odp, *pin;
	struct ibv_mr *omr, *pmr;
};

static void ex_make(struct __test_metadata *_metadata, struct env *e, struct ex *x, size_t n)
{
	long long shift = rxe_param("odp_child_shift");
	size_t chunk = e->page;

	/* aligned to the driver's chunk, so the MR lies in one child */
	if (shift > 0 && shift < 40 && (1ULL << shift) >= n * e->page)
		chunk = (size_t)1 << shift;
	memset(x, 0, sizeof(*x));
	x->n = n;
	x->len = n * e->page;
	x->odp = map_anon(x->len, chunk);
	x->pin = map_anon(x->len, e->page);
	ASSERT_TRUE(x->odp && x->pin);
	ASSERT_EQ(0, madvise(x->odp, x->len, MADV_NOHUGEPAGE));
	x->omr = reg(e, x->odp, x->len, ODP_ACC);
	ASSERT_NE(NULL, x->omr);
	x->pmr = reg(e, x->pin, x->len, PIN_ACC);
	ASSERT_NE(NULL, x->pmr);
	ASSERT_OK(rc_pair_create(e, &x->p, NULL));
}

static void ex_free(struct ex *x)
{
	ibv_dereg_mr(x->omr);
	ibv_dereg_mr(x->pmr);
	lb_pair_destroy(&x->p);
	munmap(x->odp, x->len);
	munmap(x->pin, x->len);
}

/* op (WRITE or READ) of len bytes at byte off of the ODP MR, from/to the
 * same offset of the pinned buffer; it must complete with status st. */
static void ex_rdma(struct __test_metadata *_metadata, struct env *e, struct ex *x,
		    enum ibv_wr_opcode op, size_t off, size_t len, enum ibv_wc_status st)
{
	ASSERT_EQ(0, post_rdma(x->p.a.qp, op, va(x->pin + off), len, x->pmr->lkey,
			       va(x->odp + off), x->omr->rkey, 1));
	ASSERT_OK(expect_wc(e, x->p.a.cq, st, op == IBV_WR_RDMA_WRITE ? "RDMA WRITE" : "RDMA READ"));
}

/* ex_rdma(), then the MR's counters into *now, with a "# what: deltas"
 * line from *before. */
static void ex_step(struct __test_metadata *_metadata, struct env *e, struct ex *x,
		    enum ibv_wr_opcode op, size_t off, size_t len, enum ibv_wc_status st,
		    const char *what, const struct mrc *before, struct mrc *now)
{
	ex_rdma(_metadata, e, x, op, off, len, st);
	ASSERT_OK(mrc_read(e, x->omr, now));
	mrc_diag(what, before, now);
}

/* b - a of one per-MR counter must be want. */
#define ASSERT_DELTA(want, a, b, field) \
	ASSERT_EQ((long long)(want), (b).field - (a).field) TH_LOG("per-MR %s delta", #field)

ST_TEST(fault_exact, "a fault of N pages moves the MR's odp_pages_faulted by exactly N (with its fault-ahead), odp_faults by 1; mapped pages are not faulted again")
{
	struct env *e = &self->e;
	size_t n = 64, at = 10, first;
	struct mrc c0, c1, c2, c3;
	long long ahead;
	struct ex x;

	if (!odp_rc_caps(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ))
		SKIP(return, "%s has no RC WRITE/READ ODP caps (stock rxe)", e->dev_name);
	ahead = rxe_param("odp_fault_ahead");
	ASSERT_GE(ahead, 0)
		TH_LOG("%s advertises ODP but rdma_rxe has no odp_fault_ahead parameter", e->dev_name);
	ex_make(_metadata, e, &x, n);
	fill(x.pin, x.len, 171);
	ASSERT_OK(mrc_read(e, x.omr, &c0));
	ASSERT_EQ(0, c0.mapped);
	ASSERT_EQ(0, c0.faults);
	ASSERT_EQ(0, c0.pages_faulted);

	/* One page in the middle: one fault, of that page and the
	 * fault-ahead after it, up to the MR's end. */
	ex_step(_metadata, e, &x, IBV_WR_RDMA_WRITE, at * e->page, e->page, IBV_WC_SUCCESS,
		"WRITE of page 10 of a fresh 64-page MR", &c0, &c1);
	first = (at + ahead < n - 1 ? at + ahead : n - 1) - at + 1;
	TH_LOG("odp_fault_ahead %lld: expect %zu pages faulted by one fault", ahead, first);
	ASSERT_DELTA(1, c0, c1, faults);
	ASSERT_DELTA(first, c0, c1, pages_faulted);
	ASSERT_EQ((long long)first, c1.mapped);

	/* The whole MR: only what is not mapped yet is faulted, each page
	 * once, however the faults fall. */
	ex_step(_metadata, e, &x, IBV_WR_RDMA_WRITE, 0, x.len, IBV_WC_SUCCESS,
		"WRITE of the whole MR", &c1, &c2);
	ASSERT_DELTA(n - first, c1, c2, pages_faulted);
	ASSERT_GE(c2.faults - c1.faults, 1);
	ASSERT_EQ((long long)n, c2.mapped);
	ASSERT_EQ(-1, check_fill(x.odp, x.len, 171));

	/* Everything mapped writable: WRITE and READ fault nothing. */
	ex_rdma(_metadata, e, &x, IBV_WR_RDMA_WRITE, 0, x.len, IBV_WC_SUCCESS);
	ex_step(_metadata, e, &x, IBV_WR_RDMA_READ, 0, x.len, IBV_WC_SUCCESS,
		"WRITE + READ of the mapped MR", &c2, &c3);
	ASSERT_DELTA(0, c2, c3, faults);
	ASSERT_DELTA(0, c2, c3, pages_faulted);
	ASSERT_DELTA(0, c0, c3, invalidations);
	ASSERT_DELTA(0, c0, c3, errors);
	ASSERT_DELTA(0, c0, c3, prefetched);
	ex_free(&x);
}

ST_TEST(invalidate_exact, "MADV_DONTNEED of k mapped pages: the MR's odp_invalidations +1, odp_pages_invalidated +k, mapped -k; the refault faults exactly k")
{
	struct env *e = &self->e;
	size_t n = 16, k = 4, at = 5;
	struct mrc c0, c1, c2, c3;
	struct ex x;

	if (!odp_rc_caps(e, IBV_ODP_SUPPORT_WRITE))
		SKIP(return, "%s has no RC WRITE ODP caps (stock rxe)", e->dev_name);
	ex_make(_metadata, e, &x, n);
	fill(x.pin, x.len, 172);
	ex_rdma(_metadata, e, &x, IBV_WR_RDMA_WRITE, 0, x.len, IBV_WC_SUCCESS);
	ASSERT_OK(mrc_read(e, x.omr, &c0));
	ASSERT_EQ((long long)n, c0.mapped);

	/* k pages in the middle */
	ASSERT_EQ(0, madvise(x.odp + at * e->page, k * e->page, MADV_DONTNEED));
	ASSERT_OK(mrc_read(e, x.omr, &c1));
	mrc_diag("MADV_DONTNEED of 4 of 16 mapped pages", &c0, &c1);
	ASSERT_DELTA(1, c0, c1, invalidations);
	ASSERT_DELTA(k, c0, c1, pages_invalidated);
	ASSERT_EQ((long long)(n - k), c1.mapped);

	/* all of it: only the pages still mapped count */
	ASSERT_EQ(0, madvise(x.odp, x.len, MADV_DONTNEED));
	ASSERT_OK(mrc_read(e, x.omr, &c2));
	mrc_diag("MADV_DONTNEED of the whole MR", &c1, &c2);
	ASSERT_DELTA(1, c1, c2, invalidations);
	ASSERT_DELTA(n - k, c1, c2, pages_invalidated);
	ASSERT_EQ(0, c2.mapped);

	/* a READ of the dropped (now absent) pages maps each once */
	ex_step(_metadata, e, &x, IBV_WR_RDMA_READ, 0, x.len, IBV_WC_SUCCESS,
		"READ of the whole MR after MADV_DONTNEED", &c2, &c3);
	ASSERT_DELTA(n, c2, c3, pages_faulted);
	ASSERT_DELTA(0, c2, c3, invalidations);
	ASSERT_DELTA(0, c0, c3, errors);
	ASSERT_EQ((long long)n, c3.mapped);
	ASSERT_EQ(-1, check_byte(x.pin, x.len, 0));
	ex_free(&x);
}

ST_TEST(cow_zero_page_exact, "READ of untouched memory maps N zero pages (faulted N); a WRITE then breaks COW: N invalidations of 1 page, N pages faulted again")
{
	struct env *e = &self->e;
	size_t n = 8;
	struct mrc c0, c1, c2;
	struct ex x;

	if (!odp_rc_caps(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ))
		SKIP(return, "%s has no RC WRITE/READ ODP caps (stock rxe)", e->dev_name);
	ex_make(_metadata, e, &x, n);
	memset(x.pin, 0xaa, x.len);
	ASSERT_OK(mrc_read(e, x.omr, &c0));
	ex_step(_metadata, e, &x, IBV_WR_RDMA_READ, 0, x.len, IBV_WC_SUCCESS,
		"READ of 8 untouched pages", &c0, &c1);
	ASSERT_DELTA(n, c0, c1, pages_faulted);
	ASSERT_DELTA(0, c0, c1, invalidations);
	ASSERT_EQ((long long)n, c1.mapped);
	ASSERT_EQ(-1, check_byte(x.pin, x.len, 0));
	ASSERT_EQ((long)n, resident_pages(x.odp, x.len))
		TH_LOG("the READ did not map the (zero) pages");

	fill(x.pin, x.len, 173);
	ex_step(_metadata, e, &x, IBV_WR_RDMA_WRITE, 0, x.len, IBV_WC_SUCCESS,
		"WRITE into the 8 zero pages", &c1, &c2);
	ASSERT_DELTA(n, c1, c2, pages_faulted);
	ASSERT_DELTA(n, c1, c2, invalidations);
	ASSERT_DELTA(n, c1, c2, pages_invalidated);
	ASSERT_DELTA(0, c0, c2, errors);
	ASSERT_EQ((long long)n, c2.mapped);
	ASSERT_EQ(-1, check_fill(x.odp, x.len, 173));
	ex_free(&x);
}

ST_TEST(fault_error_exact, "a remote WRITE into a PROT_NONE page: REM_ACCESS_ERR, the MR's odp_fault_errors +1, nothing faulted or mapped")
{
	struct env *e = &self->e;
	size_t n = 8, bad = 3;
	struct mrc c0, c1;
	struct ex x;

	if (!odp_rc_caps(e, IBV_ODP_SUPPORT_WRITE))
		SKIP(return, "%s has no RC WRITE ODP caps (stock rxe)", e->dev_name);
	ex_make(_metadata, e, &x, n);
	ASSERT_EQ(0, mprotect(x.odp + bad * e->page, e->page, PROT_NONE));
	ASSERT_OK(mrc_read(e, x.omr, &c0));
	/* one packet: the responder tries once and NAKs */
	ex_step(_metadata, e, &x, IBV_WR_RDMA_WRITE, bad * e->page, 64, IBV_WC_REM_ACCESS_ERR,
		"remote WRITE into a PROT_NONE page", &c0, &c1);
	ASSERT_DELTA(1, c0, c1, errors);
	ASSERT_DELTA(0, c0, c1, faults);
	ASSERT_DELTA(0, c0, c1, pages_faulted);
	ASSERT_EQ(0, c1.mapped);
	ASSERT_EQ(0, mprotect(x.odp + bad * e->page, e->page, PROT_READ | PROT_WRITE));
	ex_free(&x);
}
