/* verbs-fuzz: the world it fuzzes in: memory regions with canaries, their
 * MRs, the RC pairs, the UD QPs and the SRQ. */
#include "vf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GUARD 4096ul

struct world W;

uint32_t pattern_byte(uint32_t seed, uint64_t i)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed << 17 | seed);

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(x >> 56);
}

/* ---------------------------------------------------------------- memory */

struct region *region_of(uint64_t va, uint64_t *off)
{
	int i;

	for (i = 0; i < VF_NREG; i++) {
		struct region *g = &W.reg[i];

		if (g->used && va >= (uintptr_t)g->data && va - (uintptr_t)g->data < g->len) {
			if (off)
				*off = va - (uintptr_t)g->data;
			return g;
		}
	}
	return NULL;
}

enum m_page page_state(const void *ctx, uint64_t va)
{
	uint64_t off;
	struct region *g = region_of(va, &off);
	int i;

	(void)ctx;
	if (g)
		return (enum m_page)g->pst[off / 4096];
	/* the rest of a reservation: the guard pages, and around hugetlbfs
	 * data the PROT_NONE the reservation was made of */
	for (i = 0; i < VF_NREG; i++) {
		g = &W.reg[i];
		if (!g->used || va < (uintptr_t)g->resv || va - (uintptr_t)g->resv >= g->resv_len)
			continue;
		if (va + GUARD >= (uintptr_t)g->data && va < (uintptr_t)g->data + g->len + GUARD)
			return MP_RW;
		return g->huge ? MP_NONE : MP_RW;
	}
	return MP_HOLE;
}

void world_view(struct m_view *v, struct m_mr *buf)
{
	int i, n = 0;

	for (i = 0; i < VF_NREG; i++)
		if (W.mr[i].live)
			buf[n++] = W.mr[i].m;
	v->mr = buf;
	v->nmr = n;
	v->page = page_state;
	v->ctx = NULL;
}

/* The canary byte of region g at data offset off (off may be "negative"
 * for the guard before the data: pass it as offset from the first guard) */
static uint8_t canary_at(const struct region *g, uint64_t guard_off)
{
	return (uint8_t)pattern_byte(g->canary, guard_off);
}

static int in_window(const struct region *g, size_t off)
{
	return off >= g->woff && off - g->woff < g->wlen;
}

/* Write the canary into data bytes [from, to) outside the window, on pages
 * the CPU can write. */
void canary_fill(struct region *g, size_t from, size_t to)
{
	size_t off;

	for (off = from; off < to; off++) {
		if (in_window(g, off))
			continue;
		if (g->pst[off / 4096] != MP_RW) {
			/* zeroed where we cannot write: no canary until writable */
			g->nocanary[off / 4096] = 1;
			continue;
		}
		g->nocanary[off / 4096] = 0;
		g->data[off] = canary_at(g, off + GUARD);
		g->shadow[off] = g->data[off];
		g->known[off] = 1;
	}
}

static int canary_bad(struct region *g, const char *what, size_t off, uint8_t want, uint8_t got)
{
	const struct mrec *m = g->mr >= 0 ? &W.mr[g->mr] : NULL;

	vf_finding("canary changed: region %d %s byte at data offset %zd (address %p) is 0x%02x, "
		   "canary 0x%02x; MR window [%zu, %zu) of %zu bytes, MR %s key 0x%x %s iova 0x%llx",
		   (int)(g - W.reg), what, (ssize_t)off, (void *)(g->data + off), got, want, g->woff,
		   g->woff + g->wlen, g->len, m && m->live ? "live" : "none",
		   m ? m->m.key : 0, m && m->m.odp ? "ODP" : "pinned",
		   m ? (unsigned long long)m->m.iova : 0ull);
	return -1;
}

int canary_check(struct region *g)
{
	size_t off;
	char *before = g->data - GUARD, *after = g->data + g->len;

	if (!g->used)
		return 0;
	W.st.canary_checks++;
	for (off = 0; off < GUARD; off++) {
		if ((uint8_t)before[off] != canary_at(g, off))
			return canary_bad(g, "guard page before", (ssize_t)off - (ssize_t)GUARD,
					  canary_at(g, off), before[off]);
		if ((uint8_t)after[off] != canary_at(g, GUARD + g->len + off))
			return canary_bad(g, "guard page after", g->len + off,
					  canary_at(g, GUARD + g->len + off), after[off]);
	}
	for (off = 0; off < g->len; off++) {
		uint8_t st = g->pst[off / 4096];

		if (in_window(g, off)) {
			/* skip the window (only its page edges hold canary bytes) */
			off = g->woff + g->wlen - 1;
			continue;
		}
		if ((st != MP_RW && st != MP_RO) || g->nocanary[off / 4096]) {
			off = (off | 4095);
			continue;
		}
		if ((uint8_t)g->data[off] != canary_at(g, off + GUARD))
			return canary_bad(g, "data", off, canary_at(g, off + GUARD), g->data[off]);
	}
	return 0;
}

int canary_check_all(void)
{
	int i;

	for (i = 0; i < VF_NREG; i++)
		if (canary_check(&W.reg[i]))
			return -1;
	return 0;
}

void shadow_set_unknown(struct region *g, size_t off, size_t len)
{
	if (off >= g->len)
		return;
	if (len > g->len - off)
		len = g->len - off;
	memset(g->known + off, 0, len);
}

static size_t pick_size(struct rng *r, size_t lo, size_t hi)
{
	static const size_t sz[] = { 1, 2, 3, 4, 5, 8, 16, 17, 32, 64 };

	for (;;) {
		size_t n = sz[rng_below(r, sizeof(sz) / sizeof(sz[0]))] * 4096;

		if (n >= lo && n <= hi)
			return n;
	}
}

int region_make(int i, struct rng *r)
{
	struct region *g = &W.reg[i];
	size_t off, np;
	int huge = W.have_huge && vf_on(C_HUGE) && i < 2 && rng_pct(r, 70);

	memset(g, 0, sizeof(*g));
	g->mr = -1;
	g->canary = (uint32_t)rng_u64(r) | 1;
	if (huge) {
		char *p;

		g->len = VF_HUGE;
		g->gran = VF_HUGE;
		g->resv_len = g->len + VF_HUGE + 2 * GUARD;
		g->resv = mmap(NULL, g->resv_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (g->resv == MAP_FAILED)
			return -1;
		g->data = (char *)(((uintptr_t)g->resv + GUARD + VF_HUGE - 1) & ~(VF_HUGE - 1));
		p = mmap(g->data, g->len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED) {
			munmap(g->resv, g->resv_len);
			huge = 0;
		} else {
			g->huge = 1;
		}
	}
	if (!huge) {
		g->len = pick_size(r, 4096, 64 * 4096);
		g->gran = 4096;
		g->resv_len = g->len + 2 * GUARD;
		g->resv = mmap(NULL, g->resv_len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (g->resv == MAP_FAILED)
			return -1;
		g->data = g->resv + GUARD;
		/* never a THP: ODP + HUGETLB on it fails every time */
		madvise(g->resv, g->resv_len, MADV_NOHUGEPAGE);
		g->nothp = 1;
	}
	if (g->huge &&
	    (mmap(g->data - GUARD, GUARD, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED ||
	     mmap(g->data + g->len, GUARD, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED))
		return -1;
	np = g->len / 4096;
	g->pst = calloc(np, 1);
	g->detached = calloc(np, 1);
	g->nocanary = calloc(np, 1);
	g->shadow = malloc(g->len);
	g->known = calloc(g->len, 1);
	g->pend = calloc(g->len / VF_BLK + 1, sizeof(*g->pend));
	if (!g->pst || !g->detached || !g->nocanary || !g->shadow || !g->known || !g->pend)
		return -1;
	/* the window: at a page start, a few bytes in, or anywhere in the
	 * first page; to the end, a page boundary or anywhere */
	switch (rng_below(r, 4)) {
	case 0: g->woff = 0; break;
	case 1: g->woff = rng_range(r, 1, 64); break;
	default: g->woff = rng_below(r, 4096); break;
	}
	if (g->woff >= g->len)
		g->woff = 0;
	switch (rng_below(r, 4)) {
	case 0: g->wlen = g->len - g->woff; break;
	case 1: g->wlen = g->len - g->woff - rng_below(r, 64); break;
	default: g->wlen = rng_range(r, 1, g->len - g->woff); break;
	}
	if (!g->wlen)
		g->wlen = 1;
	/* pages RW, data random, the rest canary */
	for (off = 0; off < GUARD; off++) {
		g->data[-(ssize_t)GUARD + (ssize_t)off] = canary_at(g, off);
		g->data[g->len + off] = canary_at(g, GUARD + g->len + off);
	}
	for (off = 0; off < g->len; off += 8) {
		uint64_t x = rng_u64(r);

		memcpy(g->data + off, &x, 8);
	}
	memcpy(g->shadow, g->data, g->len);
	memset(g->known, 1, g->len);
	g->used = 1;
	canary_fill(g, 0, g->len);
	W.st.regions_made++;
	return 0;
}

void region_free(int i)
{
	struct region *g = &W.reg[i];

	if (!g->used)
		return;
	munmap(g->resv, g->resv_len);
	if (g->huge) {
		/* the huge mapping and the guards lie inside the reservation */
	}
	free(g->pst);
	free(g->detached);
	free(g->nocanary);
	free(g->shadow);
	free(g->known);
	free(g->pend);
	memset(g, 0, sizeof(*g));
	g->mr = -1;
}

/* ------------------------------------------------------------------- MRs */

void key_dead(uint32_t key)
{
	W.dead_keys[W.ndead++ % VF_DEAD_KEYS] = key;
}

static uint64_t pick_iova(struct rng *r, uint64_t va, uint64_t len, int odp)
{
	uint64_t low = va & 4095, x;

	switch (rng_below(r, 8)) {
	case 0: case 1: case 2: case 3:
		return va;
	case 4:
		return low;				/* near 0 */
	case 5:
		/* the top of the address space: an ODP range must not wrap */
		x = (UINT64_MAX & ~4095ull) - ((len + 4095) & ~4095ull) + low;
		if (!odp && rng_pct(r, 30))
			x += 4096 * rng_range(r, 1, 4);	/* pinned: wraps, allowed */
		return x;
	default:
		return (rng_u64(r) & 0x0000fffffffff000ull) | low;
	}
}

int mr_register(int i, struct rng *r)
{
	struct region *g = &W.reg[i];
	struct mrec *m = &W.mr[i];
	struct m_mr buf[VF_NREG];
	struct m_view v;
	struct ibv_mr *mr;
	uint64_t addr = (uintptr_t)g->data + g->woff, iova;
	unsigned int access = MA_LOCAL_WRITE | MA_REMOTE_WRITE | MA_REMOTE_READ |
			      MA_REMOTE_ATOMIC;
	int odp, pd, want, hugeflag = 0, err;

	if (!g->used || m->live)
		return -1;
	odp = W.dev.ctx && rng_pct(r, 60);
	/* poisoned pages under an ODP MR only with that class */
	if (g->poisoned && !vf_on(C_POISON_ODP))
		odp = 0;
	pd = rng_pct(r, 88) ? 0 : 1;
	if (rng_pct(r, 60))
		access |= MA_FLUSH_GLOBAL;
	switch (rng_below(r, 12)) {
	case 0: access = MA_REMOTE_READ; break;			/* read-only */
	case 1: access &= ~MA_REMOTE_ATOMIC; break;
	case 2: access &= ~MA_REMOTE_WRITE; break;
	case 3: access &= ~(MA_REMOTE_READ | MA_REMOTE_WRITE | MA_REMOTE_ATOMIC); break;
	default: break;
	}
	if (odp) {
		access |= MA_ON_DEMAND;
		if (g->huge ? rng_pct(r, 80) : vf_on(C_HUGE_SMALL) && rng_pct(r, 3)) {
			access |= MA_HUGETLB;
			hugeflag = 1;
		}
	}
	iova = pick_iova(r, addr, g->wlen, odp);
	world_view(&v, buf);
	want = m_reg_errno(&v, addr, g->wlen, iova, access, g->huge);
	errno = 0;
	mr = ibv_reg_mr_iova2(W.pd[pd], (void *)(uintptr_t)addr, g->wlen, iova, access);
	err = errno;
	W.st.regs++;
	if (!mr != !!want) {
		vf_finding("ibv_reg_mr_iova2(region %d, addr 0x%llx, len %zu, iova 0x%llx, access 0x%x%s) "
			   "%s (%s), the model says %s", i, (unsigned long long)addr, g->wlen,
			   (unsigned long long)iova, access, g->huge ? ", hugetlbfs" : "",
			   mr ? "succeeded" : "failed", mr ? "-" : strerror(err),
			   want ? strerror(want) : "it must succeed");
		if (mr)
			ibv_dereg_mr(mr);
		return -1;
	}
	if (!mr) {
		if (W.o.verbose)
			vf_log("reg region %d failed as expected: %s (model %s)", i, strerror(err),
			       strerror(want));
		return 1;
	}
	if (mr->lkey != mr->rkey) {
		vf_finding("MR lkey 0x%x != rkey 0x%x", mr->lkey, mr->rkey);
		ibv_dereg_mr(mr);
		return -1;
	}
	memset(m, 0, sizeof(*m));
	m->live = 1;
	m->mr = mr;
	m->hugeflag = hugeflag;
	m->gen++;
	m->reg_access = access;
	m->m = (struct m_mr){ .key = mr->lkey, .pd = pd, .access = access, .iova = iova,
			      .len = g->wlen, .addr = addr, .odp = odp,
			      .fault_fails = hugeflag && !g->huge };
	g->mr = i;
	/* the new key may be one a WR in flight carries (a dead key's index
	 * and key byte come round again) */
	traffic_reevaluate(i, 1);
	return 0;
}

int mr_deregister(int i)
{
	struct mrec *m = &W.mr[i];
	int err;

	if (!m->live)
		return 0;
	err = ibv_dereg_mr(m->mr);
	W.st.deregs++;
	if (err) {
		vf_finding("ibv_dereg_mr(key 0x%x) failed: %s", m->m.key, strerror(err));
		return -1;
	}
	key_dead(m->m.key);
	m->live = 0;
	m->mr = NULL;
	return 0;
}

/* ------------------------------------------------------------------- QPs */

static struct ibv_qp *qp_create(struct vq *q, struct ibv_pd *pd, enum ibv_qp_type type,
				const struct ibv_qp_cap *cap, int qpex)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = type,
		.send_cq = q->scq,
		.recv_cq = q->rcq,
		.srq = q->srq ? W.srq : NULL,
		.cap = *cap,
		.pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};

	if (q->srq)
		ia.cap.max_recv_wr = ia.cap.max_recv_sge = 0;
	if (qpex) {
		ia.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ia.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
		if (type == IBV_QPT_RC)
			ia.send_ops_flags |= IBV_QP_EX_WITH_RDMA_WRITE |
					     IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
					     IBV_QP_EX_WITH_RDMA_READ |
					     IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
					     IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
					     IBV_QP_EX_WITH_SEND_WITH_INV |
					     IBV_QP_EX_WITH_ATOMIC_WRITE;
	}
	return ibv_create_qp_ex(W.dev.ctx, &ia);
}

static void vq_free(struct vq *q)
{
	if (q->qp)
		ibv_destroy_qp(q->qp);
	if (q->scq)
		ibv_destroy_cq(q->scq);
	q->qp = NULL;
	q->scq = q->rcq = NULL;
}

/* mtu enum for bytes */
static enum ibv_mtu mtu_enum(unsigned int b)
{
	switch (b) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	default: return IBV_MTU_4096;
	}
}

int pair_make(int p, struct rng *r)
{
	struct pair *P = &W.pair[p];
	struct lb_pair_attr at = { .psn = (uint32_t)rng_below(r, 1u << 24), .hop_limit = 1 };
	struct lb_qp_tune ta, tb;
	struct ibv_qp_cap cap;
	unsigned int mtu;
	int i;

	memset(P, 0, sizeof(*P));
	do
		mtu = 256u << rng_below(r, 5);
	while (mtu > W.port_mtu);
	cap.max_send_wr = VF_SQ - 1;
	cap.max_recv_wr = VF_RQ - 1;
	cap.max_send_sge = (uint32_t)rng_range(r, 1, VF_SGE);
	cap.max_recv_sge = (uint32_t)rng_range(r, 1, VF_SGE);
	cap.max_inline_data = (uint32_t[]){ 0, 16, 64, 256 }[rng_below(r, 4)];
	at.access = 0;
	if (rng_pct(r, 92))
		at.access |= IBV_ACCESS_REMOTE_WRITE;
	if (rng_pct(r, 92))
		at.access |= IBV_ACCESS_REMOTE_READ;
	if (rng_pct(r, 92))
		at.access |= IBV_ACCESS_REMOTE_ATOMIC;
	if (rng_pct(r, 70))
		at.access |= RING_ACCESS_FLUSH_GLOBAL;
	if (rng_pct(r, 15))
		at.access |= RING_ACCESS_FLUSH_PERSISTENT;
	at.mtu = mtu_enum(mtu);
	at.max_rd_atomic = (uint8_t)rng_range(r, 1, 16);
	/* a local ACK timeout of 1-2 s, retried 5-6 times: a responder that
	 * stops answering ends the requester's WR within seconds, and a
	 * starved TCG guest is not taken for a dead peer */
	at.timeout = (uint8_t)rng_range(r, 18, 19);
	for (i = 0; i < 2; i++) {
		struct lb_qp_tune *t = i ? &tb : &ta;

		t->retry_cnt = (uint8_t)rng_range(r, 5, 6);
		t->rnr_retry = rng_pct(r, 40) ? 7 : (uint8_t)rng_range(r, 2, 6);
		t->min_rnr_timer = (uint8_t)rng_range(r, 1, 14);
		t->max_dest_rd_atomic = rng_pct(r, 6) ? 0 : (uint8_t)rng_range(r, 1, 16);
	}
	P->b.srq = W.srq && vf_on(C_SRQ) && rng_pct(r, 35);
	for (i = 0; i < 2; i++) {
		struct vq *q = i ? &P->b : &P->a;
		int qpex = !i && W.have_qpex && rng_pct(r, 60);
		char err[256];

		q->scq = q->rcq = ibv_create_cq(W.dev.ctx, VF_SQ + VF_RQ + 8, NULL, NULL, 0);
		if (!q->scq)
			goto fail;
		q->qp = qp_create(q, W.pd[0], IBV_QPT_RC, &cap, qpex);
		if (!q->qp && qpex) {
			q->qp = qp_create(q, W.pd[0], IBV_QPT_RC, &cap, 0);
			qpex = 0;
		}
		if (!q->qp)
			goto fail;
		if (qpex)
			q->qpx = ibv_qp_to_qp_ex(q->qp);
		q->have_ring = !ring_find_sq(q->qp, cap.max_send_sge, &q->ring, err, sizeof(err));
		if (!q->have_ring && W.o.verbose)
			vf_log("no ring for QP %u: %s", q->qp->qp_num, err);
		q->m = (struct m_qp){ .pd = 0, .access = at.access, .mtu = mtu,
				      .max_sge = cap.max_send_sge, .max_inline = cap.max_inline_data };
	}
	/* what the QPs really got */
	for (i = 0; i < 2; i++) {
		struct vq *q = i ? &P->b : &P->a;
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qi;

		if (ibv_query_qp(q->qp, &qa, IBV_QP_CAP, &qi))
			goto fail;
		/* rxe rounds a WQE up to a power of two and reports what fits */
		q->m.max_sge = qi.cap.max_send_sge;
		q->m.max_inline = qi.cap.max_inline_data;
		q->max_recv_sge = qi.cap.max_recv_sge < M_MAX_SGE ? qi.cap.max_recv_sge : M_MAX_SGE;
	}
	if (lb_qp_connect(&W.dev, P->a.qp, P->b.qp->qp_num, &at, &ta) ||
	    lb_qp_connect(&W.dev, P->b.qp, P->a.qp->qp_num, &at, &tb))
		goto fail;
	P->a.m.max_dest_rd_atomic = ta.max_dest_rd_atomic;
	P->b.m.max_dest_rd_atomic = tb.max_dest_rd_atomic;
	/* rxe rounds responder resources up to a power of two */
	P->a.rnr_retry = ta.rnr_retry;
	P->a.retry_cnt = ta.retry_cnt;
	P->b.rnr_retry = tb.rnr_retry;
	P->b.retry_cnt = tb.retry_cnt;
	P->live = 1;
	P->serial = ++W.st.pairs_made;
	return 0;
fail:
	vf_log("pair %d: cannot create: %s (errno %s)", p, W.dev.err, strerror(errno));
	vq_free(&P->a);
	vq_free(&P->b);
	return -1;
}

void pair_destroy(int p)
{
	struct pair *P = &W.pair[p];
	int err;

	if (P->a.qp && (err = ibv_destroy_qp(P->a.qp)))
		vf_finding("ibv_destroy_qp(pair %d a) failed: %s", p, strerror(err));
	if (P->b.qp && (err = ibv_destroy_qp(P->b.qp)))
		vf_finding("ibv_destroy_qp(pair %d b) failed: %s", p, strerror(err));
	P->a.qp = P->b.qp = NULL;
	traffic_untaint_pair(p);
	traffic_late_release(p);
	vq_free(&P->a);
	vq_free(&P->b);
	P->live = 0;
}

int ud_make(int u, struct rng *r)
{
	struct vq *q = &W.ud[u];
	struct ibv_qp_cap cap = { .max_send_wr = VF_SQ - 1, .max_recv_wr = VF_RQ - 1,
				  .max_send_sge = (uint32_t)rng_range(r, 1, VF_SGE),
				  .max_recv_sge = (uint32_t)rng_range(r, 1, VF_SGE),
				  .max_inline_data = 64 };
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	int qpex = W.have_qpex && rng_pct(r, 50);

	memset(q, 0, sizeof(*q));
	q->srq = W.srq && vf_on(C_SRQ) && u == 1 && rng_pct(r, 50);
	q->scq = q->rcq = ibv_create_cq(W.dev.ctx, VF_SQ + VF_RQ + 8, NULL, NULL, 0);
	if (!q->scq)
		return -1;
	q->qp = qp_create(q, W.pd[0], IBV_QPT_UD, &cap, qpex);
	if (!q->qp)
		goto fail;
	if (qpex)
		q->qpx = ibv_qp_to_qp_ex(q->qp);
	if (lb_ud_ready(&W.dev, q->qp, UD_QKEY, (uint32_t)rng_below(r, 1u << 24))) {
		vf_log("UD QP %d: cannot create: %s", u, W.dev.err);
		vq_free(q);
		return -1;
	}
	if (ibv_query_qp(q->qp, &qa, IBV_QP_CAP, &qi))
		goto fail;
	q->m = (struct m_qp){ .ud = 1, .pd = 0, .mtu = W.port_mtu, .max_sge = qi.cap.max_send_sge,
			      .max_inline = qi.cap.max_inline_data };
	q->max_recv_sge = qi.cap.max_recv_sge < M_MAX_SGE ? qi.cap.max_recv_sge : M_MAX_SGE;
	W.ud_live[u] = 1;
	if (W.o.verbose > 1)
		vf_log("UD slot %d: QP %u", u, q->qp->qp_num);
	return 0;
fail:
	vf_log("UD QP %d: cannot create: %s", u, strerror(errno));
	vq_free(q);
	return -1;
}

void ud_destroy(int u)
{
	vq_free(&W.ud[u]);
	W.ud_live[u] = 0;
}

/* ----------------------------------------------------------------- setup */

static int read_long(const char *path, long *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%ld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static long huge_free(void)
{
	char key[64];
	long v;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fscanf(f, "%63s %ld%*[^\n]\n", key, &v) == 2)
		if (!strcmp(key, "HugePages_Free:")) {
			fclose(f);
			return v;
		}
	fclose(f);
	return 0;
}

int world_init(char *err, size_t errlen)
{
	struct ibv_device_attr_ex da;
	struct ibv_qp_init_attr_ex ia;
	struct ibv_ah_attr aha;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	long v;

	pthread_mutex_init(&W.lock, NULL);
	W.page = sysconf(_SC_PAGESIZE);
	if (W.page != 4096) {
		snprintf(err, errlen, "page size %ld: the model assumes 4096", W.page);
		return -1;
	}
	if (lb_dev_open(&W.dev, W.o.dev, 1) || lb_dev_gid(&W.dev, W.o.gid)) {
		snprintf(err, errlen, "%s", W.dev.err);
		return -1;
	}
	W.pd[0] = W.dev.pd;
	W.pd[1] = ibv_alloc_pd(W.dev.ctx);
	if (!W.pd[1]) {
		snprintf(err, errlen, "ibv_alloc_pd: %s", strerror(errno));
		return -1;
	}
	if (ibv_query_device_ex(W.dev.ctx, NULL, &da)) {
		snprintf(err, errlen, "ibv_query_device_ex failed");
		return -1;
	}
	if (!(da.odp_caps.general_caps & IBV_ODP_SUPPORT)) {
		snprintf(err, errlen, "%s has no ODP support: load rxe-odp's rdma_rxe", W.o.dev);
		return -1;
	}
	W.port_mtu = 128u << W.dev.port_attr.active_mtu;
	/* does librxe give this device an ibv_qp_ex? */
	cq = ibv_create_cq(W.dev.ctx, 4, NULL, NULL, 0);
	if (!cq) {
		snprintf(err, errlen, "ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_RC;
	ia.send_cq = ia.recv_cq = cq;
	ia.cap = (struct ibv_qp_cap){ .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1,
				      .max_recv_sge = 1 };
	ia.pd = W.pd[0];
	ia.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_RDMA_WRITE;
	qp = ibv_create_qp_ex(W.dev.ctx, &ia);
	W.have_qpex = qp != NULL;
	if (qp)
		ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	if (vf_on(C_SRQ)) {
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = VF_RQ - 1,
							  .max_sge = VF_SGE } };

		W.srq = ibv_create_srq(W.pd[0], &sa);
		if (!W.srq) {
			snprintf(err, errlen, "ibv_create_srq: %s", strerror(errno));
			return -1;
		}
	}
	memset(&aha, 0, sizeof(aha));
	aha.is_global = 1;
	aha.grh.dgid = W.dev.gid;
	aha.grh.sgid_index = (uint8_t)W.dev.gid_index;
	aha.grh.hop_limit = 1;
	aha.port_num = W.dev.port;
	W.ah = ibv_create_ah(W.pd[0], &aha);
	if (!W.ah) {
		snprintf(err, errlen, "ibv_create_ah: %s", strerror(errno));
		return -1;
	}
	W.have_huge = huge_free() >= 4;
	W.have_inject = !access("/sys/module/rdma_rxe/parameters/odp_fail_faults", W_OK);
	if (W.have_inject && chaos_inject_clear()) {
		snprintf(err, errlen, "cannot clear odp_fail_faults: %s", strerror(errno));
		return -1;
	}
	W.have_poison = geteuid() == 0;
	(void)read_long;
	(void)v;
	return 0;
}

void world_fini(void)
{
	int i;

	for (i = 0; i < VF_NPAIR; i++)
		if (W.pair[i].live)
			pair_destroy(i);
	for (i = 0; i < VF_NUD; i++)
		if (W.ud_live[i])
			ud_destroy(i);
	for (i = 0; i < VF_NREG; i++) {
		mr_deregister(i);
		region_free(i);
	}
	if (W.srq)
		ibv_destroy_srq(W.srq);
	if (W.ah)
		ibv_destroy_ah(W.ah);
	if (W.pd[1])
		ibv_dealloc_pd(W.pd[1]);
	lb_dev_close(&W.dev);
}
