/* odp-selftest: the tests.  One behaviour per test; each asserts outcomes. */
#include "st.h"
#include "uverbs.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif

#define HPAGE (2UL << 20)

/* A simple RC transfer world: pair + requester buffer (src) + responder buffer (dst). */
struct world {
	struct lb_pair p;
	char *src, *dst;
	size_t len;
	struct ibv_mr *smr, *dmr;
};

/* The two buffers of a world, registered, without the pair (for tests that
 * make their own QPs). */
static int world_bufs(struct env *e, struct world *w, size_t len, int sacc, int dacc)
{
	memset(w, 0, sizeof(*w));
	w->len = len;
	w->src = map_anon(len, e->page);
	w->dst = map_anon(len, e->page);
	CHECK(w->src && w->dst, "mmap %zu: %s", len, strerror(errno));
	w->smr = reg(e, w->src, len, sacc);
	w->dmr = reg(e, w->dst, len, dacc);
	CHECK(w->smr && w->dmr, "registration failed");
	return T_PASS;
}

static int world_make(struct env *e, struct world *w, size_t len, int sacc, int dacc)
{
	TRY(world_bufs(e, w, len, sacc, dacc));
	return rc_pair_create(e, &w->p, NULL);
}

/* The RC ODP caps most tests need. */
#define CAPS_WR_RD (IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ)
#define CAPS_WR_RD_AT (CAPS_WR_RD | IBV_ODP_SUPPORT_ATOMIC)

/* A world of ODP buffers on both sides, once the device has the RC ODP caps. */
static int odp_world(struct env *e, struct world *w, size_t len, uint32_t caps)
{
	TRY(need_odp_rc(e, caps));
	return world_make(e, w, len, ODP_ACC, ODP_ACC);
}

static void world_free(struct world *w)
{
	if (w->smr)
		ibv_dereg_mr(w->smr);
	if (w->dmr)
		ibv_dereg_mr(w->dmr);
	lb_pair_destroy(&w->p);
	if (w->src)
		munmap(w->src, w->len);
	if (w->dst)
		munmap(w->dst, w->len);
}

/* A transfer on w's pair that must complete successfully. */
static int rdma_ok(struct env *e, struct world *w, enum ibv_wr_opcode op, uint64_t laddr,
		   uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey, const char *what)
{
	CHECK(!post_rdma(w->p.a.qp, op, laddr, len, lkey, raddr, rkey, 1), "%s: post failed", what);
	return expect_wc(e, w->p.a.cq, IBV_WC_SUCCESS, what);
}

/* RDMA WRITE len bytes from src+soff into dst+doff (via the dst MR's iova space). */
static int do_write(struct env *e, struct world *w, size_t soff, size_t doff, size_t len)
{
	return rdma_ok(e, w, IBV_WR_RDMA_WRITE, va(w->src) + soff, len, w->smr->lkey,
		       va(w->dst) + doff, w->dmr->rkey, "RDMA WRITE");
}

static int do_read(struct env *e, struct world *w, size_t soff, size_t doff, size_t len)
{
	return rdma_ok(e, w, IBV_WR_RDMA_READ, va(w->src) + soff, len, w->smr->lkey,
		       va(w->dst) + doff, w->dmr->rkey, "RDMA READ");
}

/* ------------------------------------------------------------------ caps */

int t_caps(struct env *e)
{
	struct ibv_odp_caps *c = &e->attr.odp_caps;
	uint32_t rc = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE |
		      IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC | IBV_ODP_SUPPORT_SRQ_RECV;
	uint32_t ud = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_SRQ_RECV;
	/* RDMA FLUSH and ATOMIC WRITE (IBV_ODP_SUPPORT_FLUSH/_ATOMIC_WRITE from
	 * rdma-core 58 on; rdma-core 44's headers do not name them) */
	uint32_t rc_new = 1u << 6 | 1u << 7;

	if (!has_odp(e))
		ST_SKIP(e, "%s has no ODP caps (stock rxe); see reg_refused_no_caps", e->dev_name);
	diag("general 0x%llx rc 0x%x uc 0x%x ud 0x%x", (unsigned long long)c->general_caps,
	     c->per_transport_caps.rc_odp_caps, c->per_transport_caps.uc_odp_caps,
	     c->per_transport_caps.ud_odp_caps);
	CHECK((c->per_transport_caps.rc_odp_caps & rc) == rc, "rc caps incomplete");
	CHECK((c->per_transport_caps.rc_odp_caps & rc_new) == rc_new, "rc caps lack FLUSH/ATOMIC_WRITE");
	CHECK((c->per_transport_caps.ud_odp_caps & ud) == ud, "ud caps incomplete");
	CHECK(c->general_caps & IBV_ODP_SUPPORT_IMPLICIT, "implicit ODP not advertised");
	return T_PASS;
}

/* ------------------------------------------------------------ registration */

int t_reg_refused_no_caps(struct env *e)
{
	char *buf;
	struct ibv_mr *mr;
	int before, after;

	if (has_odp(e))
		ST_SKIP(e, "%s advertises ODP; run this test on a device without ODP (stock rxe)",
		     e->dev_name);
	buf = map_anon(1 << 16, e->page);
	CHECK(buf, "mmap");
	before = mr_count(e->dev_name);
	errno = 0;
	mr = ibv_reg_mr(e->dev.pd, buf, 1 << 16, ODP_ACC);
	CHECK(!mr, "ODP registration succeeded on a device without ODP caps");
	diag("ODP registration refused: errno %d (%s)", errno, strerror(errno));
	CHECK(errno == EOPNOTSUPP || errno == EINVAL, "unexpected errno %d", errno);
	after = mr_count(e->dev_name);
	CHECK(before == after, "MR count %d -> %d after a refused registration", before, after);
	/* The same memory registers fine without ODP: the refusal was about ODP. */
	mr = reg(e, buf, 1 << 16, PIN_ACC);
	CHECK(mr, "pinned registration of the same buffer failed");
	ibv_dereg_mr(mr);
	return T_PASS;
}

int t_reg_iova(struct env *e)
{
	struct world w;
	uint64_t iova = 0x7e5500000000ULL;
	struct ibv_mr *imr;
	size_t len = 8 * e->page;

	TRY(odp_world(e, &w, len, CAPS_WR_RD));
	/* A second ODP MR over dst, addressed by an iova unrelated to its VA
	 * (same in-page offset, as uverbs requires). */
	imr = ibv_reg_mr_iova(e->dev.pd, w.dst, len, iova, ODP_ACC);
	CHECK(imr, "ibv_reg_mr_iova(iova 0x%llx): %s", (unsigned long long)iova, strerror(errno));
	fill(w.src, len, 11);
	memset(w.dst, 0, len);
	/* WRITE 3 pages + 100 bytes at iova + 1 page + 77. */
	TRY(rdma_ok(e, &w, IBV_WR_RDMA_WRITE, va(w.src), 3 * e->page + 100, w.smr->lkey,
		    iova + e->page + 77, imr->rkey, "WRITE via iova"));
	CHECK(check_fill(w.dst + e->page + 77, 3 * e->page + 100, 11) < 0,
	      "WRITE via iova did not land at VA + (iova offset)");
	CHECK(check_byte(w.dst, e->page + 77, 0) < 0, "bytes before the target changed");
	/* Local SGEs are in iova space too: READ into the iova-MR as local buffer. */
	fill(w.src, len, 12);
	TRY(rdma_ok(e, &w, IBV_WR_RDMA_READ, iova + 5 * e->page + 3, e->page, imr->lkey,
		    va(w.src) + 9, w.smr->rkey, "READ into iova MR"));
	CHECK(check_fill(w.src, 9 + e->page, 12) < 0, "source changed");
	{
		char *tmp = malloc(2 * e->page);

		CHECK(tmp, "malloc");
		fill(tmp, 2 * e->page, 12);
		CHECK(!memcmp(w.dst + 5 * e->page + 3, tmp + 9, e->page),
		      "READ via local iova landed in the wrong place");
		free(tmp);
	}
	/* Out of the iova range: below iova is a remote access error. */
	CHECK(!post_rdma(w.p.a.qp, IBV_WR_RDMA_WRITE, va(w.src), 64, w.smr->lkey,
			 iova - 64, imr->rkey, 3), "post");
	TRY(expect_wc(e, w.p.a.cq, IBV_WC_REM_ACCESS_ERR, "WRITE below the iova range"));
	ibv_dereg_mr(imr);
	world_free(&w);
	return T_PASS;
}

int t_reg_overflow_refused(struct env *e)
{
	char *buf = map_anon(2 * e->page, e->page);
	struct ibv_mr *mr;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE));
	CHECK(buf, "mmap");
	/* iova + length wraps around 2^64. */
	errno = 0;
	mr = ibv_reg_mr_iova(e->dev.pd, buf, 2 * e->page, UINT64_MAX - e->page + 1, ODP_ACC);
	CHECK(!mr, "registration with iova + length wrapping past 2^64 succeeded");
	diag("wrapping iova refused: errno %d (%s)", errno, strerror(errno));
	CHECK(errno == EOVERFLOW || errno == EINVAL, "unclear errno %d", errno);
	return T_PASS;
}

/* REREG_MR through uverbs' write() command: librxe (rdma-core 44) has no
 * rereg_mr, so ibv_rereg_mr() never reaches the kernel on rxe. */
static int raw_rereg(struct ibv_mr *mr, uint32_t flags, int access)
{
	return uv_rereg_mr(mr, flags, va(mr->addr), mr->length, va(mr->addr), mr->pd, access,
			   NULL, NULL);
}

int t_rereg_odp_toggle_refused(struct env *e)
{
	struct world w;
	size_t len = 4 * e->page;
	int r;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE));
	TRY(world_make(e, &w, len, PIN_ACC, ODP_ACC));
	/* Control: a legal access rereg (drop remote atomic) works through the raw
	 * command, so the refusals below are about ON_DEMAND, not the command. */
	r = raw_rereg(w.smr, IBV_REREG_MR_CHANGE_ACCESS, PIN_ACC & ~IBV_ACCESS_REMOTE_ATOMIC);
	CHECK(!r, "control rereg (access change without ON_DEMAND) failed: %s", strerror(r));
	r = raw_rereg(w.smr, IBV_REREG_MR_CHANGE_ACCESS, PIN_ACC | IBV_ACCESS_ON_DEMAND);
	diag("pinned -> ODP rereg: %s", r ? strerror(r) : "accepted");
	CHECK(r, "rereg turned a pinned MR into an ODP MR");
	r = raw_rereg(w.dmr, IBV_REREG_MR_CHANGE_ACCESS, PIN_ACC);
	diag("ODP -> pinned rereg: %s", r ? strerror(r) : "accepted");
	CHECK(r, "rereg turned an ODP MR into a pinned MR");
	/* Both MRs still work as before. */
	fill(w.src, len, 3);
	TRY(do_write(e, &w, 0, 0, len));
	CHECK(check_fill(w.dst, len, 3) < 0, "data mismatch after refused rereg");
	world_free(&w);
	return T_PASS;
}

int t_reg_hugetlb(struct env *e)
{
	struct world w;
	char *h;
	struct ibv_mr *hmr;
	size_t len = 2 * HPAGE;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	h = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (h == MAP_FAILED)
		ST_SKIP(e, "no 2 MiB hugetlb pages (echo 64 > /proc/sys/vm/nr_hugepages): %s",
		     strerror(errno));
	TRY(world_make(e, &w, len, ODP_ACC, ODP_ACC));
	hmr = reg(e, h, len, ODP_ACC | IBV_ACCESS_HUGETLB);
	CHECK(hmr, "ODP|HUGETLB registration of hugetlbfs memory failed");
	fill(w.src, len, 21);
	/* WRITE across the 2 MiB boundary, unaligned. */
	TRY(rdma_ok(e, &w, IBV_WR_RDMA_WRITE, va(w.src), HPAGE, w.smr->lkey, va(h) + HPAGE / 2 + 5,
		    hmr->rkey, "WRITE into hugetlb ODP MR"));
	CHECK(check_fill(h + HPAGE / 2 + 5, HPAGE, 21) < 0, "hugetlb data mismatch");
	/* READ back from it into a fresh buffer. */
	memset(w.dst, 0, len);
	TRY(rdma_ok(e, &w, IBV_WR_RDMA_READ, va(w.dst), HPAGE, w.dmr->lkey, va(h) + HPAGE / 2 + 5,
		    hmr->rkey, "READ from hugetlb ODP MR"));
	CHECK(check_fill(w.dst, HPAGE, 21) < 0, "READ from hugetlb data mismatch");
	ibv_dereg_mr(hmr);
	munmap(h, len);
	world_free(&w);
	return T_PASS;
}

/* HUGETLB on memory that is not hugetlb: refused at registration or at the
 * first access, never a crash or a silent success. */
int t_reg_hugetlb_on_small_pages(struct env *e)
{
	struct world w;
	struct ibv_mr *hmr;
	size_t len = 2 * HPAGE;
	char *b;

	TRY(odp_world(e, &w, len, IBV_ODP_SUPPORT_WRITE));
	b = map_anon(len, HPAGE);
	CHECK(b, "mmap");
	madvise(b, len, MADV_NOHUGEPAGE);
	memset(b, 1, len);
	errno = 0;
	hmr = ibv_reg_mr(e->dev.pd, b, len, ODP_ACC | IBV_ACCESS_HUGETLB);
	if (!hmr) {
		diag("refused at registration: %s", strerror(errno));
		world_free(&w);
		return T_PASS;
	}
	fill(w.src, 4096, 1);
	CHECK(!post_rdma(w.p.a.qp, IBV_WR_RDMA_WRITE, va(w.src), 4096, w.smr->lkey, va(b),
			 hmr->rkey, 1), "post");
	TRY(expect_wc(e, w.p.a.cq, IBV_WC_REM_ACCESS_ERR,
		      "WRITE into a HUGETLB MR backed by 4 KiB pages"));
	CHECK(check_byte(b, len, 1) < 0, "memory changed by a refused access");
	ibv_dereg_mr(hmr);
	world_free(&w);
	return T_PASS;
}

/* --------------------------------------------------------------- pinning */

int t_nopin_odp(struct env *e)
{
	struct world w;
	long a0, r0, a1, r1;
	size_t len = 64 * e->page;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	a0 = vmstat("nr_foll_pin_acquired");
	r0 = vmstat("nr_foll_pin_released");
	if (a0 < 0)
		ST_SKIP(e, "/proc/vmstat has no nr_foll_pin_acquired");
	TRY(world_make(e, &w, len, ODP_ACC, ODP_ACC));
	fill(w.src, len, 5);
	TRY(do_write(e, &w, 0, 0, len));
	TRY(do_read(e, &w, 0, 0, len));
	CHECK(check_fill(w.dst, len, 5) < 0, "data mismatch");
	world_free(&w);
	a1 = vmstat("nr_foll_pin_acquired");
	r1 = vmstat("nr_foll_pin_released");
	diag("ODP reg+WRITE+READ+dereg of 2 x %zu KiB: nr_foll_pin_acquired +%ld, released +%ld",
	     len >> 10, a1 - a0, r1 - r0);
	CHECK(a1 == a0, "ODP pinned %ld pages", a1 - a0);
	CHECK(r1 == r0, "ODP released %ld pins", r1 - r0);
	return T_PASS;
}

int t_pin_control(struct env *e)
{
	struct world w;
	long a0, a1, r1, r2;
	size_t len = 64 * e->page;

	a0 = vmstat("nr_foll_pin_acquired");
	if (a0 < 0)
		ST_SKIP(e, "/proc/vmstat has no nr_foll_pin_acquired");
	TRY(world_make(e, &w, len, PIN_ACC, PIN_ACC));
	a1 = vmstat("nr_foll_pin_acquired");
	r1 = vmstat("nr_foll_pin_released");
	fill(w.src, len, 6);
	TRY(do_write(e, &w, 0, 0, len));
	CHECK(check_fill(w.dst, len, 6) < 0, "data mismatch");
	world_free(&w);
	r2 = vmstat("nr_foll_pin_released");
	diag("pinned reg of 2 x 64 pages: acquired +%ld; dereg: released +%ld", a1 - a0, r2 - r1);
	/* At least one pin per page of one of the two MRs.  The counters are
	 * system-wide and the exact figures vary by a few pages from run to
	 * run (large-folio accounting, other pin users), so no equality. */
	CHECK(a1 - a0 >= 64, "pinned registration moved nr_foll_pin_acquired by only %ld",
	      a1 - a0);
	CHECK(r2 - r1 >= 64, "dereg moved nr_foll_pin_released by only %ld", r2 - r1);
	return T_PASS;
}

/* ----------------------------------------------------------------- traffic */

int t_rdma_write(struct env *e)
{
	struct world w;
	struct odpc c0, c1;
	struct mrc s0, s1, d0, d1;
	size_t n = 32, len = n * e->page;

	TRY(odp_world(e, &w, len, IBV_ODP_SUPPORT_WRITE));
	TRY(odpc_read(e, &c0));
	TRY(mrc_read(e, w.smr, &s0));
	TRY(mrc_read(e, w.dmr, &d0));
	fill(w.src, len, 31);
	/* Several sizes/offsets: sub-page, page crossing, multi-page. */
	TRY(do_write(e, &w, 0, 0, 1));
	TRY(do_write(e, &w, 1, e->page - 3, 7));
	TRY(do_write(e, &w, 100, 5 * e->page + 100, 9 * e->page + 1234));
	TRY(do_write(e, &w, 0, 0, len));
	CHECK(check_fill(w.dst, len, 31) < 0, "data mismatch at %ld", check_fill(w.dst, len, 31));
	TRY(odpc_read(e, &c1));
	TRY(mrc_read(e, w.smr, &s1));
	TRY(mrc_read(e, w.dmr, &d1));
	diag("device: odp_faults +%ld, odp_pages_faulted +%ld", c1.faults - c0.faults,
	     c1.pages_faulted - c0.pages_faulted);
	mrc_diag("source MR", &s0, &s1);
	mrc_diag("destination MR", &d0, &d1);
	/* Nothing took a page away meanwhile, so every page of each MR was
	 * faulted exactly once, whatever the fault-ahead: exact. */
	CHECK(d1.pages_faulted - d0.pages_faulted == (long long)n,
	      "destination MR: pages_faulted +%lld, expected exactly its %zu pages",
	      d1.pages_faulted - d0.pages_faulted, n);
	CHECK(s1.pages_faulted - s0.pages_faulted == (long long)n,
	      "source MR: pages_faulted +%lld, expected exactly its %zu pages",
	      s1.pages_faulted - s0.pages_faulted, n);
	CHECK(d1.mapped == (long long)n && s1.mapped == (long long)n,
	      "mapped pages %lld (source) / %lld (destination), expected %zu", s1.mapped,
	      d1.mapped, n);
	CHECK(d1.faults > d0.faults && d1.faults - d0.faults <= (long long)n,
	      "destination MR: faults +%lld for %zu pages", d1.faults - d0.faults, n);
	CHECK(d1.invalidations == d0.invalidations && s1.invalidations == s0.invalidations,
	      "an invalidation during traffic that took nothing away");
	CHECK(d1.errors == d0.errors && s1.errors == s0.errors, "per-MR fault errors during good traffic");
	CHECK(c1.pages_faulted - c0.pages_faulted >= 2 * (long)n,
	      "device odp_pages_faulted +%ld, fewer than the two MRs' %zu pages",
	      c1.pages_faulted - c0.pages_faulted, 2 * n);
	CHECK(c1.errors == c0.errors, "fault errors during good traffic");
	world_free(&w);
	return T_PASS;
}

int t_rdma_read(struct env *e)
{
	struct world w;
	size_t len = 32 * e->page;

	TRY(odp_world(e, &w, len, IBV_ODP_SUPPORT_READ));
	fill(w.dst, len, 41);
	memset(w.src, 0, len);
	TRY(do_read(e, &w, 0, 0, len));
	CHECK(check_fill(w.src, len, 41) < 0, "READ data mismatch");
	memset(w.src, 0, len);
	TRY(do_read(e, &w, 3, 3 * e->page - 5, 2 * e->page + 11));
	CHECK(!memcmp(w.src + 3, w.dst + 3 * e->page - 5, 2 * e->page + 11), "unaligned READ");
	CHECK(check_byte(w.src, 3, 0) < 0, "READ wrote before its target");
	world_free(&w);
	return T_PASS;
}

/* A READ of never-touched ODP memory reads zeros and does not populate it
 * writable: a read fault must not break COW / allocate dirty pages. */
int t_rdma_read_untouched(struct env *e)
{
	struct world w;
	size_t len = 16 * e->page;

	TRY(odp_world(e, &w, len, IBV_ODP_SUPPORT_READ));
	memset(w.src, 0xaa, len);
	TRY(do_read(e, &w, 0, 0, len));
	CHECK(check_byte(w.src, len, 0) < 0, "READ of untouched memory was not zero");
	CHECK(check_byte(w.dst, len, 0) < 0, "untouched responder memory not zero");
	world_free(&w);
	return T_PASS;
}

int t_send_recv(struct env *e)
{
	struct world w;
	size_t len = 16 * e->page;
	int i;

	TRY(odp_world(e, &w, len, IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV));
	for (i = 0; i < 3; i++) {
		size_t off = i * 1000, n = i == 2 ? len / 2 : (size_t)(5 * e->page + 17 * i);

		fill(w.src, len, 50 + i);
		memset(w.dst, 0, len);
		CHECK(!post_recv(w.p.b.qp, va(w.dst) + off, len - off, w.dmr->lkey, i), "recv");
		CHECK(!post_rdma(w.p.a.qp, IBV_WR_SEND, va(w.src), n, w.smr->lkey, 0, 0, i), "send");
		TRY(expect_wc(e, w.p.a.cq, IBV_WC_SUCCESS, "SEND"));
		TRY(expect_wc(e, w.p.b.cq, IBV_WC_SUCCESS, "RECV"));
		CHECK(check_fill(w.dst + off, n, 50 + i) < 0, "received data mismatch (msg %d)", i);
		CHECK(check_byte(w.dst + off + n, len - off - n, 0) < 0, "RECV wrote past the message");
	}
	world_free(&w);
	return T_PASS;
}

int t_atomic_cmp_swp(struct env *e)
{
	struct world w;
	uint64_t *t, *res;

	TRY(odp_world(e, &w, 4 * e->page, IBV_ODP_SUPPORT_ATOMIC));
	t = (uint64_t *)(w.dst + 2 * e->page + 64);
	res = (uint64_t *)(w.src + e->page + 8);
	*t = 0x1111222233334444ULL;
	/* Matching compare: swap happens, old value returned. */
	CHECK(!post_atomic(w.p.a.qp, IBV_WR_ATOMIC_CMP_AND_SWP, va(res), w.smr->lkey, va(t),
			   w.dmr->rkey, 0x1111222233334444ULL, 0xdeadbeefcafef00dULL), "post");
	TRY(expect_wc(e, w.p.a.cq, IBV_WC_SUCCESS, "CMP_SWP"));
	CHECK(*res == 0x1111222233334444ULL, "returned 0x%llx", (unsigned long long)*res);
	CHECK(*t == 0xdeadbeefcafef00dULL, "target 0x%llx after a matching CMP_SWP",
	      (unsigned long long)*t);
	/* Non-matching compare: no swap, current value returned. */
	CHECK(!post_atomic(w.p.a.qp, IBV_WR_ATOMIC_CMP_AND_SWP, va(res), w.smr->lkey, va(t),
			   w.dmr->rkey, 5, 6), "post");
	TRY(expect_wc(e, w.p.a.cq, IBV_WC_SUCCESS, "CMP_SWP (no match)"));
	CHECK(*res == 0xdeadbeefcafef00dULL, "returned 0x%llx", (unsigned long long)*res);
	CHECK(*t == 0xdeadbeefcafef00dULL, "target changed by a non-matching CMP_SWP");
	/* Untouched target page (never faulted in): reads 0, swaps. */
	t = (uint64_t *)(w.dst + 3 * e->page);
	CHECK(!post_atomic(w.p.a.qp, IBV_WR_ATOMIC_CMP_AND_SWP, va(res), w.smr->lkey, va(t),
			   w.dmr->rkey, 0, 42), "post");
	TRY(expect_wc(e, w.p.a.cq, IBV_WC_SUCCESS, "CMP_SWP on untouched page"));
	CHECK(*res == 0 && *t == 42, "untouched: returned %llu, target %llu",
	      (unsigned long long)*res, (unsigned long long)*t);
	world_free(&w);
	return T_PASS;
}

int t_atomic_fetch_add(struct env *e)
{
	struct world w;
	uint64_t *t, *res, expect = 1000;
	int i;

	TRY(odp_world(e, &w, 4 * e->page, IBV_ODP_SUPPORT_ATOMIC));
	t = (uint64_t *)(w.dst + e->page - 8);
	res = (uint64_t *)(w.src + 3 * e->page);
	*t = 1000;
	for (i = 1; i <= 20; i++) {
		uint64_t add = (uint64_t)i * 0x100000001ULL;

		CHECK(!post_atomic(w.p.a.qp, IBV_WR_ATOMIC_FETCH_AND_ADD, va(res), w.smr->lkey,
				   va(t), w.dmr->rkey, add, 0), "post");
		TRY(expect_wc(e, w.p.a.cq, IBV_WC_SUCCESS, "FETCH_ADD"));
		CHECK(*res == expect, "FETCH_ADD %d returned %llu, expected %llu", i,
		      (unsigned long long)*res, (unsigned long long)expect);
		expect += add;
		/* The responder's memory is zapped between ops: refault every time. */
		if (i % 5 == 0)
			CHECK(!madvise(w.src, 4 * e->page, MADV_PAGEOUT) || errno == EINVAL, "madvise");
	}
	CHECK(*t == expect, "target %llu, expected %llu", (unsigned long long)*t,
	      (unsigned long long)expect);
	/* Wrap-around arithmetic. */
	*t = UINT64_MAX - 1;
	CHECK(!post_atomic(w.p.a.qp, IBV_WR_ATOMIC_FETCH_AND_ADD, va(res), w.smr->lkey, va(t),
			   w.dmr->rkey, 5, 0), "post");
	TRY(expect_wc(e, w.p.a.cq, IBV_WC_SUCCESS, "FETCH_ADD wrap"));
	CHECK(*res == UINT64_MAX - 1 && *t == 3, "wrap: returned %llu, target %llu",
	      (unsigned long long)*res, (unsigned long long)*t);
	world_free(&w);
	return T_PASS;
}

int t_srq_recv(struct env *e)
{
	struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64, .max_sge = 1 } };
	struct ibv_srq *srq;
	struct world w;
	size_t len = 16 * e->page;
	int i;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_SRQ_RECV));
	srq = ibv_create_srq(e->dev.pd, &sa);
	CHECK(srq, "ibv_create_srq: %s", strerror(errno));
	TRY(world_bufs(e, &w, len, ODP_ACC, ODP_ACC));
	TRY(rc_pair_create(e, &w.p, srq));
	for (i = 0; i < 4; i++)
		CHECK(!post_srq_recv(srq, va(w.dst) + i * 4 * e->page, 4 * e->page, w.dmr->lkey, i), "srq");
	for (i = 0; i < 4; i++) {
		fill(w.src, len, 60 + i);
		CHECK(!post_rdma(w.p.a.qp, IBV_WR_SEND, va(w.src), 3 * e->page + i, w.smr->lkey, 0,
				 0, i), "send");
		TRY(expect_wc(e, w.p.a.cq, IBV_WC_SUCCESS, "SEND to SRQ"));
		TRY(expect_wc(e, w.p.b.cq, IBV_WC_SUCCESS, "SRQ RECV"));
	}
	for (i = 0; i < 4; i++)
		CHECK(check_fill(w.dst + i * 4 * e->page, 3 * e->page + i, 60 + i) < 0,
		      "SRQ buffer %d mismatch", i);
	world_free(&w);
	ibv_destroy_srq(srq);
	return T_PASS;
}

static int ud_qp(struct env *e, struct ibv_cq *cq, struct ibv_qp **qp)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1, .max_recv_sge = 1 },
	};

	*qp = ibv_create_qp(e->dev.pd, &ia);
	CHECK(*qp, "create UD qp: %s", strerror(errno));
	CHECK(!lb_ud_ready(&e->dev, *qp, 0x11111111, 0), "UD QP to RTS: %s", e->dev.err);
	return T_PASS;
}

int t_ud_send_recv(struct env *e)
{
	struct ibv_cq *cq1, *cq2;
	struct ibv_qp *q1, *q2;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = e->dev.port };
	struct ibv_ah *ah;
	struct world w;
	size_t len = 4 * e->page, msg = 1000;
	int i;

	if (!odp_ud_caps(e, IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV))
		ST_SKIP(e, "%s: no UD SEND|RECV ODP caps (ud 0x%x)", e->dev_name,
		     e->attr.odp_caps.per_transport_caps.ud_odp_caps);
	cq1 = ibv_create_cq(e->dev.ctx, 64, NULL, NULL, 0);
	cq2 = ibv_create_cq(e->dev.ctx, 64, NULL, NULL, 0);
	CHECK(cq1 && cq2, "cq");
	TRY(ud_qp(e, cq1, &q1));
	TRY(ud_qp(e, cq2, &q2));
	aa.grh.dgid = e->dev.gid;
	aa.grh.sgid_index = e->dev.gid_index;
	aa.grh.hop_limit = 1;
	ah = ibv_create_ah(e->dev.pd, &aa);
	CHECK(ah, "create_ah: %s", strerror(errno));
	TRY(world_bufs(e, &w, len, ODP_ACC, ODP_ACC));
	for (i = 0; i < 3; i++) {
		/* Receive buffer crosses a page boundary; 40-byte GRH first. */
		char *rb = w.dst + (i + 1) * e->page - 500;

		fill(w.src, len, 70 + i);
		CHECK(!post_recv(q2, va(rb), msg + 40, w.dmr->lkey, i), "recv");
		CHECK(!post_send_ud(q1, ah, q2->qp_num, va(w.src) + e->page - 10, msg, w.smr->lkey),
		      "send");
		TRY(expect_wc(e, cq1, IBV_WC_SUCCESS, "UD SEND"));
		TRY(expect_wc(e, cq2, IBV_WC_SUCCESS, "UD RECV"));
		{
			char *want = malloc(e->page + msg);

			CHECK(want, "malloc");
			fill(want, e->page + msg, 70 + i);
			CHECK(!memcmp(rb + 40, want + e->page - 10, msg), "UD payload %d mismatch", i);
			free(want);
		}
	}
	world_free(&w);
	ibv_destroy_ah(ah);
	ibv_destroy_qp(q1);
	ibv_destroy_qp(q2);
	ibv_destroy_cq(cq1);
	ibv_destroy_cq(cq2);
	return T_PASS;
}

/* ------------------------------------------------------------ invalidation */

int t_invalidate_dontneed(struct env *e)
{
	struct world w;
	struct odpc c0, c1, c2;
	struct mrc m0, m1, m2;
	size_t n = 16, len = n * e->page;

	TRY(odp_world(e, &w, len, IBV_ODP_SUPPORT_WRITE));
	fill(w.src, len, 81);
	TRY(do_write(e, &w, 0, 0, len));
	CHECK(resident_pages(w.dst, len) == (long)n, "dst not resident after WRITE");
	TRY(odpc_read(e, &c0));
	TRY(mrc_read(e, w.dmr, &m0));
	CHECK(!madvise(w.dst, len, MADV_DONTNEED), "madvise: %s", strerror(errno));
	TRY(odpc_read(e, &c1));
	TRY(mrc_read(e, w.dmr, &m1));
	CHECK(resident_pages(w.dst, len) == 0, "%ld pages still resident after MADV_DONTNEED",
	      resident_pages(w.dst, len));
	diag("MADV_DONTNEED: device odp_invalidations +%ld, odp_pages_invalidated +%ld",
	     c1.invalidations - c0.invalidations, c1.pages_invalidated - c0.pages_invalidated);
	mrc_diag("MADV_DONTNEED, the MR", &m0, &m1);
	/* One VMA, one zap: one invalidation per child of the MR (per chunk
	 * the range overlaps) of exactly the n mapped pages. */
	CHECK(m0.mapped == (long long)n, "%lld pages mapped before, expected %zu", m0.mapped, n);
	CHECK(m1.invalidations - m0.invalidations == chunks_spanned(w.dst, len),
	      "per-MR invalidations +%lld for one MADV_DONTNEED, expected exactly %ld (one per child)",
	      m1.invalidations - m0.invalidations, chunks_spanned(w.dst, len));
	CHECK(m1.pages_invalidated - m0.pages_invalidated == (long long)n,
	      "per-MR pages_invalidated +%lld, expected exactly the %zu pages dropped",
	      m1.pages_invalidated - m0.pages_invalidated, n);
	CHECK(m1.mapped == 0, "%lld pages still mapped by the MR after MADV_DONTNEED", m1.mapped);
	CHECK(c1.invalidations > c0.invalidations, "no invalidation reached the device counter");
	CHECK(c1.pages_invalidated - c0.pages_invalidated >= (long)n,
	      "fewer pages invalidated than were dropped (device counter)");
	/* The next access faults the (new, zero) pages back in: each once. */
	fill(w.src, len, 82);
	TRY(do_write(e, &w, 0, 0, len));
	TRY(odpc_read(e, &c2));
	TRY(mrc_read(e, w.dmr, &m2));
	CHECK(check_fill(w.dst, len, 82) < 0, "WRITE after DONTNEED not visible");
	mrc_diag("WRITE after MADV_DONTNEED, the MR", &m1, &m2);
	CHECK(m2.pages_faulted - m1.pages_faulted == (long long)n,
	      "per-MR pages_faulted +%lld on the refault, expected exactly %zu",
	      m2.pages_faulted - m1.pages_faulted, n);
	CHECK(m2.mapped == (long long)n, "%lld pages mapped after the refault", m2.mapped);
	CHECK(c2.pages_faulted - c1.pages_faulted >= (long)n, "no refault after invalidation");
	world_free(&w);
	return T_PASS;
}

int t_invalidate_pageout_swap(struct env *e)
{
	struct world w;
	struct odpc c0, c1;
	size_t n = 64, len = n * e->page;
	long out0, out1, in0, in1, res;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	if (swap_total_kb() <= 0)
		ST_SKIP(e, "no swap configured (the guest test sets up zram swap)");
	TRY(world_make(e, &w, len, ODP_ACC, ODP_ACC));
	madvise(w.dst, len, MADV_NOHUGEPAGE);
	fill(w.dst, len, 91);
	/* Fault the responder MR in through an RDMA READ. */
	TRY(do_read(e, &w, 0, 0, len));
	CHECK(check_fill(w.src, len, 91) < 0, "READ mismatch");
	TRY(odpc_read(e, &c0));
	out0 = vmstat("pswpout");
	CHECK(!madvise(w.dst, len, MADV_PAGEOUT), "MADV_PAGEOUT: %s", strerror(errno));
	out1 = vmstat("pswpout");
	TRY(odpc_read(e, &c1));
	res = resident_pages(w.dst, len);
	diag("MADV_PAGEOUT of %zu pages: pswpout +%ld, resident now %ld", n, out1 - out0, res);
	CHECK(out1 - out0 >= (long)n / 2, "the ODP MR's pages were not swapped out (pswpout +%ld)",
	      out1 - out0);
	CHECK(res < (long)n / 2, "%ld of %zu pages still resident", res, n);
	diag("odp_invalidations +%ld, odp_pages_invalidated +%ld",
	     c1.invalidations - c0.invalidations,
	     c1.pages_invalidated - c0.pages_invalidated);
	CHECK(c1.pages_invalidated - c0.pages_invalidated >= out1 - out0,
	      "fewer pages invalidated than swapped out");
	/* RDMA READ swaps them back in, with the right data. */
	memset(w.src, 0, len);
	in0 = vmstat("pswpin");
	TRY(do_read(e, &w, 0, 0, len));
	in1 = vmstat("pswpin");
	diag("RDMA READ of swapped-out pages: pswpin +%ld", in1 - in0);
	CHECK(check_fill(w.src, len, 91) < 0, "data read back after swap-out is wrong");
	CHECK(in1 > in0, "the READ did not swap anything in");
	/* Swap out again, then RDMA WRITE: the process sees the new data. */
	CHECK(!madvise(w.dst, len, MADV_PAGEOUT), "MADV_PAGEOUT");
	fill(w.src, len, 92);
	TRY(do_write(e, &w, 0, 0, len));
	CHECK(check_fill(w.dst, len, 92) < 0, "WRITE into swapped-out pages not visible");
	world_free(&w);
	return T_PASS;
}

/* Control for the above: pages under a pinned MR cannot be paged out. */
int t_pageout_pinned_control(struct env *e)
{
	struct world w;
	size_t n = 64, len = n * e->page;
	long out0, out1, res;

	if (swap_total_kb() <= 0)
		ST_SKIP(e, "no swap configured");
	TRY(world_make(e, &w, len, PIN_ACC, PIN_ACC));
	fill(w.dst, len, 93);
	out0 = vmstat("pswpout");
	CHECK(!madvise(w.dst, len, MADV_PAGEOUT), "MADV_PAGEOUT: %s", strerror(errno));
	out1 = vmstat("pswpout");
	res = resident_pages(w.dst, len);
	diag("pinned MR, MADV_PAGEOUT: pswpout +%ld, resident %ld of %zu", out1 - out0, res, n);
	CHECK(res == (long)n, "pinned pages were reclaimed");
	world_free(&w);
	return T_PASS;
}

/* -------------------------------------------------------------- coherence */

/* Shared by the two coherence tests: after the process's mapping of dst has
 * been replaced (by replace()), an RDMA WRITE through the MR is visible to
 * the process iff odp. */
static int coherence(struct env *e, int odp, int (*replace)(struct env *, char *, size_t))
{
	struct world w;
	size_t len = 8 * e->page;
	int acc = odp ? ODP_ACC : PIN_ACC;

	if (odp)
		TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	TRY(world_make(e, &w, len, acc, acc));
	fill(w.src, len, 101);
	TRY(do_write(e, &w, 0, 0, len));
	CHECK(check_fill(w.dst, len, 101) < 0, "first WRITE not visible");
	TRY(replace(e, w.dst, len));
	CHECK(check_byte(w.dst, len, 0) < 0, "replaced mapping is not zero");
	fill(w.src, len, 102);
	TRY(do_write(e, &w, 0, 0, len));
	if (odp) {
		CHECK(check_fill(w.dst, len, 102) < 0,
		      "ODP: RDMA WRITE after the mapping changed is NOT visible to the process");
		diag("ODP: the process sees the RDMA WRITE into its new pages");
		/* And the other direction: the process's writes are what READ sees. */
		fill(w.dst, len, 103);
		TRY(do_read(e, &w, 0, 0, len));
		CHECK(check_fill(w.src, len, 103) < 0, "ODP: READ does not see the process's data");
	} else {
		CHECK(check_byte(w.dst, len, 0) < 0,
		      "pinned: the WRITE reached the new mapping (expected the stale pinned pages)");
		/* The data went to the old, still pinned pages: READ through the MR shows it. */
		memset(w.src, 0, len);
		TRY(do_read(e, &w, 0, 0, len));
		CHECK(check_fill(w.src, len, 102) < 0, "pinned: READ through the MR lost the data");
		diag("pinned: the WRITE went to the orphaned pinned pages; the process sees zeros");
	}
	world_free(&w);
	return T_PASS;
}

static int replace_dontneed(struct env *e, char *p, size_t len)
{
	(void)e;
	CHECK(!madvise(p, len, MADV_DONTNEED), "MADV_DONTNEED: %s", strerror(errno));
	return T_PASS;
}

static int replace_remap(struct env *e, char *p, size_t len)
{
	void *q;

	(void)e;
	CHECK(!munmap(p, len), "munmap: %s", strerror(errno));
	q = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	CHECK(q == p, "mmap MAP_FIXED at %p: %s", (void *)p, strerror(errno));
	return T_PASS;
}

int t_coherence_dontneed_odp(struct env *e)
{
	return coherence(e, 1, replace_dontneed);
}

int t_coherence_dontneed_pinned(struct env *e)
{
	return coherence(e, 0, replace_dontneed);
}

int t_coherence_remap_odp(struct env *e)
{
	return coherence(e, 1, replace_remap);
}

int t_coherence_remap_pinned(struct env *e)
{
	return coherence(e, 0, replace_remap);
}

/* ------------------------------------------------------------------- fork */

enum { FK_NONE, FK_PARENT_WRITES, FK_CHILD_WRITES };

static int fork_round(struct env *e, struct world *w, int mode, unsigned seed)
{
	static const char *names[] = { "nobody writes", "parent writes", "child writes" };
	int ready[2], go[2], st;
	size_t len = w->len;
	pid_t pid;
	char c;

	memset(w->dst, 'P', len);
	/* Map the MR in before the fork, so the fork has something to invalidate. */
	fill(w->src, len, seed);
	TRY(do_read(e, w, 0, 0, len));
	CHECK(check_byte(w->src, len, 'P') < 0, "pre-fork READ");
	CHECK(!pipe(ready) && !pipe(go), "pipe");
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		unsigned char want = mode == FK_CHILD_WRITES ? 'C' : 'P';

		if (mode == FK_CHILD_WRITES)
			memset(w->dst, 'C', len);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(check_byte(w->dst, len, want) < 0 ? 0 : 1);
	}
	CHECK(read(ready[0], &c, 1) == 1, "child did not get ready");
	if (mode == FK_PARENT_WRITES)
		memset(w->dst, 'Q', len);
	fill(w->src, len, seed);
	TRY(do_write(e, w, 0, 0, len));
	CHECK(check_fill(w->dst, len, seed) < 0,
	      "%s: RDMA WRITE into the parent's ODP MR is not in the parent's pages",
	      names[mode]);
	memset(w->src, 0, len);
	TRY(do_read(e, w, 0, 0, len));
	CHECK(check_fill(w->src, len, seed) < 0, "%s: READ of the parent's MR is wrong",
	      names[mode]);
	CHECK(write(go[1], "g", 1) == 1, "pipe write");
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "%s: the child's copy changed (child status 0x%x): RDMA landed in the child",
	      names[mode], st);
	diag("%s: RDMA WRITE landed in the parent only", names[mode]);
	close(ready[0]);
	close(ready[1]);
	close(go[0]);
	close(go[1]);
	return T_PASS;
}

int t_fork_parent_odp(struct env *e)
{
	struct world w;

	TRY(odp_world(e, &w, 8 * e->page, CAPS_WR_RD));
	TRY(fork_round(e, &w, FK_NONE, 111));
	TRY(fork_round(e, &w, FK_PARENT_WRITES, 112));
	TRY(fork_round(e, &w, FK_CHILD_WRITES, 113));
	world_free(&w);
	return T_PASS;
}

/* The same three rounds through one implicit MR: its lkey and rkey on two
 * 16-page buffers, each across a chunk boundary, so that the MR has
 * children (4, made by the READ before the first fork) when the process
 * forks. */
int t_fork_implicit(struct env *e)
{
	size_t chunk = chunk_size();
	long long children;
	struct world w;
	char *area;

	TRY(need_odp_rc(e, CAPS_WR_RD));
	if (!(e->attr.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT))
		ST_SKIP(e, "%s does not advertise IBV_ODP_SUPPORT_IMPLICIT", e->dev_name);
	if (!chunk)
		ST_SKIP(e, "no odp_child_shift parameter: not rxe-odp's children");
	memset(&w, 0, sizeof(w));
	area = map_anon(4 * chunk, chunk);
	CHECK(area, "mmap: %s", strerror(errno));
	w.len = 16 * e->page;
	w.src = area + chunk - 8 * e->page;
	w.dst = area + 3 * chunk - 8 * e->page;
	w.smr = reg(e, NULL, SIZE_MAX, ODP_ACC);
	CHECK(w.smr, "implicit ODP registration");
	w.dmr = w.smr;
	TRY(rc_pair_create(e, &w.p, NULL));
	TRY(fork_round(e, &w, FK_NONE, 121));
	children = mr_driver_attr(e->dev_name, w.smr->lkey, "odp_children");
	diag("implicit MR: %lld children after the first fork", children);
	CHECK(children >= 4, "the implicit MR has %lld children, expected 4 or more", children);
	TRY(fork_round(e, &w, FK_PARENT_WRITES, 122));
	TRY(fork_round(e, &w, FK_CHILD_WRITES, 123));
	w.dmr = NULL;
	w.src = w.dst = NULL;
	world_free(&w);
	munmap(area, 4 * chunk);
	return T_PASS;
}

/* ----------------------------------------------------------------- errors */

#define REM IBV_WC_REM_ACCESS_ERR
#define LOC IBV_WC_LOC_PROT_ERR
#define LOCERR 0x100	/* one_shot: any error status */

/* Post one WR on a fresh QP pair, expect status st on the requester and the
 * requester QP in the error state afterwards. */
static int one_shot(struct env *e, enum ibv_wr_opcode op, uint64_t laddr, uint32_t len,
		    uint32_t lkey, uint64_t raddr, uint32_t rkey, enum ibv_wc_status st,
		    const char *what)
{
	struct lb_pair p;
	int r;

	TRY(rc_pair_create(e, &p, NULL));
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP)
		r = post_atomic(p.a.qp, op, laddr, lkey, raddr, rkey, 1, 2);
	else
		r = post_rdma(p.a.qp, op, laddr, len, lkey, raddr, rkey, 9);
	CHECK(!r, "%s: post failed", what);
	if ((int)st == LOCERR) {
		/* Any error completion; the exact status is checked by
		 * err_local_prot_status. */
		struct ibv_wc wc;

		CHECK(poll_one(e, p.a.cq, &wc) == 1, "%s: no completion", what);
		CHECK(wc.status != IBV_WC_SUCCESS, "%s: completed successfully", what);
		st = wc.status;
	} else {
		TRY(expect_wc(e, p.a.cq, st, what));
	}
	r = st == IBV_WC_SUCCESS ? qp_state(p.a.qp) : wait_qp_err(e, p.a.qp);
	CHECK(st == IBV_WC_SUCCESS || r == IBV_QPS_ERR, "%s: requester QP state %d, not ERR",
	      what, r);
	diag("%s -> %s%s", what, wc_str(st), st == IBV_WC_SUCCESS ? "" : ", QP in ERR");
	lb_pair_destroy(&p);
	return T_PASS;
}


/* one_shot from w's source (at byte soff) to its destination (at doff), with
 * w's keys: an error case then says only what differs. */
static int shot(struct env *e, struct world *w, enum ibv_wr_opcode op, int64_t soff,
		uint32_t len, int64_t doff, enum ibv_wc_status st, const char *what)
{
	return one_shot(e, op, va(w->src) + soff, len, w->smr->lkey, va(w->dst) + doff,
			w->dmr->rkey, st, what);
}

/* Short names for the error cases' tables of shots. */
#define WR IBV_WR_RDMA_WRITE
#define RD IBV_WR_RDMA_READ
#define FADD IBV_WR_ATOMIC_FETCH_AND_ADD
#define CSWP IBV_WR_ATOMIC_CMP_AND_SWP
#define OK IBV_WC_SUCCESS

int t_err_outside_mr(struct env *e)
{
	struct world w;
	size_t len = 4 * e->page;

	TRY(odp_world(e, &w, len, CAPS_WR_RD));
	memset(w.dst, 7, len);
	TRY(shot(e, &w, WR, 0, 100, len - 10, REM, "remote WRITE across the MR end"));
	TRY(shot(e, &w, RD, 0, 100, -50, REM, "remote READ before the MR start"));
	TRY(shot(e, &w, FADD, 0, 8, len, REM, "atomic just past the MR"));
	TRY(shot(e, &w, WR, len - 10, 100, 0, LOCERR, "local WRITE source across the MR end"));
	TRY(shot(e, &w, RD, len - 10, 100, 0, LOCERR, "local READ destination across the MR end"));
	CHECK(check_byte(w.dst, len, 7) < 0, "responder memory changed by refused accesses");
	world_free(&w);
	return T_PASS;
}

int t_err_munmapped(struct env *e)
{
	struct world w;
	size_t pg = e->page, len = 8 * pg, hole = 4 * pg;

	TRY(odp_world(e, &w, len, CAPS_WR_RD_AT));
	fill(w.src, len, 1);
	TRY(do_write(e, &w, 0, 0, len));	/* everything mapped in first */
	CHECK(!munmap(w.dst + hole, 2 * pg), "munmap");
	TRY(shot(e, &w, WR, 0, 64, hole + 8, REM, "remote WRITE into a munmapped range"));
	TRY(shot(e, &w, RD, 0, 64, hole + pg, REM, "remote READ from a munmapped range"));
	TRY(shot(e, &w, CSWP, 0, 8, hole, REM, "atomic on a munmapped range"));
	TRY(shot(e, &w, WR, 0, 3 * pg, 3 * pg, REM,
		 "remote WRITE starting mapped, running into the hole"));
	/* Local side: the source and the READ destination munmapped. */
	CHECK(!munmap(w.src + 4 * pg, 2 * pg), "munmap");
	TRY(shot(e, &w, WR, 4 * pg, 64, 0, LOCERR, "local WRITE source munmapped"));
	TRY(shot(e, &w, RD, 5 * pg, 64, 0, LOCERR, "local READ destination munmapped"));
	TRY(shot(e, &w, IBV_WR_SEND, 4 * pg, 64, 0, LOCERR, "local SEND source munmapped"));
	/* The mapped parts still work (fresh QP). */
	fill(w.src, pg, 2);
	TRY(shot(e, &w, WR, 0, pg, 0, OK, "WRITE into the still-mapped part"));
	CHECK(check_fill(w.dst, pg, 2) < 0, "mapped part data");
	w.len = 4 * pg;	/* unmap only what is left at free time */
	munmap(w.dst + 6 * pg, 2 * pg);
	munmap(w.src + 6 * pg, 2 * pg);
	world_free(&w);
	return T_PASS;
}

/* Receive buffer munmapped: a local protection fault on the receiver; the
 * sender learns of it as a remote operational error. */
int t_err_recv_munmapped(struct env *e)
{
	struct world w;
	size_t len = 4 * e->page;
	struct ibv_wc wc;
	int r;

	TRY(odp_world(e, &w, len, IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV));
	CHECK(!munmap(w.dst + e->page, e->page), "munmap");
	CHECK(!post_recv(w.p.b.qp, va(w.dst) + e->page, e->page, w.dmr->lkey, 1), "recv");
	CHECK(!post_rdma(w.p.a.qp, IBV_WR_SEND, va(w.src), 100, w.smr->lkey, 0, 0, 1), "send");
	r = poll_one(e, w.p.b.cq, &wc);
	CHECK(r == 1, "receiver: no completion");
	diag("receiver completion: %s", wc_str(wc.status));
	CHECK(wc.status == IBV_WC_LOC_PROT_ERR, "receiver: %s, expected %s", wc_str(wc.status),
	      wc_str(IBV_WC_LOC_PROT_ERR));
	r = poll_one(e, w.p.a.cq, &wc);
	CHECK(r == 1, "requester: no completion");
	diag("requester completion: %s", wc_str(wc.status));
	CHECK(wc.status == IBV_WC_REM_OP_ERR, "requester: %s, expected %s", wc_str(wc.status),
	      wc_str(IBV_WC_REM_OP_ERR));
	CHECK(wait_qp_err(e, w.p.b.qp) == IBV_QPS_ERR, "receiver QP not in ERR");
	munmap(w.dst, e->page);
	w.dst += 2 * e->page;
	w.len = 2 * e->page;
	munmap(w.src + 2 * e->page, 2 * e->page);
	world_free(&w);
	return T_PASS;
}

int t_err_prot_none(struct env *e)
{
	struct world w;
	size_t pg = e->page, len = 4 * pg;

	TRY(odp_world(e, &w, len, CAPS_WR_RD));
	fill(w.src, len, 3);
	TRY(do_write(e, &w, 0, 0, len));	/* mapped before the mprotect */
	CHECK(!mprotect(w.dst + pg, 2 * pg, PROT_NONE), "mprotect");
	TRY(shot(e, &w, WR, 0, 64, pg, REM, "remote WRITE into PROT_NONE (was mapped)"));
	TRY(shot(e, &w, RD, 0, 64, 2 * pg, REM, "remote READ from PROT_NONE"));
	CHECK(!mprotect(w.src + pg, pg, PROT_NONE), "mprotect");
	TRY(shot(e, &w, WR, pg, 64, 0, LOCERR, "local WRITE source PROT_NONE"));
	TRY(shot(e, &w, RD, pg, 64, 0, LOCERR, "local READ destination PROT_NONE"));
	CHECK(!mprotect(w.dst, len, PROT_READ | PROT_WRITE), "mprotect back");
	CHECK(check_fill(w.dst, len, 3) < 0, "PROT_NONE pages changed");
	world_free(&w);
	return T_PASS;
}

int t_err_readonly_mapping(struct env *e)
{
	struct world w;
	size_t pg = e->page, len = 4 * pg;

	/* Registered with remote write on writable memory, then made read-only;
	 * page 0 mapped writable in the MR first, the others never touched. */
	TRY(odp_world(e, &w, len, CAPS_WR_RD_AT));
	fill(w.src, len, 4);
	TRY(do_write(e, &w, 0, 0, pg));
	CHECK(!mprotect(w.dst, len, PROT_READ), "mprotect");
	TRY(shot(e, &w, WR, 0, 64, 0, REM,
		 "remote WRITE into a page made read-only (was mapped writable)"));
	TRY(shot(e, &w, WR, 0, 64, 2 * pg, REM, "remote WRITE into a read-only, never-touched page"));
	TRY(shot(e, &w, FADD, 0, 8, 8, REM, "atomic on a read-only page"));
	/* Reading stays fine, and a READ first then a WRITE must not loop. */
	TRY(shot(e, &w, RD, pg, 64, 3 * pg, OK, "remote READ of a read-only page"));
	TRY(shot(e, &w, WR, 0, 64, 3 * pg, REM, "remote WRITE into the read-only page just READ"));
	CHECK(check_fill(w.dst, pg, 4) < 0, "read-only page 0 changed");
	CHECK(check_byte(w.dst + pg, 3 * pg, 0) < 0, "read-only pages changed");
	world_free(&w);
	return T_PASS;
}

/* w with another destination buffer and MR, for shot(). */
static struct world retarget(const struct world *w, char *dst, struct ibv_mr *mr)
{
	struct world t = *w;

	t.dst = dst;
	t.dmr = mr;
	return t;
}

int t_err_readonly_registration(struct env *e)
{
	struct world w, r;
	size_t len = 4 * e->page;
	char *ro;
	struct ibv_mr *rmr, *wmr;

	TRY(odp_world(e, &w, len, CAPS_WR_RD));
	ro = map_anon(len, e->page);
	CHECK(ro, "mmap");
	fill(ro, len, 5);
	CHECK(!mprotect(ro, len, PROT_READ), "mprotect");
	/* MR registered read-only (remote read only) on read-only memory. */
	rmr = reg(e, ro, len, IBV_ACCESS_ON_DEMAND | IBV_ACCESS_REMOTE_READ);
	CHECK(rmr, "read-only ODP registration failed");
	r = retarget(&w, ro, rmr);
	TRY(shot(e, &r, RD, 0, len, 0, OK, "remote READ of a read-only ODP MR"));
	CHECK(check_fill(w.src, len, 5) < 0, "READ data from read-only MR");
	TRY(shot(e, &r, WR, 0, 64, 0, REM, "remote WRITE with a read-only MR's rkey"));
	/* MR registered with remote write on read-only memory: ODP registration
	 * does not look at the VMA, so either it is refused, or every write is. */
	wmr = ibv_reg_mr(e->dev.pd, ro, len, ODP_ACC);
	if (!wmr) {
		diag("writable ODP registration of read-only memory refused: %s", strerror(errno));
	} else {
		r = retarget(&w, ro, wmr);
		TRY(shot(e, &r, WR, 0, 64, 100, REM,
			 "remote WRITE into read-only memory via a writable MR"));
		TRY(shot(e, &r, RD, 0, 64, 100, OK, "remote READ via the same MR"));
		ibv_dereg_mr(wmr);
	}
	CHECK(check_fill(ro, len, 5) < 0, "read-only memory changed");
	ibv_dereg_mr(rmr);
	munmap(ro, len);
	world_free(&w);
	return T_PASS;
}

int t_err_iova_wrap(struct env *e)
{
	struct world w;
	size_t pg = e->page, len = 4 * pg;
	uint64_t top = 0ULL - 8 * (uint64_t)pg;	/* iova 2^64 - 8 pages */
	struct ibv_mr *hi;

	TRY(odp_world(e, &w, len, CAPS_WR_RD_AT));
	memset(w.dst, 9, len);
	/* Absolute addresses near 2^64: one_shot, not offsets. */
	TRY(one_shot(e, WR, va(w.src), 4096, w.smr->lkey, UINT64_MAX - 100, w.dmr->rkey, REM,
		     "remote WRITE at 2^64-100, 4096 bytes (wraps)"));
	TRY(one_shot(e, RD, va(w.src), 64, w.smr->lkey, UINT64_MAX - 10, w.dmr->rkey, REM,
		     "remote READ at 2^64-10 (wraps)"));
	TRY(one_shot(e, FADD, va(w.src), 8, w.smr->lkey, UINT64_MAX - 7, w.dmr->rkey, REM,
		     "atomic at 2^64-8"));
	TRY(one_shot(e, WR, UINT64_MAX - 50, 100, w.smr->lkey, va(w.dst), w.dmr->rkey, LOCERR,
		     "local SGE at 2^64-50, 100 bytes (wraps)"));
	TRY(shot(e, &w, WR, 0, 0x7fffffff, 0, LOCERR, "local SGE of 2 GiB on a 16 KiB MR"));
	CHECK(check_byte(w.dst, len, 9) < 0, "memory changed by wrapping accesses");
	/* An MR whose iova sits just below 2^64. */
	hi = ibv_reg_mr_iova(e->dev.pd, w.dst, len, top, ODP_ACC);
	CHECK(hi, "ibv_reg_mr_iova at 2^64 - 8 pages: %s", strerror(errno));
	fill(w.src, len, 6);
	TRY(one_shot(e, WR, va(w.src), pg, w.smr->lkey, top + 3 * pg, hi->rkey, OK,
		     "WRITE into the last page of a top-of-space MR"));
	CHECK(check_fill(w.dst + 3 * pg, pg, 6) < 0, "top-of-space WRITE data");
	TRY(one_shot(e, WR, va(w.src), 2 * pg, w.smr->lkey, top + 3 * pg, hi->rkey, REM,
		     "WRITE past the end of a top-of-space MR"));
	TRY(one_shot(e, WR, va(w.src), 2 * pg, w.smr->lkey, UINT64_MAX - pg + 1, hi->rkey, REM,
		     "WRITE at 2^64-1 page with a top-of-space MR (wraps)"));
	CHECK(check_byte(w.dst, 3 * pg, 9) < 0, "memory outside the target changed");
	ibv_dereg_mr(hi);
	world_free(&w);
	return T_PASS;
}

/* Local protection faults report IBV_WC_LOC_PROT_ERR (not a flush, not a
 * QP operation error). */
int t_err_local_prot_status(struct env *e)
{
	struct world w, pw;
	size_t pg = e->page, len = 8 * pg;
	int bad = 0;

	TRY(odp_world(e, &w, len, CAPS_WR_RD));
	TRY(world_make(e, &pw, len, PIN_ACC, PIN_ACC));
	fill(w.src, len, 1);
	/* Every case runs (a fresh QP each), so one run shows all statuses. */
	bad |= shot(e, &pw, WR, len - 10, 100, 0, LOC, "pinned: local WRITE source across the MR end");
	bad |= shot(e, &w, WR, len - 10, 100, 0, LOC, "ODP: local WRITE source across the MR end");
	bad |= one_shot(e, WR, UINT64_MAX - 50, 100, w.smr->lkey, va(w.dst), w.dmr->rkey, LOC,
			"ODP: local SGE at 2^64-50 (wraps)");
	CHECK(!mprotect(w.src + pg, pg, PROT_NONE), "mprotect");
	bad |= shot(e, &w, WR, pg, 64, 0, LOC, "ODP: local WRITE source PROT_NONE");
	bad |= shot(e, &w, RD, pg, 64, 0, LOC, "ODP: local READ destination PROT_NONE");
	bad |= shot(e, &w, IBV_WR_SEND, pg, 64, 0, LOC, "ODP: local SEND source PROT_NONE");
	CHECK(!mprotect(w.src + pg, pg, PROT_READ | PROT_WRITE), "mprotect");
	world_free(&w);
	world_free(&pw);
	return bad ? T_FAIL : T_PASS;
}

/* Valid accesses right next to unmapped, PROT_NONE and read-only pages of the
 * same MR succeed: only the pages an access needs decide its outcome. */
int t_access_next_to_hole(struct env *e)
{
	struct world w;
	size_t n = 16, len = n * e->page;

	TRY(odp_world(e, &w, len, CAPS_WR_RD));
	/* dst: pages 0-3 ok, 4 unmapped, 5-7 ok, 8 PROT_NONE, 9-11 ok, 12 read-only,
	 * 13-15 ok.  Nothing touched yet, so every access below faults. */
	CHECK(!munmap(w.dst + 4 * e->page, e->page), "munmap");
	CHECK(!mprotect(w.dst + 8 * e->page, e->page, PROT_NONE), "mprotect");
	CHECK(!mprotect(w.dst + 12 * e->page, e->page, PROT_READ), "mprotect");
	fill(w.src, len, 151);
	TRY(do_write(e, &w, 0, 0, 4 * e->page));
	TRY(do_write(e, &w, 5 * e->page, 5 * e->page, 3 * e->page));
	TRY(do_write(e, &w, 9 * e->page, 9 * e->page, 3 * e->page));
	TRY(do_write(e, &w, 13 * e->page, 13 * e->page, 3 * e->page));
	{
		char *want = malloc(len);
		size_t pg[] = { 0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15 }, i;

		CHECK(want, "malloc");
		fill(want, len, 151);
		for (i = 0; i < sizeof(pg) / sizeof(pg[0]); i++)
			CHECK(!memcmp(w.dst + pg[i] * e->page, want + pg[i] * e->page, e->page),
			      "page %zu wrong", pg[i]);
		free(want);
	}
	TRY(do_read(e, &w, 0, 9 * e->page, 4 * e->page));	/* 9-11 + read-only 12 */
	CHECK(!memcmp(w.src, w.dst + 9 * e->page, 4 * e->page), "READ data");
	CHECK(!mprotect(w.dst + 8 * e->page, e->page, PROT_READ | PROT_WRITE), "mprotect");
	munmap(w.dst, 4 * e->page);
	w.dst += 5 * e->page;
	w.len = 11 * e->page;
	munmap(w.src + 11 * e->page, 5 * e->page);
	world_free(&w);
	return T_PASS;
}

/* An RDMA READ of untouched ODP memory maps the shared zero page; a later
 * RDMA WRITE must break COW on every page and succeed. */
int t_write_after_read_untouched(struct env *e)
{
	struct world w;
	size_t len = 256 * e->page;

	TRY(odp_world(e, &w, len, CAPS_WR_RD));
	madvise(w.dst, len, MADV_NOHUGEPAGE);
	TRY(do_read(e, &w, 0, 0, len));
	CHECK(check_byte(w.src, len, 0) < 0, "untouched memory not zero");
	fill(w.src, len, 161);
	TRY(do_write(e, &w, 0, 0, len));
	CHECK(check_fill(w.dst, len, 161) < 0, "WRITE after READ of zero pages not visible");
	world_free(&w);
	return T_PASS;
}

/* ------------------------------------------------------- teardown races */

static int acceptable_race_status(enum ibv_wc_status s)
{
	/* A WR whose local MR is deregistered under it finds no lkey: rxe
	 * reports that as LOC_QP_OP_ERR. */
	return s == IBV_WC_SUCCESS || s == IBV_WC_REM_ACCESS_ERR || s == IBV_WC_WR_FLUSH_ERR ||
	       s == IBV_WC_LOC_PROT_ERR || s == IBV_WC_REM_OP_ERR || s == IBV_WC_LOC_QP_OP_ERR;
}

/* Drain n completions; every status must be one a racing teardown can cause. */
static int drain(struct env *e, struct ibv_cq *cq, int n, const char *what)
{
	int i, counts[32] = { 0 };
	struct ibv_wc wc;

	for (i = 0; i < n; i++) {
		int r = poll_one(e, cq, &wc);

		CHECK(r == 1, "%s: completion %d of %d never came (hang?)", what, i + 1, n);
		CHECK(acceptable_race_status(wc.status), "%s: status %s", what, wc_str(wc.status));
		counts[wc.status & 31]++;
	}
	diag("%s: %d completions: %d success, %d rem-access, %d rem-op, %d loc-prot, %d loc-qp-op, %d flushed",
	     what, n, counts[IBV_WC_SUCCESS], counts[IBV_WC_REM_ACCESS_ERR],
	     counts[IBV_WC_REM_OP_ERR], counts[IBV_WC_LOC_PROT_ERR], counts[IBV_WC_LOC_QP_OP_ERR],
	     counts[IBV_WC_WR_FLUSH_ERR]);
	return T_PASS;
}

/* n WRs in flight on w's pair, alternately RDMA WRITE and READ of all of w's
 * source against dst (rkey): the traffic a teardown race cuts into. */
static int post_mix(struct world *w, int n, uint64_t dst, uint32_t rkey)
{
	int i;

	for (i = 0; i < n; i++)
		CHECK(!post_rdma(w->p.a.qp, i & 1 ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
				 va(w->src), w->len, w->smr->lkey, dst, rkey, i), "post");
	return T_PASS;
}

int t_dereg_inflight(struct env *e)
{
	struct world w;
	size_t len = 64 * e->page;
	int n = 48, base, r;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	base = mr_count(e->dev_name);
	TRY(world_make(e, &w, len, ODP_ACC, ODP_ACC));
	fill(w.src, len, 7);
	TRY(post_mix(&w, n, va(w.dst), w.dmr->rkey));
	r = ibv_dereg_mr(w.dmr);
	CHECK(!r, "dereg of the responder MR during traffic: %s", strerror(r));
	w.dmr = NULL;
	TRY(drain(e, w.p.a.cq, n, "responder MR deregistered mid-flight"));
	/* Now the requester's own MR, with a fresh QP and a fresh responder MR. */
	lb_pair_destroy(&w.p);
	TRY(rc_pair_create(e, &w.p, NULL));
	w.dmr = reg(e, w.dst, len, ODP_ACC);
	CHECK(w.dmr, "re-register");
	TRY(post_mix(&w, n, va(w.dst), w.dmr->rkey));
	r = ibv_dereg_mr(w.smr);
	CHECK(!r, "dereg of the requester MR during traffic: %s", strerror(r));
	w.smr = NULL;
	TRY(drain(e, w.p.a.cq, n, "requester MR deregistered mid-flight"));
	world_free(&w);
	r = mr_count(e->dev_name);
	CHECK(r == base, "MR count %d after teardown, %d before: leak", r, base);
	return T_PASS;
}

int t_munmap_inflight(struct env *e)
{
	struct world w;
	size_t len = 64 * e->page;
	int n = 48, base, r;
	char *dst2;
	struct ibv_mr *dmr2;
	struct lb_pair p2;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	base = mr_count(e->dev_name);
	TRY(world_make(e, &w, len, ODP_ACC, ODP_ACC));
	TRY(rc_pair_create(e, &p2, NULL));
	fill(w.src, len, 8);
	TRY(post_mix(&w, n, va(w.dst), w.dmr->rkey));
	CHECK(!munmap(w.dst, len), "munmap");
	TRY(drain(e, w.p.a.cq, n, "responder buffer munmapped mid-flight"));
	/* Nothing is mapped there now (no new QP/CQ was created since: their
	 * queue mmaps could land in the hole): the MR's range is a hole. */
	CHECK(!post_rdma(p2.a.qp, IBV_WR_RDMA_READ, va(w.src), len, w.smr->lkey, va(w.dst),
			 w.dmr->rkey, 1), "post");
	TRY(expect_wc(e, p2.a.cq, REM, "READ from the munmapped MR afterwards"));
	lb_pair_destroy(&p2);
	w.dst = NULL;
	/* The requester's buffer munmapped mid-flight, with a valid responder. */
	dst2 = map_anon(len, e->page);
	CHECK(dst2, "mmap");
	dmr2 = reg(e, dst2, len, ODP_ACC);
	CHECK(dmr2, "reg");
	lb_pair_destroy(&w.p);
	TRY(rc_pair_create(e, &w.p, NULL));
	TRY(post_mix(&w, n, va(dst2), dmr2->rkey));
	CHECK(!munmap(w.src, len), "munmap");
	w.src = NULL;
	TRY(drain(e, w.p.a.cq, n, "requester buffer munmapped mid-flight"));
	ibv_dereg_mr(dmr2);
	munmap(dst2, len);
	world_free(&w);
	r = mr_count(e->dev_name);
	CHECK(r == base, "MR count %d after teardown, %d before: leak", r, base);
	return T_PASS;
}

/* The device's MR count back to base within 30 s, once a child process
 * that had MRs has ended (how: "killed", "exited"). */
static int mr_count_back(struct env *e, int base, const char *how)
{
	int now = mr_count(e->dev_name), i;

	for (i = 0; now != base && i < 300; i++) {
		usleep(100 * 1000);
		now = mr_count(e->dev_name);
	}
	CHECK(now == base, "MR count %d, expected %d after the child %s: leak", now, base, how);
	diag("the %s child's MRs are gone (count back to %d)", how, base);
	return T_PASS;
}

/* A child process doing ODP traffic is SIGKILLed mid-flight: no hang, and
 * all its MRs disappear. */
int t_exit_inflight(struct env *e)
{
	int ready[2], st, base, now = -1;
	pid_t pid;
	char c;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	base = mr_count(e->dev_name);
	CHECK(base >= 0, "cannot count MRs (rdma resource show)");
	CHECK(!pipe(ready), "pipe");
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid) {
		struct env ce = *e;
		struct world w;
		size_t len = 64 * e->page;
		long done = 0, posted = 0;
		struct ibv_wc wc;

		if (env_open(&ce) || world_make(&ce, &w, len, ODP_ACC, ODP_ACC))
			_exit(3);
		for (;;) {
			while (posted - done < 64) {
				if (post_rdma(w.p.a.qp, posted & 1 ? IBV_WR_RDMA_READ :
					      IBV_WR_RDMA_WRITE, va(w.src), len, w.smr->lkey,
					      va(w.dst), w.dmr->rkey, posted))
					_exit(4);
				posted++;
			}
			if (ibv_poll_cq(w.p.a.cq, 1, &wc) == 1) {
				if (wc.status != IBV_WC_SUCCESS)
					_exit(5);
				if (++done == 20 && write(ready[1], "r", 1) != 1)
					_exit(6);
				/* keep the pages moving too */
				if (done % 16 == 0)
					madvise(w.dst, len, MADV_DONTNEED);
			}
		}
	}
	close(ready[1]);
	CHECK(read(ready[0], &c, 1) == 1, "child failed before it got going");
	now = mr_count(e->dev_name);
	diag("child has %d MRs registered (baseline %d); killing it mid-flight", now - base, base);
	CHECK(now - base == 2, "child's MRs not visible in restrack");
	usleep(200 * 1000);
	CHECK(!kill(pid, SIGKILL), "kill");
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "child ended on its own: 0x%x", st);
	TRY(mr_count_back(e, base, "killed"));
	return T_PASS;
}

#define EXIT_MRS 4
#define EXIT_CHUNKS 32

/* The child of t_exit_implicit(): EXIT_MRS implicit MRs, each written
 * through (rkey) and from (lkey) in every one of EXIT_CHUNKS chunks, its
 * QP pair connected, WRITEs left posted; it tells the parent how many
 * children its MRs have, waits for the word and exits without freeing
 * anything.  Exit status: 0, or the step that failed. */
static int exit_implicit_child(struct env *e, int ready, int go)
{
	size_t chunk = chunk_size(), len = EXIT_CHUNKS * chunk;
	struct ibv_mr *mr[EXIT_MRS];
	long long children = 0, n;
	struct lb_pair p;
	struct env ce = *e;
	struct ibv_wc wc;
	char *area, c;
	int i, k;

	if (env_open(&ce) || rc_pair_create(&ce, &p, NULL))
		return 3;
	area = map_anon(len, chunk);
	if (!area)
		return 4;
	for (i = 0; i < EXIT_MRS; i++) {
		mr[i] = reg(&ce, NULL, SIZE_MAX, ODP_ACC);
		if (!mr[i])
			return 5;
	}
	/* page i of chunk k from page i + 1 of chunk k: MR i's rkey, the
	 * next MR's lkey */
	for (k = 0; k < EXIT_CHUNKS; k++)
		for (i = 0; i < EXIT_MRS; i++) {
			char *dst = area + k * chunk + i * e->page;

			fill(dst + e->page, e->page, 90 + i + k);
			if (post_rdma(p.a.qp, IBV_WR_RDMA_WRITE, va(dst + e->page), e->page,
				      mr[(i + 1) % EXIT_MRS]->lkey, va(dst), mr[i]->rkey, k))
				return 6;
			if (poll_one(&ce, p.a.cq, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
				return 7;
			if (check_fill(dst, e->page, 90 + i + k) >= 0)
				return 8;
		}
	for (i = 0; i < EXIT_MRS; i++) {
		n = mr_driver_attr(ce.dev_name, mr[i]->lkey, "odp_children");
		if (n < 0)
			return 9;
		children += n;
	}
	/* work still posted when the process goes */
	for (k = 0; k < 8; k++)
		if (post_rdma(p.a.qp, IBV_WR_RDMA_READ, va(area) + e->page, e->page, mr[0]->lkey,
			      va(area) + k * chunk, mr[1]->rkey, 100 + k))
			return 10;
	if (write(ready, &children, sizeof(children)) != sizeof(children) ||
	    read(go, &c, 1) != 1)
		return 11;
	return 0;
}

/* A process with live implicit MRs (several, children in many chunks, a
 * connected QP pair with work posted) exits normally without deregistering
 * anything: afterwards none of its MRs is left (the per-MR release frees
 * the children; a child left over would WARN, which fails the run's console
 * check, and the debug kernel's KASAN and lockdep watch the teardown). */
int t_exit_implicit(struct env *e)
{
	int ready[2], go[2], st, base, now;
	long long children = 0;
	pid_t pid;

	TRY(need_odp_rc(e, CAPS_WR_RD));
	if (!(e->attr.odp_caps.general_caps & IBV_ODP_SUPPORT_IMPLICIT))
		ST_SKIP(e, "%s does not advertise IBV_ODP_SUPPORT_IMPLICIT", e->dev_name);
	if (!chunk_size())
		ST_SKIP(e, "no odp_child_shift parameter: not rxe-odp's children");
	base = mr_count(e->dev_name);
	CHECK(base >= 0, "cannot count MRs (rdma resource show)");
	CHECK(!pipe(ready) && !pipe(go), "pipe");
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid)
		_exit(exit_implicit_child(e, ready[1], go[0]));
	close(ready[1]);
	close(go[0]);
	if (read(ready[0], &children, sizeof(children)) != sizeof(children)) {
		waitpid(pid, &st, 0);
		CHECK(0, "the child failed before it was set up (status 0x%x)", st);
	}
	now = mr_count(e->dev_name);
	diag("child: %d MRs (baseline %d), %lld children in all", now - base, base, children);
	CHECK(now - base == EXIT_MRS, "the child's MRs are not all in restrack");
	CHECK(children >= EXIT_MRS * EXIT_CHUNKS, "the child's MRs have %lld children, expected %d",
	      children, EXIT_MRS * EXIT_CHUNKS);
	CHECK(write(go[1], "g", 1) == 1, "pipe write");
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status 0x%x", st);
	TRY(mr_count_back(e, base, "exited"));
	close(ready[0]);
	close(go[1]);
	return T_PASS;
}

/* -------------------------------------------------------- THP / migration */

int t_thp_split(struct env *e)
{
	struct world w;
	struct odpc c0, c1;
	size_t len = 2 * HPAGE, hole = HPAGE / 2;
	char *b;
	struct ibv_mr *mr;
	int thp;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	b = map_anon(len, HPAGE);
	CHECK(b, "mmap");
	madvise(b, len, MADV_HUGEPAGE);
	memset(b, 1, len);
	thp = is_thp(b);
	if (thp < 0)
		ST_SKIP(e, "cannot read /proc/kpageflags (needs root)");
	if (!thp)
		ST_SKIP(e, "no transparent huge page was allocated (THP disabled?)");
	CHECK(is_thp(b + HPAGE) == 1, "second 2 MiB not THP");
	TRY(world_make(e, &w, len, ODP_ACC, ODP_ACC));
	mr = reg(e, b, len, ODP_ACC);
	CHECK(mr, "reg");
	fill(w.src, len, 121);
	TRY(rdma_ok(e, &w, IBV_WR_RDMA_WRITE, va(w.src), len, w.smr->lkey, va(b), mr->rkey,
		    "WRITE into THP-backed ODP MR"));
	CHECK(check_fill(b, len, 121) < 0, "THP data");
	TRY(odpc_read(e, &c0));
	/* Split both huge pages: one by a partial munmap, one by MADV_NOHUGEPAGE
	 * plus a partial MADV_DONTNEED. */
	CHECK(!munmap(b + hole, e->page), "partial munmap");
	CHECK(!madvise(b + HPAGE, HPAGE, MADV_NOHUGEPAGE), "MADV_NOHUGEPAGE");
	CHECK(!madvise(b + HPAGE + hole, e->page, MADV_DONTNEED), "partial DONTNEED");
	TRY(odpc_read(e, &c1));
	diag("split: odp_invalidations +%ld, pages +%ld", c1.invalidations - c0.invalidations,
	     c1.pages_invalidated - c0.pages_invalidated);
	CHECK(c1.invalidations - c0.invalidations >= 2, "the splits were not invalidated");
	/* RDMA into what is left, around the holes. */
	fill(w.src, len, 122);
	TRY(rdma_ok(e, &w, IBV_WR_RDMA_WRITE, va(w.src), hole, w.smr->lkey, va(b), mr->rkey,
		    "WRITE below the munmap hole"));
	TRY(rdma_ok(e, &w, IBV_WR_RDMA_WRITE, va(w.src) + hole + e->page, len - hole - e->page,
		    w.smr->lkey, va(b) + hole + e->page, mr->rkey,
		    "WRITE above the hole, across the split THP"));
	CHECK(check_fill(b, hole, 122) < 0, "data below the hole");
	{
		char *want = malloc(len);

		CHECK(want, "malloc");
		fill(want, len, 122);
		CHECK(!memcmp(b + hole + e->page, want + hole + e->page, len - hole - e->page),
		      "data above the hole (incl. the DONTNEED'd page) wrong after the split");
		free(want);
	}
	/* Process writes are seen by READ. */
	fill(b + HPAGE, HPAGE, 123);
	memset(w.dst, 0, len);
	TRY(rdma_ok(e, &w, IBV_WR_RDMA_READ, va(w.dst), HPAGE, w.dmr->lkey, va(b) + HPAGE, mr->rkey,
		    "READ of the split THP"));
	CHECK(check_fill(w.dst, HPAGE, 123) < 0, "READ after split");
	TRY(one_shot(e, IBV_WR_RDMA_WRITE, va(w.src), 64, w.smr->lkey, va(b) + hole, mr->rkey,
		     REM, "WRITE into the munmapped hole of the split THP"));
	ibv_dereg_mr(mr);
	munmap(b, hole);
	munmap(b + hole + e->page, len - hole - e->page);
	world_free(&w);
	return T_PASS;
}

/* MADV_COLLAPSE copies 512 small pages into a new huge page (a migration): the
 * MR must follow the new page. */
int t_thp_collapse(struct env *e)
{
	struct world w;
	struct odpc c0, c1;
	size_t len = HPAGE;
	char *b;
	struct ibv_mr *mr;
	uint64_t pfn0, pfn1;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	b = map_anon(len, HPAGE);
	CHECK(b, "mmap");
	CHECK(!madvise(b, len, MADV_NOHUGEPAGE), "MADV_NOHUGEPAGE");
	memset(b, 2, len);
	if (is_thp(b) < 0)
		ST_SKIP(e, "cannot read /proc/kpageflags (needs root)");
	CHECK(!is_thp(b), "THP although MADV_NOHUGEPAGE");
	pfn0 = pfn_of(b);
	TRY(world_make(e, &w, len, ODP_ACC, ODP_ACC));
	mr = reg(e, b, len, ODP_ACC);
	CHECK(mr, "reg");
	fill(w.src, len, 131);
	TRY(rdma_ok(e, &w, IBV_WR_RDMA_WRITE, va(w.src), len, w.smr->lkey, va(b), mr->rkey,
		    "WRITE into 4 KiB pages"));
	TRY(odpc_read(e, &c0));
	CHECK(!madvise(b, len, MADV_HUGEPAGE), "MADV_HUGEPAGE");
	if (madvise(b, len, MADV_COLLAPSE))
		ST_SKIP(e, "MADV_COLLAPSE: %s", strerror(errno));
	TRY(odpc_read(e, &c1));
	pfn1 = pfn_of(b);
	diag("collapse: pfn 0x%llx -> 0x%llx, thp %d", (unsigned long long)pfn0,
	     (unsigned long long)pfn1, is_thp(b));
	CHECK(is_thp(b) == 1 && pfn1 != pfn0, "MADV_COLLAPSE did not move the pages");
	CHECK(check_fill(b, len, 131) < 0, "collapse lost data");
	CHECK(c1.pages_invalidated - c0.pages_invalidated >= 512,
	      "collapse invalidated only %ld pages", c1.pages_invalidated - c0.pages_invalidated);
	fill(w.src, len, 132);
	TRY(rdma_ok(e, &w, IBV_WR_RDMA_WRITE, va(w.src), len, w.smr->lkey, va(b), mr->rkey,
		    "WRITE after collapse"));
	CHECK(check_fill(b, len, 132) < 0, "WRITE after collapse not visible in the new huge page");
	fill(b, len, 133);
	TRY(rdma_ok(e, &w, IBV_WR_RDMA_READ, va(w.dst), len, w.dmr->lkey, va(b), mr->rkey,
		    "READ after collapse"));
	CHECK(check_fill(w.dst, len, 133) < 0, "READ after collapse sees stale data");
	ibv_dereg_mr(mr);
	munmap(b, len);
	world_free(&w);
	return T_PASS;
}

/* Pages (even indexes only: the odd ones were freed) whose PFN changed since
 * the last call; pfn/tmp hold n entries. */
static long pages_moved(char *b, size_t n, uint64_t *pfn, uint64_t *tmp)
{
	long moved = 0;
	size_t i;

	if (pfn_range(b, n, tmp))
		return -1;
	for (i = 0; i < n; i += 2) {
		moved += tmp[i] != pfn[i];
		pfn[i] = tmp[i];
	}
	return moved;
}

static int compact(struct env *e)
{
	int fd = open("/proc/sys/vm/compact_memory", O_WRONLY);

	if (fd < 0)
		ST_SKIP(e, "/proc/sys/vm/compact_memory: %s", strerror(errno));
	CHECK(write(fd, "1", 1) == 1, "compact_memory: %s", strerror(errno));
	close(fd);
	return T_PASS;
}

int t_compaction(struct env *e)
{
	struct world w;
	struct odpc c0, c1;
	size_t n = 8192, blk = 64, len = n * e->page, i;	/* 32 MiB */
	char *b;
	struct ibv_mr *mr;
	uint64_t *pfn, *tmp;
	long moved = 0;
	int tries;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	b = map_anon(len, e->page);
	pfn = calloc(n, sizeof(*pfn));
	tmp = calloc(n, sizeof(*tmp));
	CHECK(b && pfn && tmp, "alloc");
	madvise(b, len, MADV_NOHUGEPAGE);
	memset(b, 3, len);
	if (!pfn_of(b))
		ST_SKIP(e, "no PFNs in /proc/self/pagemap (needs root)");
	mr = reg(e, b, len, ODP_ACC);
	CHECK(mr, "reg");
	TRY(world_make(e, &w, blk * e->page, ODP_ACC, ODP_ACC));
	/* Free every other page: holes for compaction to move pages into. */
	for (i = 1; i < n; i += 2)
		madvise(b + i * e->page, e->page, MADV_DONTNEED);
	for (i = 0; i < n; i += blk) {	/* map the MR in through RDMA */
		CHECK(!post_rdma(w.p.a.qp, IBV_WR_RDMA_READ, va(w.dst), blk * e->page,
				 w.dmr->lkey, va(b) + i * e->page, mr->rkey, i), "post");
		TRY(expect_wc(e, w.p.a.cq, IBV_WC_SUCCESS, "READ to map in"));
	}
	CHECK(pages_moved(b, n, pfn, tmp) >= 0, "pagemap");
	TRY(odpc_read(e, &c0));
	for (tries = 0; tries < 3 && !moved; tries++) {
		TRY(compact(e));
		moved = pages_moved(b, n, pfn, tmp);
		CHECK(moved >= 0, "pagemap");
	}
	diag("compaction (%d run(s)) moved %ld of %zu pages under the ODP MR", tries, moved, n / 2);
	if (!moved)
		ST_SKIP(e, "compaction moved none of the MR's pages in 3 runs (it only moves pages below where its scanners meet)");
	TRY(odpc_read(e, &c1));
	diag("odp_pages_invalidated +%ld", c1.pages_invalidated - c0.pages_invalidated);
	CHECK(c1.pages_invalidated - c0.pages_invalidated >= moved,
	      "fewer pages invalidated than migrated");
	/* RDMA WRITE into every block: the process sees it (moved pages too). */
	for (i = 0; i < n; i += blk) {
		fill(w.src, blk * e->page, 142 + i);
		CHECK(!post_rdma(w.p.a.qp, IBV_WR_RDMA_WRITE, va(w.src), blk * e->page,
				 w.smr->lkey, va(b) + i * e->page, mr->rkey, i), "post");
		TRY(expect_wc(e, w.p.a.cq, IBV_WC_SUCCESS, "WRITE after compaction"));
		CHECK(check_fill(b + i * e->page, blk * e->page, 142 + i) < 0,
		      "WRITE after compaction not visible at block %zu", i / blk);
	}
	ibv_dereg_mr(mr);
	munmap(b, len);
	free(pfn);
	free(tmp);
	world_free(&w);
	return T_PASS;
}
