/* odp-selftest: the fault latency histogram (rxe-odp's device hw counters
 * odp_fault_lat_lt10us, _lt100us, _lt1ms, _lt10ms, _ge10ms and
 * odp_fault_ns_total), with exact deltas in this one process:
 *   - every fault of the data path counted in odp_faults is counted in
 *     exactly one bucket, by its service time (one hmm_range_fault() and
 *     the mapping), so the buckets move by exactly what odp_faults moves;
 *   - odp_fault_ns_total sums those times: it grows with every fault, and
 *     lies between the buckets' lower bounds and (without a fault of 10 ms
 *     or more) their upper bounds, times their counts;
 *   - an access that faults nothing, or whose fault fails, moves none of
 *     them.
 * The counters are the device's, so nothing else may fault on the device
 * meanwhile: the guest runs these tests alone.  Uses exact.c's MR pair
 * (struct ex).  Part of main.c's translation unit. */

#define FH_NB 5

/* The buckets' bounds in ns: bucket i holds [fh_lo[i], fh_lo[i + 1]). */
static const long long fh_lo[FH_NB + 1] = { 0, 10000, 100000, 1000000, 10000000, -1 };
static const char *const fh_name[FH_NB] = {
	"odp_fault_lat_lt10us", "odp_fault_lat_lt100us", "odp_fault_lat_lt1ms",
	"odp_fault_lat_lt10ms", "odp_fault_lat_ge10ms",
};

struct fh {
	long long faults, pages, errors, ns, b[FH_NB];
};

/* The device's counters now, in one reading. */
static void fh_read(struct __test_metadata *_metadata, struct env *e, struct fh *h)
{
	const char *names[4 + FH_NB] = {
		"odp_faults", "odp_pages_faulted", "odp_fault_errors", "odp_fault_ns_total",
	};
	long long v[4 + FH_NB];
	int i;

	for (i = 0; i < FH_NB; i++)
		names[4 + i] = fh_name[i];
	hw_counters(e, names, v, 4 + FH_NB);
	h->faults = v[0];
	h->pages = v[1];
	h->errors = v[2];
	h->ns = v[3];
	ASSERT_GE(h->ns, 0)
		TH_LOG("%s advertises ODP but has no hw counter odp_fault_ns_total", e->dev_name);
	for (i = 0; i < FH_NB; i++) {
		h->b[i] = v[4 + i];
		ASSERT_GE(h->b[i], 0)
			TH_LOG("%s advertises ODP but has no hw counter %s", e->dev_name, fh_name[i]);
	}
}

/* Check what moved from a to b: the buckets by exactly the faults, the
 * time within the buckets' bounds; "# what: ..." says it all. */
static void fh_check(struct __test_metadata *_metadata, const char *what, const struct fh *a,
		     const struct fh *b)
{
	long long sum = 0, lo = 0, hi = 0, n;
	bool bounded = true;	/* no fault in the last bucket */
	int i;

	for (i = 0; i < FH_NB; i++) {
		n = b->b[i] - a->b[i];
		ASSERT_GE(n, 0);
		sum += n;
		lo += n * fh_lo[i];
		if (fh_lo[i + 1] < 0)
			bounded = bounded && !n;
		else
			hi += n * fh_lo[i + 1];
	}
	printf("# %s: odp_faults +%lld, pages +%lld, buckets +%lld/+%lld/+%lld/+%lld/+%lld, ns_total +%lld (%.1f us/page)\n",
	       what, b->faults - a->faults, b->pages - a->pages, b->b[0] - a->b[0],
	       b->b[1] - a->b[1], b->b[2] - a->b[2], b->b[3] - a->b[3], b->b[4] - a->b[4],
	       b->ns - a->ns, b->pages > a->pages ?
	       (double)(b->ns - a->ns) / 1e3 / (double)(b->pages - a->pages) : 0.0);
	ASSERT_EQ(b->faults - a->faults, sum) TH_LOG("the buckets did not move by the faults");
	ASSERT_GE(b->ns - a->ns, lo) TH_LOG("ns_total below the buckets' lower bounds");
	if (bounded && sum) {
		ASSERT_LT(b->ns - a->ns, hi) TH_LOG("ns_total past the buckets' upper bounds");
	}
	if (sum) {
		ASSERT_GT(b->ns - a->ns, 0) TH_LOG("faults took no time");
	} else {
		ASSERT_EQ(0, b->ns - a->ns) TH_LOG("time counted without a fault");
	}
}

ST_TEST(fault_hist_exact, "every fault falls in exactly one odp_fault_lat_* bucket (they move by odp_faults), odp_fault_ns_total grows within the buckets' bounds; no fault, or a failed one, moves none")
{
	struct env *e = &self->e;
	size_t n = 64, bad = 3;
	struct fh h0, h1, h2, h3, h4;
	struct mrc c0, c1;
	struct ex x;

	if (!odp_rc_caps(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ))
		SKIP(return, "%s has no RC WRITE/READ ODP caps (stock rxe)", e->dev_name);
	ex_make(_metadata, e, &x, n);
	fill(x.pin, x.len, 174);
	ASSERT_OK(mrc_read(e, x.omr, &c0));

	/* one page: one fault (with its fault-ahead) */
	fh_read(_metadata, e, &h0);
	ex_rdma(_metadata, e, &x, IBV_WR_RDMA_WRITE, 10 * e->page, e->page, IBV_WC_SUCCESS);
	fh_read(_metadata, e, &h1);
	fh_check(_metadata, "WRITE of one page of a fresh MR", &h0, &h1);
	ASSERT_EQ(1, h1.faults - h0.faults);

	/* the whole MR: as many faults as it takes, each in one bucket */
	ex_rdma(_metadata, e, &x, IBV_WR_RDMA_WRITE, 0, x.len, IBV_WC_SUCCESS);
	fh_read(_metadata, e, &h2);
	fh_check(_metadata, "WRITE of the whole MR", &h1, &h2);
	ASSERT_OK(mrc_read(e, x.omr, &c1));
	/* the device's faults are this MR's: nothing else faulted */
	ASSERT_EQ(c1.faults - c0.faults, h2.faults - h0.faults);
	ASSERT_EQ(c1.pages_faulted - c0.pages_faulted, h2.pages - h0.pages);
	ASSERT_EQ((long long)n, h2.pages - h0.pages);

	/* all mapped: WRITE and READ fault nothing, time nothing */
	ex_rdma(_metadata, e, &x, IBV_WR_RDMA_WRITE, 0, x.len, IBV_WC_SUCCESS);
	ex_rdma(_metadata, e, &x, IBV_WR_RDMA_READ, 0, x.len, IBV_WC_SUCCESS);
	fh_read(_metadata, e, &h3);
	fh_check(_metadata, "WRITE + READ of the mapped MR", &h2, &h3);
	ASSERT_EQ(0, h3.faults - h2.faults);

	/* a fault that fails: an error, nothing timed */
	ASSERT_EQ(0, madvise(x.odp + bad * e->page, e->page, MADV_DONTNEED));
	ASSERT_EQ(0, mprotect(x.odp + bad * e->page, e->page, PROT_NONE));
	ex_rdma(_metadata, e, &x, IBV_WR_RDMA_WRITE, bad * e->page, 64, IBV_WC_REM_ACCESS_ERR);
	fh_read(_metadata, e, &h4);
	fh_check(_metadata, "remote WRITE into a PROT_NONE page", &h3, &h4);
	ASSERT_EQ(0, h4.faults - h3.faults);
	ASSERT_EQ(1, h4.errors - h3.errors);
	ASSERT_EQ(0, mprotect(x.odp + bad * e->page, e->page, PROT_READ | PROT_WRITE));
	ex_free(&x);
}
