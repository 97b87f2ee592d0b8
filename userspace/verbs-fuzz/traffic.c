/* verbs-fuzz: random work requests, their completions checked against the
 * model, the data they move checked against the shadow of the memory. */
#include "vf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UD_TAG 0xa55a000000000000ull	/* top 16 bits of a UD message's tag */

/* Opcodes a user QP must not run: rxe's kernel-only work requests
 * (REG_MR carries a kernel pointer in the WQE), ones it does not know at
 * all, and values far outside its opcode table. */
static const uint32_t bad_opcodes[] = {
	0x20 /* IB_WR_REG_MR */, 0x21 /* IB_WR_REG_MR_INTEGRITY */,
	11 /* IB_WR_RDMA_READ_WITH_INV */, 10 /* IB_WR_LSO */, 12, 13, 16, 17, 31, 34, 64, 255,
	1000, 0x7fffffff, 0x80000000u, 0xffffffffu,
};

const char *status_name(int st)
{
	return ibv_wc_status_str((enum ibv_wc_status)st);
}

static int is_ud(const struct wrrec *w)
{
	return w->pair >= VF_NPAIR;
}

static struct vq *req_qp(const struct wrrec *w)
{
	return is_ud(w) ? &W.ud[w->pair - VF_NPAIR] : &W.pair[w->pair].a;
}

static struct pair *wr_pair(const struct wrrec *w)
{
	return is_ud(w) ? NULL : &W.pair[w->pair];
}

static int consumes_recv(enum m_op op)
{
	return op == M_SEND || op == M_SEND_IMM || op == M_SEND_INV || op == M_WRITE_IMM;
}

/* ------------------------------------------------------------- addresses */

/* MR slot of a live MR on pd granting access, at random; -1 if none */
static int pick_mr(struct rng *r, int pd, unsigned int access)
{
	int c[VF_NREG], n = 0, i;

	for (i = 0; i < VF_NREG; i++)
		if (W.mr[i].live && W.mr[i].m.pd == pd && (W.mr[i].m.access & access) == access)
			c[n++] = i;
	return n ? c[rng_below(r, n)] : -1;
}

/* A key for an access meant to go through MR slot mi: usually its own,
 * sometimes one that must fail (dead, another PD's, random, zero, the
 * same index with another key byte). */
static uint32_t pick_key(struct rng *r, int mi)
{
	int o;

	switch (rng_below(r, 40)) {
	case 0:
		if (W.ndead)
			return W.dead_keys[rng_below(r, W.ndead < VF_DEAD_KEYS ? W.ndead :
							  VF_DEAD_KEYS)];
		break;
	case 1:
		o = pick_mr(r, 1, 0);
		if (o >= 0)
			return W.mr[o].m.key;
		break;
	case 2:
		return (uint32_t)rng_u64(r);
	case 3:
		return 0;
	case 4:
		if (mi >= 0)
			return W.mr[mi].m.key ^ 1;
		break;
	default:
		break;
	}
	return mi >= 0 ? W.mr[mi].m.key : (uint32_t)rng_u64(r);
}

/* An address for len bytes through MR slot mi: inside mostly, else at and
 * across its ends, far off, or wrapping the 64-bit space. */
static uint64_t pick_addr(struct rng *r, int mi, uint64_t len, int align8)
{
	const struct m_mr *m;
	uint64_t a;

	if (mi < 0)
		return rng_u64(r);
	m = &W.mr[mi].m;
	switch (rng_below(r, 50)) {
	case 0: return m->iova;
	case 1: return m->iova + m->len - len;
	case 2: return m->iova + m->len - len + rng_range(r, 1, 8);
	case 3: return m->iova - rng_range(r, 1, 8);
	case 4: return m->iova + m->len;
	case 5: return UINT64_MAX - rng_below(r, len ? len : 1);
	case 6: return rng_u64(r);
	default: break;
	}
	a = len >= m->len ? m->iova : m->iova + rng_below(r, m->len - len + 1);
	if (align8) {
		/* aligned in the owner's memory, which is what rxe checks */
		uint64_t va = m->addr + (a - m->iova);

		a -= va & 7;
		if (a < m->iova)
			a += 8;
	}
	return a;
}

static uint64_t pick_len(struct rng *r, unsigned int mtu, uint64_t max)
{
	uint64_t n;

	switch (rng_below(r, 40)) {
	case 0: case 1: return 0;
	case 2: case 3: case 4: return rng_range(r, 1, 16);
	case 5: return mtu - 1;
	case 6: return mtu;
	case 7: return mtu + 1;
	case 8: return 2 * mtu - 1;
	case 9: return 2 * mtu + 1;
	case 10: return 8;
	case 11: return max;
	case 12: return max + 1;
	default: break;
	}
	n = rng_range(r, 1, max < 12288 ? (max ? max : 1) : 12288);
	return n;
}

/* What a key names, for a finding's report */
static int key_describe(uint32_t key, char *b, size_t len)
{
	int i;

	for (i = 0; i < VF_NREG; i++) {
		const struct m_mr *m = &W.mr[i].m;
		const struct region *g = &W.reg[i];

		if (!W.mr[i].live || m->key != key)
			continue;
		return snprintf(b, len, "MR %d %s%s pd %d access 0x%x iova 0x%llx len %llu addr 0x%llx"
				" (region %d data %p, %zu bytes%s)", i, m->odp ? "ODP" : "pinned",
				m->fault_fails ? " HUGETLB-on-small-pages" : "", m->pd, m->access,
				(unsigned long long)m->iova, (unsigned long long)m->len,
				(unsigned long long)m->addr, i, (void *)g->data, g->len,
				g->huge ? ", hugetlbfs" : "");
	}
	return snprintf(b, len, "no live MR");
}

/* The page states of [addr, addr + len) through key: R(W) r(o) n(one)
 * h(ole) p(oison), upper case for pages a pinned MR no longer shows */
static int pages_describe(uint32_t key, uint64_t addr, uint64_t len, char *b, size_t blen)
{
	int i;

	for (i = 0; i < VF_NREG; i++) {
		const struct m_mr *m = &W.mr[i].m;
		const struct region *g = &W.reg[i];
		uint64_t d, o, n = 0;

		if (!W.mr[i].live || m->key != key || addr < m->iova || addr - m->iova >= m->len)
			continue;
		d = addr - m->iova;
		if (len > m->len - d)
			len = m->len - d;
		o = m->addr - (uintptr_t)g->data + d;
		for (uint64_t p = o / 4096; p <= (o + (len ? len : 1) - 1) / 4096 && n + 2 < blen && n < 40;
		     p++) {
			char c = "RrnhpX"[g->pst[p] < 5 ? g->pst[p] : 5];

			b[n++] = g->detached[p] ? (char)(c - 32) : c;
		}
		b[n] = 0;
		return (int)n;
	}
	b[0] = 0;
	return 0;
}

/* A WR in full, for a finding's report */
static const char *wr_describe(const struct wrrec *w, char *b, size_t len)
{
	size_t n = 0;
	int i;

	n += (size_t)snprintf(b + n, len - n, "%s path %d nsge %d%s len %llu%s%s%s%s%s%s (post "
			      "allowed 0x%x recv 0x%x):", m_op_name[w->req.op], w->req.path,
			      w->req.nsge, w->req.inl ? " inline" : "",
			      (unsigned long long)w->out.len, w->rnr_possible ? " rnr-possible" : "",
			      w->conflict & CF_OVERLAP ? " conflict" : "",
			      w->conflict & CF_TAINT ? " tainted" : "",
			      w->conflict & CF_LATE ? " late-target" : "",
			      w->conflict & CF_RECV ? " recv-posted-over" : "",
			      w->conflict & CF_SELF ? " self-overlap" : "", w->out.req, w->out.recv);
	for (i = 0; i < w->req.nsge && i < M_MAX_SGE && n < len; i++) {
		char pg[48];

		pages_describe(w->req.sge[i].lkey, w->req.sge[i].addr, w->req.sge[i].len, pg,
			       sizeof(pg));
		n += (size_t)snprintf(b + n, len - n, " sge%d{0x%llx +%u key 0x%x pages %s: ", i,
				      (unsigned long long)w->req.sge[i].addr, w->req.sge[i].len,
				      w->req.sge[i].lkey, pg);
		if (n < len)
			n += (size_t)key_describe(w->req.sge[i].lkey, b + n, len - n);
		if (n < len)
			n += (size_t)snprintf(b + n, len - n, "}");
	}
	if (n < len && w->req.op != M_SEND && w->req.op != M_SEND_IMM && w->req.op != M_SEND_INV) {
		char pg[48];

		pages_describe(w->req.rkey, w->req.raddr, w->out.len, pg, sizeof(pg));
		n += (size_t)snprintf(b + n, len - n, " remote{0x%llx key 0x%x pages %s: ",
				      (unsigned long long)w->req.raddr, w->req.rkey, pg);
		if (n < len)
			n += (size_t)key_describe(w->req.rkey, b + n, len - n);
		if (n < len)
			n += (size_t)snprintf(b + n, len - n, "}");
	}
	if (n < len && w->recv) {
		n += (size_t)snprintf(b + n, len - n, " recv{");
		for (i = 0; i < w->recv->r.nsge && n < len; i++) {
			char pg[48];

			pages_describe(w->recv->r.sge[i].lkey, w->recv->r.sge[i].addr,
				       w->recv->r.sge[i].len, pg, sizeof(pg));
			n += (size_t)snprintf(b + n, len - n, " 0x%llx +%u key 0x%x pages %s [",
					      (unsigned long long)w->recv->r.sge[i].addr,
					      w->recv->r.sge[i].len, w->recv->r.sge[i].lkey, pg);
			if (n < len)
				n += (size_t)key_describe(w->recv->r.sge[i].lkey, b + n, len - n);
			if (n < len)
				n += (size_t)snprintf(b + n, len - n, "]");
		}
		if (n < len)
			snprintf(b + n, len - n, " }");
	}
	return b;
}

/* -------------------------------------------------------------- accounting */

/* The memory a key/address/length reaches (clipped to the MR), if any */
static int span_of(uint32_t key, int pd, uint64_t addr, uint64_t len, struct span *s)
{
	int i;

	for (i = 0; i < VF_NREG; i++) {
		const struct m_mr *m = &W.mr[i].m;
		uint64_t d;

		if (!W.mr[i].live || m->key != key || m->pd != pd)
			continue;
		if (addr < m->iova || addr - m->iova >= m->len)
			return 0;
		d = addr - m->iova;
		if (len > m->len - d)
			len = m->len - d;
		s->g = &W.reg[i];
		s->off = (m->addr - (uintptr_t)s->g->data) + d;
		s->len = len;
		s->dest = 0;
		return len > 0;
	}
	return 0;
}

/* The local SGE parts a message of len bytes goes through */
static int sge_spans(const struct m_sge *sge, int nsge, int pd, uint64_t len, int dest,
		     struct span *s)
{
	int n = 0, i;

	for (i = 0; i < nsge && i < M_MAX_SGE && len; i++) {
		uint64_t k = sge[i].len < len ? sge[i].len : len;

		if (!k)
			continue;
		if (span_of(sge[i].lkey, pd, sge[i].addr, k, &s[n])) {
			s[n].dest = dest;
			n++;
		}
		len -= k;
	}
	return n;
}

/* The spans a WR reaches: its SGE parts, then its remote range (*remote:
 * its index, -1 if none). */
static int wr_spans(const struct wrrec *w, const struct vq *rq, const struct vq *rs,
		    struct span *s, int *remote)
{
	enum m_op op = w->req.op;
	uint64_t L = w->out.len;
	int n = 0;

	if (op == M_CAS || op == M_FADD)
		n = sge_spans(w->req.sge, w->req.nsge, rq->m.pd, 8, 1, s);
	else if (op == M_READ)
		n = sge_spans(w->req.sge, w->req.nsge, rq->m.pd, L, 1, s);
	else if (op != M_ATOMIC_WRITE && op != M_FLUSH && !w->req.inl)
		n = sge_spans(w->req.sge, w->req.nsge, rq->m.pd, L, 0, s);
	*remote = -1;
	switch (op) {
	case M_WRITE: case M_WRITE_IMM: case M_READ:
		if (L && span_of(w->req.rkey, rs->m.pd, w->req.raddr, L, &s[n])) {
			*remote = n;
			s[n++].dest = op != M_READ;
		}
		break;
	case M_CAS: case M_FADD: case M_ATOMIC_WRITE:
		if (span_of(w->req.rkey, rs->m.pd, w->req.raddr, 8, &s[n])) {
			*remote = n;
			s[n++].dest = 1;
		}
		break;
	default:
		break;
	}
	return n;
}

static void pend_add(const struct span *s, int n, int d)
{
	int i;

	for (i = 0; i < n; i++) {
		uint64_t b;

		for (b = s[i].off / VF_BLK; b <= (s[i].off + s[i].len - 1) / VF_BLK; b++)
			s[i].g->pend[b] += d;
	}
}

static int pend_busy(const struct span *s, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		uint64_t b;

		for (b = s[i].off / VF_BLK; b <= (s[i].off + s[i].len - 1) / VF_BLK; b++)
			if (s[i].g->pend[b])
				return 1;
	}
	return 0;
}

/* May a hostile WQE write the span's region (see hostile_taint())? */
static int span_tainted(const struct span *s)
{
	return W.taint[s->g - W.reg] > 0;
}

/*
 * Every WR in flight that hit() picks has no determined result any more:
 * the WRs on each QP's send queue (consumer 0), and the RC sends still
 * waiting for their receive WQE (consumer 1).
 */
static void mark_conflicts(int (*hit)(const struct wrrec *u, int consumer, const void *arg),
			   const void *arg, unsigned int why)
{
	int pp, j;

	for (pp = 0; pp < VF_NPAIR + VF_NUD; pp++) {
		struct vq *qq = pp < VF_NPAIR ? &W.pair[pp].a : &W.ud[pp - VF_NPAIR];

		for (j = 0; j < qq->sqn; j++)
			if (hit(qq->sq[j], 0, arg))
				qq->sq[j]->conflict |= why;
		if (pp < VF_NPAIR)
			for (j = 0; j < W.pair[pp].b.consn; j++)
				if (hit(W.pair[pp].b.cons[j], 1, arg))
					W.pair[pp].b.cons[j]->conflict |= why;
	}
}

static void hostile_taint(int p, int i);

/* Does a span of a[0..na) overlap one of b[0..nb) (of b's written ones
 * only, with b_dest)? */
static int spans_hit(const struct span *a, int na, const struct span *b, int nb, int b_dest)
{
	int i, j;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if ((b[j].dest || !b_dest) && vf_spans_overlap(&a[i], &b[j]))
				return 1;
	return 0;
}

/* The receive WQEs posted (RQs, SRQ, UD) whose buffers overlap what
 * s[0..n) writes: it may land before or after the message they take, so
 * that message's data has no determined value */
static void mark_recv_conflicts(const struct span *s, int n, unsigned int why)
{
	int pp, j;

	for (pp = 0; pp < VF_NPAIR + VF_NUD; pp++) {
		struct vq *qq = pp < VF_NPAIR ? &W.pair[pp].b : &W.ud[pp - VF_NPAIR];

		if (pp < VF_NPAIR ? !W.pair[pp].live : !W.ud_live[pp - VF_NPAIR])
			continue;
		for (j = 0; j < qq->rqn; j++)
			if (spans_hit(qq->rq[j]->sp, qq->rq[j]->nsp, s, n, 1))
				qq->rq[j]->conflict |= why;
	}
	for (j = 0; j < W.srqn; j++)
		if (spans_hit(W.srqq[j]->sp, W.srqq[j]->nsp, s, n, 1))
			W.srqq[j]->conflict |= why;
}

/* Is s[0..n) written by a WR in flight or by the message of a posted
 * receive WQE other than skip? */
static int dest_busy(const struct span *s, int n, const struct rrec *skip)
{
	int pp, j;

	for (pp = 0; pp < VF_NPAIR + VF_NUD; pp++) {
		struct vq *qa = pp < VF_NPAIR ? &W.pair[pp].a : &W.ud[pp - VF_NPAIR];
		struct vq *qb = pp < VF_NPAIR ? &W.pair[pp].b : qa;

		if (pp < VF_NPAIR ? !W.pair[pp].live : !W.ud_live[pp - VF_NPAIR])
			continue;
		for (j = 0; j < qa->sqn; j++)
			if (!qa->sq[j]->done && spans_hit(s, n, qa->sq[j]->sp, qa->sq[j]->nsp, 1))
				return 1;
		for (j = 0; j < qb->rqn; j++)
			if (qb->rq[j] != skip && spans_hit(s, n, qb->rq[j]->sp, qb->rq[j]->nsp, 1))
				return 1;
	}
	for (j = 0; j < W.srqn; j++)
		if (W.srqq[j] != skip && spans_hit(s, n, W.srqq[j]->sp, W.srqq[j]->nsp, 1))
			return 1;
	return 0;
}

/*
 * A WR that completes in error is over for its requester, not for its
 * responder: the packets it sent before the error (a later WR's local
 * failure moving the QP to ERR flushes it at once, a local fault at its
 * own packet k stops it after packets 0..k-1, chaos moves the requester
 * to ERR) wait in the responder's queue and are written when the
 * responder gets to them, maybe well after the completion.  rxe's
 * responder is a QP of its own: nothing but its destruction
 * (rxe_qp_do_cleanup() stops its task and drops the packets) stops it.
 * So the target a failed WR names stays busy until its pair is destroyed:
 * WRs and receive WQEs posted over it meanwhile have no determined data.
 */
static void late_keep(struct pair *P, const struct wrrec *w)
{
	const struct span *s;

	if (w->remote_sp < 0 || !w->sp[w->remote_sp].dest)
		return;
	s = &w->sp[w->remote_sp];
	if (P->nlate == VF_LATE) {
		/* cannot be: a pair retires at its first error, so only the
		 * WRs it had then can fail; the whole region, to be safe */
		hostile_taint((int)(P - W.pair), (int)(s->g - W.reg));
		return;
	}
	P->late[P->nlate++] = *s;
}

/* Does a failed WR's responder still reach s[0..n)? */
static int late_busy(const struct span *s, int n)
{
	int p;

	for (p = 0; p < VF_NPAIR; p++)
		if (W.pair[p].live && W.pair[p].nlate &&
		    spans_hit(W.pair[p].late, W.pair[p].nlate, s, n, 0))
			return 1;
	return 0;
}

/* Pair p's QPs are destroyed: what its failed WRs sent is written or gone */
void traffic_late_release(int p)
{
	struct pair *P = &W.pair[p];
	int i;

	/* (a region made again meanwhile loses what it knows there: no harm) */
	for (i = 0; i < P->nlate; i++)
		if (P->late[i].g->used)
			shadow_set_unknown(P->late[i].g, P->late[i].off, P->late[i].len);
	P->nlate = 0;
}

/* Every byte of the span known, and seen by the MR as the CPU sees it */
static int span_known(const struct span *s)
{
	uint64_t i;

	for (i = 0; i < s->len; i++) {
		uint64_t o = s->off + i;

		if (!s->g->known[o] || s->g->detached[o / 4096])
			return 0;
	}
	return 1;
}

static void spans_unknown(const struct span *s, int n, int dest_only)
{
	int i;

	for (i = 0; i < n; i++)
		if (s[i].dest || !dest_only)
			shadow_set_unknown(s[i].g, s[i].off, s[i].len);
}

/* ------------------------------------------------------------ bookkeeping */

static struct wrrec *wr_new(void)
{
	struct wrrec *w = calloc(1, sizeof(*w));

	if (!w) {
		fprintf(stderr, "verbs-fuzz: out of memory\n");
		exit(2);
	}
	w->id = ++W.next_id;
	w->remote_sp = -1;
	return w;
}

static void wr_put(struct wrrec *w)
{
	if (--w->refs > 0)
		return;
	free(w->data);
	free(w);
}

/* w's send side is over: drop its claim on the memory; its destination
 * is unknown unless the caller checked it. */
static void wr_finish(struct wrrec *w, int dest_checked)
{
	if (w->done)
		return;
	w->done = 1;
	pend_add(w->sp, w->nsp, -1);
	if (!dest_checked)
		spans_unknown(w->sp, w->nsp, 1);
}

/* A request's outcomes in the current state, OR-ed into what it may do. */
static void wr_eval(struct wrrec *w, int first)
{
	struct m_mr buf[VF_NREG];
	struct m_view v;
	struct pair *P = wr_pair(w);
	struct vq *rq = req_qp(w), *rs = P ? &P->b : rq;
	const struct m_recv *rv = w->recv ? &w->recv->r : NULL;
	struct m_out o;
	int i, any = 0;

	world_view(&v, buf);
	if (P && rs->srq && consumes_recv(w->req.op) && !rv) {
		/* any SRQ WQE may take it: the union over those posted */
		for (i = 0; i < W.srqn; i++) {
			m_eval(&v, &rq->m, &rs->m, &w->req, &W.srqq[i]->r, &o);
			if (!any && first)
				w->out = o;
			any = 1;
			w->allowed |= o.req;
			w->recv_allowed |= o.recv;
			w->resp_may_err |= o.resp_err;
			if (o.recv_untouched || o.recv_stuck)
				w->out.recv_untouched |= o.recv_untouched;
			if (!i)
				w->split_now = 0;
			w->split_now |= o.req_split;
		}
		if (any)
			return;
	}
	m_eval(&v, &rq->m, &rs->m, &w->req, rv, &o);
	if (first)
		w->out = o;
	w->split_now = o.req_split;
	w->allowed |= o.req;
	w->recv_allowed |= o.recv;
	w->resp_may_err |= o.resp_err;
	if (!first && (o.recv_untouched || o.recv_stuck))
		w->out.recv_untouched = 1;
}

/* A WR that may fail at the responder may take it to ERR, so that its
 * receive queue is flushed, maybe before the WR's own completion shows */
static void note_may_err(const struct wrrec *w)
{
	struct pair *P = wr_pair(w);

	if (P && (w->allowed & (M_ST(MS_REM_ACCESS_ERR) | M_ST(MS_REM_INV_REQ_ERR) |
				M_ST(MS_REM_OP_ERR))))
		P->b.may_err = 1;
	if (P && (w->recv_allowed & ~M_ST(MS_SUCCESS)))
		P->b.may_err = 1;
	/* a READ whose requester fails first, at a packet before the one
	 * the responder cannot read (m_out.resp_err) */
	if (P && w->resp_may_err)
		P->b.may_err = 1;
	/* a resent READ is replayed by the responder between the packets of
	 * a later multi-packet SEND (duplicate_request() -> read_reply()); if
	 * the READ's MR is gone or its page unreadable by then, the error
	 * (RESPST_ERR_RKEY_VIOLATION) completes the receive WQE the SEND is
	 * filling, with qp->resp.status IBV_WC_REM_ACCESS_ERR (do_complete()) */
	if (P && w->req.op == M_READ &&
	    ((w->allowed & M_ST(MS_REM_ACCESS_ERR)) || w->resp_may_err))
		P->b.read_may_fail = 1;
	/* a UD send that fails locally takes its QP to ERR: its receive
	 * queue may be flushed before the send's completion shows */
	if (!P && (w->allowed & ~M_ST(MS_SUCCESS)))
		req_qp(w)->may_err = 1;
}

static int wr_touches(const struct wrrec *w, int region)
{
	int j, k;

	for (j = 0; j < w->nsp; j++)
		if (w->sp[j].g == &W.reg[region])
			return 1;
	if (w->recv)
		for (k = 0; k < w->recv->nsp; k++)
			if (w->recv->sp[k].g == &W.reg[region])
				return 1;
	/* a message to an SRQ responder may take any WQE of the SRQ
	 * (wr_eval() takes the union): it reaches all their buffers */
	if (!w->recv && consumes_recv(w->req.op) && wr_pair(w) && wr_pair(w)->b.srq)
		for (j = 0; j < W.srqn; j++)
			for (k = 0; k < W.srqq[j]->nsp; k++)
				if (W.srqq[j]->sp[k].g == &W.reg[region])
					return 1;
	return 0;
}

void traffic_reevaluate(int region, int all)
{
	int p, i;

	for (p = 0; p < VF_NPAIR + VF_NUD; p++) {
		struct vq *q = p < VF_NPAIR ? &W.pair[p].a : &W.ud[p - VF_NPAIR];

		if (p < VF_NPAIR ? !W.pair[p].live : !W.ud_live[p - VF_NPAIR])
			continue;
		for (i = 0; i < q->sqn; i++) {
			struct wrrec *w = q->sq[i];
			uint32_t before = w->allowed, rbefore = w->recv_allowed;
			int touch = region >= 0 && wr_touches(w, region);

			if (!all && !touch)
				continue;
			/* an MR change may move any key: evaluate all, and call
			 * raced those it touches or whose outcome moved */
			wr_eval(w, 0);
			if (touch || w->allowed != before || w->recv_allowed != rbefore) {
				/* the change may fall between its two sides'
				 * accesses: each side's failure alone too
				 * (m_out.req_split) */
				w->allowed |= w->split_now;
				if (!w->raced)
					W.st.raced++;
				w->raced = 1;
			}
			note_may_err(w);
		}
	}
}

/* ---------------------------------------------------------------- receive */

/* mark_conflicts(): a send overlapping receive WQE x's buffers (arg); the
 * messages waiting for a receive WQE are handled by their WQEs' marks */
static int overlaps_rrec(const struct wrrec *u, int consumer, const void *arg)
{
	const struct rrec *x = arg;

	return !consumer && spans_hit(u->sp, u->nsp, x->sp, x->nsp, 0);
}

static struct rrec *rrec_make(struct rng *r, unsigned int max_sge, int srq, int ud)
{
	struct rrec *x = calloc(1, sizeof(*x));
	int i, mi;

	if (!x)
		exit(2);
	x->id = ++W.next_id;
	x->srq = srq;
	if (max_sge > VF_SGE)
		max_sge = VF_SGE;
	x->r.nsge = (int)rng_range(r, 1, max_sge ? max_sge : 1);
	for (i = 0; i < x->r.nsge; i++) {
		uint64_t len = ud ? rng_range(r, 256, 5000) : pick_len(r, 1024, 8192);

		mi = pick_mr(r, 0, MA_LOCAL_WRITE);
		if (mi >= 0 && len > W.mr[mi].m.len)
			len = W.mr[mi].m.len;
		x->r.sge[i].len = (uint32_t)len;
		if (rng_pct(r, 97) && mi >= 0) {
			x->r.sge[i].lkey = W.mr[mi].m.key;
			x->r.sge[i].addr = W.mr[mi].m.iova + rng_below(r, W.mr[mi].m.len - len + 1);
		} else {
			x->r.sge[i].lkey = pick_key(r, mi);
			x->r.sge[i].addr = pick_addr(r, mi, len, 0);
		}
	}
	return x;
}

static int post_rrec(struct vq *q, struct rrec *x)
{
	struct ibv_sge sg[M_MAX_SGE];
	struct ibv_recv_wr wr = { .wr_id = x->id, .sg_list = sg, .num_sge = x->r.nsge }, *bad;
	int i, err;

	for (i = 0; i < x->r.nsge; i++)
		sg[i] = (struct ibv_sge){ .addr = x->r.sge[i].addr, .length = x->r.sge[i].len,
					  .lkey = x->r.sge[i].lkey };
	err = x->srq ? ibv_post_srq_recv(W.srq, &wr, &bad) : ibv_post_recv(q->qp, &wr, &bad);
	if (err) {
		vf_finding("ibv_post_%srecv (%d SGEs) failed: %s", x->srq ? "srq_" : "", x->r.nsge,
			   strerror(err));
		return -1;
	}
	x->nsp = sge_spans(x->r.sge, x->r.nsge, 0, UINT64_MAX, 1, x->sp);
	/*
	 * Buffers that a WR in flight (or another receive WQE) reaches: the
	 * message this WQE takes lands before or after that access, in an
	 * order nothing sets (two QPs), so neither has a determined result.
	 * pend_busy() at a WR's post covers only WQEs posted before it.
	 */
	if (pend_busy(x->sp, x->nsp)) {
		if (dest_busy(x->sp, x->nsp, x))
			x->conflict |= CF_RECV;
		mark_conflicts(overlaps_rrec, x, CF_RECV);
		mark_recv_conflicts(x->sp, x->nsp, CF_RECV);
	}
	if (late_busy(x->sp, x->nsp))
		x->conflict |= CF_LATE;
	pend_add(x->sp, x->nsp, +1);
	x->posted = 1;
	if (x->srq) {
		/* messages in flight to SRQ responders may get this WQE */
		struct m_mr buf[VF_NREG];
		struct m_view v;
		struct m_out o;
		int p, k;

		world_view(&v, buf);
		for (p = 0; p < VF_NPAIR; p++) {
			struct pair *P = &W.pair[p];

			if (!P->live || !P->b.srq)
				continue;
			for (k = 0; k < P->b.consn; k++) {
				struct wrrec *c = P->b.cons[k];

				m_eval(&v, &P->a.m, &P->b.m, &c->req, &x->r, &o);
				c->allowed |= o.req;
				c->recv_allowed |= o.recv;
				note_may_err(c);
			}
		}
	}
	if (x->srq) {
		W.srqq[W.srqn++] = x;
		W.srq_recvs++;
	} else {
		q->rq[q->rqn++] = x;
		q->recvs++;
	}
	return 0;
}

/* A receive WQE is over: its buffers hold what they hold. */
static void rrec_finish(struct rrec *x, int checked)
{
	if (!x->posted)
		return;
	x->posted = 0;
	pend_add(x->sp, x->nsp, -1);
	if (!checked)
		spans_unknown(x->sp, x->nsp, 0);
}

/* ------------------------------------------------------------------ post */

static int ibv_opcode(enum m_op op)
{
	switch (op) {
	case M_WRITE: return IBV_WR_RDMA_WRITE;
	case M_WRITE_IMM: return IBV_WR_RDMA_WRITE_WITH_IMM;
	case M_SEND: return IBV_WR_SEND;
	case M_SEND_IMM: return IBV_WR_SEND_WITH_IMM;
	case M_SEND_INV: return IBV_WR_SEND_WITH_INV;
	case M_READ: return IBV_WR_RDMA_READ;
	case M_CAS: return IBV_WR_ATOMIC_CMP_AND_SWP;
	case M_FADD: return IBV_WR_ATOMIC_FETCH_AND_ADD;
	case M_ATOMIC_WRITE: return IBV_WR_ATOMIC_WRITE;
	case M_FLUSH: return RING_WR_FLUSH;
	default: return -1;
	}
}

static int post_verbs(struct vq *q, struct wrrec *w, uint32_t raw_opcode)
{
	struct ibv_sge sg[M_MAX_SGE];
	struct ibv_send_wr wr, *bad;
	int i, n = w->req.nsge;

	memset(&wr, 0, sizeof(wr));
	for (i = 0; i < n && i < M_MAX_SGE; i++)
		sg[i] = (struct ibv_sge){ .addr = w->req.sge[i].addr, .length = w->req.sge[i].len,
					  .lkey = w->req.sge[i].lkey };
	wr.wr_id = w->id;
	wr.sg_list = sg;
	wr.num_sge = n;
	wr.opcode = w->req.op == M_BAD_OPCODE ? (enum ibv_wr_opcode)raw_opcode :
					       (enum ibv_wr_opcode)ibv_opcode(w->req.op);
	wr.send_flags = (w->signaled ? IBV_SEND_SIGNALED : 0) | (w->req.inl ? IBV_SEND_INLINE : 0);
	wr.imm_data = htobe32(w->imm);
	if (w->req.op == M_SEND_INV)
		wr.invalidate_rkey = w->req.inv_rkey;
	if (q->m.ud) {
		wr.wr.ud.ah = W.ah;
		wr.wr.ud.remote_qpn = (uint32_t)w->req.raddr;
		wr.wr.ud.remote_qkey = w->req.rkey;
	} else if (w->req.op == M_CAS || w->req.op == M_FADD) {
		wr.wr.atomic.remote_addr = w->req.raddr;
		wr.wr.atomic.rkey = w->req.rkey;
		wr.wr.atomic.compare_add = w->req.op == M_CAS ? w->cmp : w->swap;
		wr.wr.atomic.swap = w->swap;
	} else {
		wr.wr.rdma.remote_addr = w->req.raddr;
		wr.wr.rdma.rkey = w->req.rkey;
	}
	return ibv_post_send(q->qp, &wr, &bad);
}

static int post_qpex(struct vq *q, struct wrrec *w)
{
	struct ibv_qp_ex *x = q->qpx;
	struct ibv_sge sg[M_MAX_SGE];
	struct ibv_data_buf db[M_MAX_SGE];
	int i, n = w->req.nsge < M_MAX_SGE ? w->req.nsge : M_MAX_SGE;

	ibv_wr_start(x);
	x->wr_id = w->id;
	x->wr_flags = (w->signaled ? IBV_SEND_SIGNALED : 0) | (w->req.inl ? IBV_SEND_INLINE : 0);
	switch (w->req.op) {
	case M_WRITE: ibv_wr_rdma_write(x, w->req.rkey, w->req.raddr); break;
	case M_WRITE_IMM:
		ibv_wr_rdma_write_imm(x, w->req.rkey, w->req.raddr, htobe32(w->imm));
		break;
	case M_SEND: ibv_wr_send(x); break;
	case M_SEND_IMM: ibv_wr_send_imm(x, htobe32(w->imm)); break;
	case M_SEND_INV: ibv_wr_send_inv(x, w->req.inv_rkey); break;
	case M_READ: ibv_wr_rdma_read(x, w->req.rkey, w->req.raddr); break;
	case M_CAS: ibv_wr_atomic_cmp_swp(x, w->req.rkey, w->req.raddr, w->cmp, w->swap); break;
	case M_FADD: ibv_wr_atomic_fetch_add(x, w->req.rkey, w->req.raddr, w->swap); break;
	case M_ATOMIC_WRITE: ibv_wr_atomic_write(x, w->req.rkey, w->req.raddr, &w->swap); break;
	default:
		ibv_wr_abort(x);
		return EINVAL;
	}
	if (q->m.ud)
		ibv_wr_set_ud_addr(x, W.ah, (uint32_t)w->req.raddr, w->req.rkey);
	if (w->req.op != M_ATOMIC_WRITE) {
		if (w->req.inl) {
			for (i = 0; i < n; i++)
				db[i] = (struct ibv_data_buf){
					.addr = (void *)(uintptr_t)w->req.sge[i].addr,
					.length = w->req.sge[i].len };
			ibv_wr_set_inline_data_list(x, n, db);
		} else {
			for (i = 0; i < n; i++)
				sg[i] = (struct ibv_sge){ .addr = w->req.sge[i].addr,
							  .length = w->req.sge[i].len,
							  .lkey = w->req.sge[i].lkey };
			ibv_wr_set_sge_list(x, w->req.nsge, sg);
		}
	}
	return ibv_wr_complete(x);
}

/* The WQE as librxe would write it, into the ring, and the doorbell. */
static int post_ring(struct vq *q, struct wrrec *w, uint32_t raw_opcode)
{
	struct rxe_send_wqe *e = ring_next(&q->ring);
	int i, n = w->req.nsge < M_MAX_SGE ? w->req.nsge : M_MAX_SGE;

	if (!e)
		return ENOSPC;
	e->wr.wr_id = w->id;
	e->wr.opcode = w->req.op == M_BAD_OPCODE ? raw_opcode : (uint32_t)ibv_opcode(w->req.op);
	e->wr.send_flags = (w->signaled ? IBV_SEND_SIGNALED : 0) | (w->req.inl ? IBV_SEND_INLINE : 0);
	e->wr.ex.imm_data = htobe32(w->imm);
	switch (w->req.op) {
	case M_CAS:
	case M_FADD:
		e->wr.wr.atomic.remote_addr = w->req.raddr;
		e->wr.wr.atomic.rkey = w->req.rkey;
		e->wr.wr.atomic.compare_add = w->req.op == M_CAS ? w->cmp : w->swap;
		e->wr.wr.atomic.swap = w->swap;
		e->iova = w->req.raddr;
		break;
	case M_FLUSH: {
		struct ring_flush_wr *f = (struct ring_flush_wr *)&e->wr.wr;

		f->remote_addr = w->req.raddr;
		f->length = w->req.flush_len;
		f->rkey = w->req.rkey;
		f->type = w->req.flush_type;
		f->level = w->req.flush_level;
		e->iova = w->req.raddr;
		break;
	}
	case M_SEND_INV:
		e->wr.ex.invalidate_rkey = w->req.inv_rkey;
		break;
	default:
		e->wr.wr.rdma.remote_addr = w->req.raddr;
		e->wr.wr.rdma.rkey = w->req.rkey;
		e->iova = w->req.raddr;
		break;
	}
	if (w->req.op == M_ATOMIC_WRITE) {
		memcpy(e->dma.inline_data, &w->swap, 8);
		e->dma.length = e->dma.resid = 8;
	} else if (w->req.op == M_FLUSH) {
		e->dma.length = e->dma.resid = w->req.flush_len;
	} else if (w->req.inl) {
		uint32_t off = 0;

		for (i = 0; i < n; i++) {
			memcpy(e->dma.inline_data + off, (void *)(uintptr_t)w->req.sge[i].addr,
			       w->req.sge[i].len);
			off += w->req.sge[i].len;
		}
		e->dma.length = e->dma.resid = off;
	} else {
		e->dma.num_sge = (uint32_t)w->req.nsge;
		for (i = 0; i < n; i++) {
			e->dma.sge[i].addr = w->req.sge[i].addr;
			e->dma.sge[i].length = w->req.sge[i].len;
			e->dma.sge[i].lkey = w->req.sge[i].lkey;
		}
		e->dma.length = e->dma.resid = (uint32_t)m_msg_len(&w->req);
	}
	W.st.ring_posts++;
	return ring_post(&q->ring);
}

/* The bytes a message gathers, from the shadow; NULL if any is unknown */
static uint8_t *gather_expect(const struct wrrec *w, const struct vq *q, uint64_t L)
{
	uint8_t *d;
	uint64_t off = 0;
	int i;

	if (L > (1u << 20))
		return NULL;
	d = malloc(L ? L : 1);
	if (!d)
		return NULL;
	for (i = 0; i < w->req.nsge && i < M_MAX_SGE && off < L; i++) {
		uint64_t k = w->req.sge[i].len < L - off ? w->req.sge[i].len : L - off;
		struct span s;

		if (!k)
			continue;
		if (w->req.inl) {
			/* inline data is copied at post, from the CPU's view */
			struct region *g = region_of(w->req.sge[i].addr, &s.off);

			if (!g || s.off + k > g->len || memchr(g->known + s.off, 0, k))
				goto unknown;
			s.g = g;
		} else if (!span_of(w->req.sge[i].lkey, q->m.pd, w->req.sge[i].addr, k, &s) ||
			   s.len < k || !span_known(&s)) {
			goto unknown;
		}
		memcpy(d + off, s.g->shadow + s.off, k);
		off += k;
	}
	if (off != L)
		goto unknown;
	return d;
unknown:
	free(d);
	return NULL;
}

/* Fresh random bytes in the source SGEs of a WR, where the CPU can write
 * and nothing is in flight. */
static void scribble(struct rng *r, const struct wrrec *w, const struct vq *q, uint64_t L)
{
	uint64_t off = 0;
	int i;

	for (i = 0; i < w->req.nsge && i < M_MAX_SGE && off < L; i++) {
		uint64_t k = w->req.sge[i].len < L - off ? w->req.sge[i].len : L - off, j;
		struct span s;

		if (!k)
			continue;
		off += k;
		if (w->req.inl) {
			struct region *g = region_of(w->req.sge[i].addr, &s.off);

			if (!g || s.off + k > g->len)
				continue;
			s.g = g;
			s.len = k;
		} else if (!span_of(w->req.sge[i].lkey, q->m.pd, w->req.sge[i].addr, k, &s)) {
			continue;
		}
		if (pend_busy(&s, 1))
			continue;
		for (j = 0; j < s.len; j++) {
			uint64_t o = s.off + j;

			if (s.g->pst[o / 4096] != MP_RW || o < s.g->woff ||
			    o - s.g->woff >= s.g->wlen)
				continue;
			s.g->data[o] = (char)rng_u64(r);
			s.g->shadow[o] = (uint8_t)s.g->data[o];
			s.g->known[o] = 1;
		}
	}
}

/* ------------------------------------------------------------- generation */

static enum m_op pick_op(struct rng *r, int ud)
{
	static const unsigned int rcw[M_NOPS] = {
		[M_WRITE] = 18, [M_WRITE_IMM] = 6, [M_SEND] = 14, [M_SEND_IMM] = 5,
		[M_SEND_INV] = 1, [M_READ] = 16, [M_CAS] = 6, [M_FADD] = 6,
		[M_ATOMIC_WRITE] = 5, [M_FLUSH] = 5, [M_BAD_OPCODE] = 1,
	};
	static const unsigned int udw[M_NOPS] = {
		[M_SEND] = 20, [M_SEND_IMM] = 6, [M_READ] = 1, [M_WRITE] = 1, [M_BAD_OPCODE] = 1,
	};
	unsigned int w[M_NOPS];

	memcpy(w, ud ? udw : rcw, sizeof(w));
	if (!vf_on(C_BADOP))
		w[M_BAD_OPCODE] = 0;
	if (!vf_on(C_RING))
		w[M_FLUSH] = 0;
	if (!W.have_qpex && !vf_on(C_RING))
		w[M_ATOMIC_WRITE] = 0;
	return (enum m_op)rng_pick(r, w, M_NOPS);
}

/* The local SGE list of a WR for a message of about len bytes. */
static void gen_sges(struct rng *r, struct wrrec *w, const struct vq *q, uint64_t len,
		     unsigned int access)
{
	int n, i, mi = pick_mr(r, 0, access);
	uint64_t left = len;

	if (len > (1u << 30) && rng_pct(r, 50)) {
		/* 32-bit lengths that wrap when librxe sums them */
		w->req.nsge = q->m.max_sge >= 2 ? 2 : 1;
		w->req.sge[0] = (struct m_sge){ .addr = pick_addr(r, mi, 16, 0), .len = 0xfffffff0u,
						.lkey = mi >= 0 ? W.mr[mi].m.key : 0 };
		w->req.sge[1] = (struct m_sge){ .addr = pick_addr(r, mi, 64, 0), .len = 0x40,
						.lkey = mi >= 0 ? W.mr[mi].m.key : 0 };
		return;
	}
	n = (int)rng_range(r, len ? 1 : 0, q->m.max_sge < VF_SGE ? q->m.max_sge : VF_SGE);
	if (rng_pct(r, 2) && q->m.max_sge < M_MAX_SGE)
		n = (int)q->m.max_sge + 1;		/* one too many */
	w->req.nsge = n;
	for (i = 0; i < n; i++) {
		uint64_t k = i == n - 1 ? left : rng_below(r, left + 1);

		if (rng_pct(r, 10))
			k = 0;
		if (k > 0xffffffffull)
			k = 0xffffffffull;
		if (rng_pct(r, 30))
			mi = pick_mr(r, 0, access);
		w->req.sge[i].len = (uint32_t)k;
		w->req.sge[i].lkey = pick_key(r, mi);
		w->req.sge[i].addr = pick_addr(r, mi, k, 0);
		left -= k;
	}
}

static int live_pairs(int *c)
{
	int n = 0, i;

	for (i = 0; i < VF_NPAIR; i++)
		if (W.pair[i].live && !W.pair[i].retiring && W.pair[i].a.sqn < VF_SQ - 2 &&
		    W.pair[i].b.consn < VF_SQ * 2 - 2)
			c[n++] = i;
	return n;
}

static void post_delayed(struct delayed *d)
{
	struct vq *q = d->pair >= 0 ? &W.pair[d->pair].b : NULL;

	d->used = 0;
	if ((d->pair >= 0 && (!W.pair[d->pair].live || q->rqn >= VF_RQ - 1)) ||
	    (d->pair < 0 && W.srqn >= VF_RQ - 1) || post_rrec(q, d->r)) {
		if (d->r->cons)
			d->r->cons->recv = NULL;
		free(d->r);
	}
}

static void delay_recv(struct rng *r, int pair, struct rrec *x)
{
	int i;

	for (i = 0; i < 16; i++)
		if (!W.delayed[i].used) {
			W.delayed[i] = (struct delayed){ .used = 1, .pair = pair, .r = x,
							 .due = W.ops + rng_range(r, 1, 6) };
			return;
		}
	post_delayed(&(struct delayed){ .pair = pair, .r = x });
}

/* mark_conflicts(): a send overlapping w, or any waiting RC send (w reaches memory) */
static int overlaps_wr(const struct wrrec *u, int consumer, const void *arg)
{
	const struct wrrec *w = arg;

	if (consumer)
		return w->nsp > 0;
	return spans_hit(u->sp, u->nsp, w->sp, w->nsp, 0);
}

/* Decide on one WR, evaluate it in the model, post it. */
static void gen_one(struct rng *r)
{
	int c[VF_NPAIR], n = live_pairs(c), ud = 0, p, err, i, rmi = -1;
	struct wrrec *w;
	struct vq *q, *rs;
	struct pair *P = NULL;
	uint32_t raw_opcode = 0;
	uint64_t L, maxlen;
	struct rrec *later = NULL;
	char b[160];

	if (vf_on(C_UD) && (!vf_on(C_RC) || !n || rng_pct(r, 15))) {
		int u = (int)rng_below(r, VF_NUD), t = (int)rng_below(r, VF_NUD);

		if (!W.ud_live[u] || !W.ud_live[t] || W.ud[u].sqn >= VF_SQ - 2 ||
		    W.ud[u].err_seen || W.ud[u].chaos_err)
			return;
		ud = 1;
		p = VF_NPAIR + u;
		q = &W.ud[u];
		rs = &W.ud[t];
	} else {
		if (!n || !vf_on(C_RC))
			return;
		p = c[rng_below(r, n)];
		P = &W.pair[p];
		q = &P->a;
		rs = &P->b;
	}
	w = wr_new();
	w->refs = 1;
	w->pair = p;
	w->req.op = pick_op(r, ud);
	w->signaled = rng_pct(r, 85);
	w->imm = (uint32_t)rng_u64(r);
	w->cmp = rng_u64(r);
	w->swap = rng_u64(r);
	if (w->req.op == M_BAD_OPCODE)
		raw_opcode = bad_opcodes[rng_below(r, sizeof(bad_opcodes) / sizeof(bad_opcodes[0]))];
	/* the path: librxe's post_send, its ibv_qp_ex, or the ring */
	w->req.path = M_PATH_VERBS;
	if (q->qpx && w->req.op != M_FLUSH && w->req.op != M_BAD_OPCODE && rng_pct(r, 30))
		w->req.path = M_PATH_QPEX;
	if (w->req.op == M_ATOMIC_WRITE)
		w->req.path = q->qpx && (rng_pct(r, 70) || !q->have_ring) ? M_PATH_QPEX :
									     M_PATH_RING;
	if (w->req.op == M_FLUSH || (q->have_ring && vf_on(C_RING) && !ud &&
				     w->req.op != M_ATOMIC_WRITE && rng_pct(r, 10)))
		w->req.path = M_PATH_RING;
	/*
	 * A UD QP's ibv_qp_ex has SEND and SEND with immediate only: librxe
	 * leaves the other wr_* pointers NULL (the opcodes UD lacks go
	 * through ibv_post_send()).
	 */
	if ((w->req.path == M_PATH_RING && (!q->have_ring || !vf_on(C_RING))) ||
	    (w->req.path == M_PATH_QPEX && !q->qpx) || (ud && w->req.path == M_PATH_RING) ||
	    (ud && w->req.path == M_PATH_QPEX && w->req.op != M_SEND && w->req.op != M_SEND_IMM)) {
		wr_put(w);
		return;
	}

	/* the remote MR */
	switch (w->req.op) {
	case M_WRITE: case M_WRITE_IMM: case M_READ:
		rmi = pick_mr(r, rng_pct(r, 95) ? 0 : 1,
			      w->req.op == M_READ ? MA_REMOTE_READ : MA_REMOTE_WRITE);
		break;
	case M_CAS: case M_FADD: rmi = pick_mr(r, 0, MA_REMOTE_ATOMIC); break;
	case M_ATOMIC_WRITE: rmi = pick_mr(r, 0, MA_REMOTE_WRITE); break;
	case M_FLUSH: rmi = pick_mr(r, 0, MA_FLUSH_GLOBAL); break;
	default: break;
	}
	if (rmi < 0 && !ud)
		rmi = pick_mr(r, 0, 0);
	maxlen = rmi >= 0 ? W.mr[rmi].m.len : 8192;
	if (maxlen > 65536)
		maxlen = 65536;
	L = pick_len(r, q->m.mtu, maxlen);
	if (rng_pct(r, 1))
		L = (uint64_t[]){ 0x7fffffffu, 0x80000000u, 0x80000001u, 0xffffffffu,
				  0x100000010ull }[rng_below(r, 5)];
	if (ud && rng_pct(r, 95) && L > q->m.mtu)
		L = rng_range(r, 8, q->m.mtu);
	if (ud && L && L < 8)
		L = 8;
	switch (w->req.op) {
	case M_CAS: case M_FADD:
		gen_sges(r, w, q, rng_pct(r, 95) ? 8 : rng_below(r, 16), MA_LOCAL_WRITE);
		w->req.raddr = pick_addr(r, rmi, 8, rng_pct(r, 92));
		w->req.rkey = pick_key(r, rmi);
		break;
	case M_ATOMIC_WRITE:
		w->req.raddr = pick_addr(r, rmi, 8, rng_pct(r, 92));
		w->req.rkey = pick_key(r, rmi);
		break;
	case M_FLUSH:
		w->req.flush_len = (uint32_t)L;
		w->req.flush_type = (uint8_t)(rng_pct(r, 80) ? 1 : rng_below(r, 4));
		w->req.flush_level = (uint8_t)(rng_pct(r, 70) ? 0 : rng_below(r, 3));
		w->req.raddr = pick_addr(r, rmi, L, 0);
		w->req.rkey = pick_key(r, rmi);
		break;
	case M_READ:
		gen_sges(r, w, q, L, MA_LOCAL_WRITE);
		w->req.raddr = pick_addr(r, rmi, m_msg_len(&w->req), 0);
		w->req.rkey = pick_key(r, rmi);
		break;
	default:
		gen_sges(r, w, q, L, 0);
		if (ud) {
			w->req.raddr = rs->qp->qp_num;
			w->req.rkey = rng_pct(r, 97) ? UD_QKEY : (uint32_t)rng_u64(r);
		} else {
			w->req.raddr = pick_addr(r, rmi, m_msg_len(&w->req), 0);
			w->req.rkey = pick_key(r, rmi);
		}
		w->req.inv_rkey = (uint32_t)rng_u64(r);
		break;
	}
	L = m_msg_len(&w->req);
	if ((w->req.op == M_WRITE || w->req.op == M_SEND || w->req.op == M_SEND_IMM ||
	     w->req.op == M_WRITE_IMM) && L <= q->m.max_inline && q->m.max_inline &&
	    w->req.nsge <= (int)q->m.max_sge && rng_pct(r, 20)) {
		/* inline data is read at post: only from pages the CPU can read */
		int ok = 1;

		for (i = 0; i < w->req.nsge; i++) {
			uint64_t o;
			struct region *g = w->req.sge[i].len ? region_of(w->req.sge[i].addr, &o) : NULL;

			if (w->req.sge[i].len &&
			    (!g || o + w->req.sge[i].len > g->len || g->pst[o / 4096] != MP_RW ||
			     g->pst[(o + w->req.sge[i].len - 1) / 4096] != MP_RW))
				ok = 0;
		}
		w->req.inl = ok;
	}

	/* the receive WQE an RC message takes */
	if (!ud && consumes_recv(w->req.op)) {
		/* one delayed receive per queue at a time, so they keep their order */
		for (i = 0; i < 16; i++)
			if (W.delayed[i].used && W.delayed[i].pair == (rs->srq ? -1 : p))
				post_delayed(&W.delayed[i]);
		if (!rs->srq) {
			uint64_t done = rs->recvs - (uint64_t)rs->rqn;
			int64_t k = (int64_t)rs->consumers - (int64_t)done;

			/* consumer number `consumers` takes WQE number `consumers` */
			if (k >= 0 && k < rs->rqn) {
				w->recv = rs->rq[k];
			} else if (k >= rs->rqn && rs->rqn == (int)(rs->recvs - done)) {
				later = rrec_make(r, rs->max_recv_sge, 0, 0);
				w->recv = later;
				w->rnr_possible = 1;
			} else {
				w->raced = 1;	/* the mapping is lost: statuses only */
			}
		} else if (W.srq_consumers >= W.srq_recvs) {
			later = rrec_make(r, VF_SGE, 1, 0);
			w->rnr_possible = 1;
		}
	}
	if (W.inject_pending)
		w->transient = 1;
	if (ud && L >= 8 && L <= q->m.mtu && w->req.op != M_BAD_OPCODE) {
		/* tag the message: its first 8 bytes name it at the receiver;
		 * its source QP is this QP, even once the slot has another */
		w->tag = w->id | UD_TAG;
		w->src_qpn = q->qp->qp_num;
	}

	/* fresh source data, the model's verdict, what the destination gets */
	scribble(r, w, q, w->req.op == M_READ ? 0 : L);
	if (w->tag) {
		/* sge_spans() fills a span per SGE the 8 bytes reach */
		struct span sp[M_MAX_SGE], *s = sp;
		uint64_t t = w->tag;

		/* write the tag into the first SGE if the CPU can; else no tag */
		if (!w->req.inl &&
		    sge_spans(w->req.sge, w->req.nsge, q->m.pd, 8, 0, sp) == 1 && s->len == 8 &&
		    !pend_busy(s, 1) && !span_tainted(s) && !late_busy(s, 1) &&
		    s->g->pst[s->off / 4096] == MP_RW &&
		    s->g->pst[(s->off + 7) / 4096] == MP_RW && !s->g->detached[s->off / 4096] &&
		    !s->g->detached[(s->off + 7) / 4096]) {
			memcpy(s->g->data + s->off, &t, 8);
			memcpy(s->g->shadow + s->off, &t, 8);
			memset(s->g->known + s->off, 1, 8);
		} else {
			w->tag = 0;
		}
	}
	wr_eval(w, 1);
	note_may_err(w);
	w->nsp = wr_spans(w, q, rs, w->sp, &w->remote_sp);
	for (i = 0; i < w->nsp; i++)
		if (span_tainted(&w->sp[i]))
			w->conflict |= CF_TAINT;
	if (late_busy(w->sp, w->nsp))
		w->conflict |= CF_LATE;
	if (vf_spans_self_overlap(w->sp, w->nsp)) {
		w->conflict |= CF_SELF;
		W.st.self_overlap++;
	}
	if (pend_busy(w->sp, w->nsp)) {
		/* overlaps WRs in flight: none of them has a determined result;
		 * nor have the messages that take a receive WQE it overlaps
		 * (the WQE's consumer may be posted later, not overlapping w) */
		w->conflict |= CF_OVERLAP;
		mark_conflicts(overlaps_wr, w, CF_OVERLAP);
		mark_recv_conflicts(w->sp, w->nsp, CF_RECV);
	}
	switch (w->req.op) {
	case M_WRITE: case M_WRITE_IMM: case M_SEND: case M_SEND_IMM: case M_SEND_INV:
		w->data = gather_expect(w, q, L);
		break;
	case M_READ:
		if (w->nsp && w->sp[w->nsp - 1].dest == 0 && w->sp[w->nsp - 1].len == L &&
		    span_known(&w->sp[w->nsp - 1])) {
			w->data = malloc(L);
			if (w->data)
				memcpy(w->data, w->sp[w->nsp - 1].g->shadow + w->sp[w->nsp - 1].off, L);
		}
		break;
	case M_CAS: case M_FADD:
		if (w->nsp && w->sp[w->nsp - 1].len == 8 && span_known(&w->sp[w->nsp - 1]) &&
		    span_of(w->req.rkey, rs->m.pd, w->req.raddr, 8, &(struct span){ 0 })) {
			memcpy(&w->atomic_old, w->sp[w->nsp - 1].g->shadow + w->sp[w->nsp - 1].off, 8);
			w->atomic_known = 1;
		}
		break;
	default:
		break;
	}

	W.st.wrs++;
	w->post_tick = vf_now();
	switch (w->req.path) {
	case M_PATH_QPEX: err = post_qpex(q, w); W.st.qpex_posts++; break;
	case M_PATH_RING: err = post_ring(q, w, raw_opcode); break;
	default: err = post_verbs(q, w, raw_opcode); break;
	}
	if (w->req.path == M_PATH_RING && err == ENOSPC) {
		wr_put(w);
		free(later);
		return;
	}
	if (w->out.post_err || err) {
		W.st.post_err++;
		if (!w->out.post_err)
			vf_finding("post of %s (path %d, %d SGEs, %llu bytes) on QP %u failed: %s; the "
				   "model has it accepted (completion %s)", m_op_name[w->req.op],
				   w->req.path, w->req.nsge, (unsigned long long)L, q->qp->qp_num,
				   strerror(err), m_status_set(w->allowed, b, sizeof(b)));
		else if (!err)
			vf_finding("post of %s (path %d, %d SGEs, %llu bytes, opcode %u) on QP %u was "
				   "accepted; the model has librxe refuse it (%s)", m_op_name[w->req.op],
				   w->req.path, w->req.nsge, (unsigned long long)L, raw_opcode,
				   q->qp->qp_num, strerror(w->out.post_err));
		wr_put(w);
		free(later);
		return;
	}
	W.st.posted++;
	pend_add(w->sp, w->nsp, +1);
	q->sq[q->sqn++] = w;
	if (!ud && consumes_recv(w->req.op) && w->out.consumes) {
		w->refs++;
		rs->cons[rs->consn++] = w;
		if (rs->srq)
			W.srq_consumers++;
		else
			rs->consumers++;
		if (w->recv) {
			struct wrrec *old = w->recv->cons;

			/* the WQE's earlier consumer on record (the mapping
			 * by count got lost) lets go of it: it would keep a
			 * pointer to the WQE after its completion frees it
			 * (a SIGSEGV in wr_eval()); statuses only for it */
			if (old && old != w && old->recv == w->recv) {
				old->recv = NULL;
				old->raced = 1;
			}
			w->recv->cons = w;
		}
	} else {
		/* it takes no WQE (refused before it is sent): holding one
		 * would leave a pointer to it once it completes */
		w->recv = NULL;
	}
	if (ud && rs->srq && w->out.consumes)
		W.srq_consumers++;
	if (P && w->out.resp_dies)
		P->resp_dead = 1;
	if (later)
		delay_recv(r, rs->srq ? -1 : p, later);
	if (W.o.verbose > 1)
		vf_log("post #%llu %s on QP %u path %d len %llu nsge %d allowed %s",
		       (unsigned long long)w->id, m_op_name[w->req.op], q->qp->qp_num, w->req.path,
		       (unsigned long long)L, w->req.nsge, m_status_set(w->allowed, b, sizeof(b)));
}

/*
 * A hostile WQE may write the regions its keys reach, at any time until
 * its pair is destroyed: as a WRITE or atomic at the responder, a READ
 * response into its own SGE, or as whatever its flipped opcode and
 * cursors make of it. Nothing in the model follows those writes, so
 * while such a pair lives no byte of those regions is known: no data
 * check looks at them, no WR reaching them has a determined result, and
 * their bytes stay unknown after the pair is gone.  Keys drawn at random
 * (a WQE made random whole) reach a live MR with a chance of about 2^-40:
 * not followed.
 */
static void region_all_unknown(int i)
{
	struct region *g = &W.reg[i];

	if (g->used)
		memset(g->known, 0, g->len);
}

/* mark_conflicts(): a WR reaching region g (arg) */
static int reaches_region(const struct wrrec *u, int consumer, const void *arg)
{
	int k;

	(void)consumer;
	for (k = 0; k < u->nsp; k++)
		if (u->sp[k].g == arg)
			return 1;
	return 0;
}

/* Region i (MR slot i) may be written by pair p's hostile WQEs */
static void hostile_taint(int p, int i)
{
	struct pair *P = &W.pair[p];

	if (i < 0 || (P->taint & 1u << i))
		return;
	P->taint |= 1u << i;
	W.taint[i]++;
	region_all_unknown(i);
	/* WRs in flight that reach it: no determined result any more */
	mark_conflicts(reaches_region, &W.reg[i], CF_TAINT);
}

/* Every live MR whose key is key (the WQE's rkey or lkey) */
static void hostile_taint_key(int p, uint32_t key)
{
	int i;

	for (i = 0; i < VF_NREG; i++)
		if (W.mr[i].live && W.mr[i].m.key == key)
			hostile_taint(p, i);
}

/* Pair p is destroyed: its hostile WQEs write nothing any more */
void traffic_untaint_pair(int p)
{
	struct pair *P = &W.pair[p];
	int i;

	for (i = 0; i < VF_NREG; i++)
		if (P->taint & 1u << i) {
			W.taint[i]--;
			region_all_unknown(i);
		}
	P->taint = 0;
}

/*
 * A WQE no library writes, into the ring of a live RC pair: a valid
 * request with one or two fields that disagree with the rest, as any
 * process owning a QP can write them.  Nothing is checked of its outcome
 * (any status, or none: the pair is then dropped) but what the kernel
 * says, the canaries and that destroying the pair works.
 */
static void gen_hostile(struct rng *r)
{
	int c[VF_NPAIR], n = live_pairs(c), p, i, mi = pick_mr(r, 0, 0), rmi = pick_mr(r, 0, 0);
	struct rxe_send_wqe *e;
	struct wrrec *w;
	struct pair *P;
	uint32_t len;

	if (!n)
		return;
	p = c[rng_below(r, n)];
	P = &W.pair[p];
	if (!P->a.have_ring || P->a.sqn >= VF_SQ - 2)
		return;
	e = ring_next(&P->a.ring);
	if (!e)
		return;
	w = wr_new();
	w->refs = 1;
	w->pair = p;
	w->signaled = 1;
	w->hostile = 1;
	w->allowed = ~0u;
	w->req.op = M_BAD_OPCODE;
	len = (uint32_t)pick_len(r, P->a.m.mtu, mi >= 0 ? W.mr[mi].m.len : 4096);
	/* a plausible request first */
	e->wr.wr_id = w->id;
	e->wr.opcode = (uint32_t[]){ IBV_WR_SEND, IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ,
				     IBV_WR_ATOMIC_FETCH_AND_ADD, RING_WR_ATOMIC_WRITE, RING_WR_FLUSH,
				     IBV_WR_SEND_WITH_IMM, IBV_WR_LOCAL_INV,
				     IBV_WR_BIND_MW }[rng_below(r, 9)];
	e->wr.send_flags = IBV_SEND_SIGNALED;
	e->wr.wr.rdma.remote_addr = e->iova = pick_addr(r, rmi, len, 1);
	e->wr.wr.rdma.rkey = pick_key(r, rmi);
	if (e->wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		e->wr.wr.atomic.remote_addr = e->iova;
		e->wr.wr.atomic.rkey = pick_key(r, rmi);
	}
	e->dma.num_sge = 1;
	e->dma.sge[0].addr = pick_addr(r, mi, len, 0);
	e->dma.sge[0].length = len;
	e->dma.sge[0].lkey = pick_key(r, mi);
	e->dma.length = e->dma.resid = len;
	/* then what no library writes */
	for (i = (int)rng_range(r, 1, 2); i > 0; i--) {
		switch (rng_below(r, 11)) {
		case 0:		/* inline data at any offset of the WQE */
			e->wr.send_flags |= IBV_SEND_INLINE;
			e->dma.sge_offset = rng_pct(r, 50) ? (uint32_t)rng_u64(r) :
					    (uint32_t)rng_below(r, (uint32_t)P->a.ring.elem + 64);
			break;
		case 1:		/* inline data longer than the QP's inline room */
			e->wr.send_flags |= IBV_SEND_INLINE;
			e->dma.length = e->dma.resid = (uint32_t)rng_range(r, P->a.m.max_inline + 1,
									      8192);
			break;
		case 2:		/* an ATOMIC WRITE longer than 8 bytes */
			e->wr.opcode = RING_WR_ATOMIC_WRITE;
			e->dma.length = e->dma.resid = (uint32_t)rng_range(r, 9, 8192);
			break;
		case 3:		/* an SGE cursor anywhere */
			e->dma.cur_sge = rng_pct(r, 50) ? (uint32_t)rng_u64(r) :
					 (uint32_t)rng_below(r, 64);
			break;
		case 4:
			e->dma.num_sge = rng_pct(r, 50) ? (uint32_t)rng_u64(r) :
					 (uint32_t)rng_below(r, 64);
			break;
		case 5:		/* residue and length that disagree */
			e->dma.resid = (uint32_t)(rng_pct(r, 50) ? rng_u64(r) : rng_below(r, 65536));
			break;
		case 6:
			e->dma.sge_offset = (uint32_t)rng_u64(r);
			break;
		case 7:		/* the driver's own bookkeeping */
			e->state = (uint32_t)rng_below(r, 8);
			e->status = (uint32_t)rng_below(r, 24);
			e->has_rd_atomic = (uint32_t)rng_below(r, 3);
			break;
		case 8:
			e->wr.opcode = RING_WR_FLUSH;
			((struct ring_flush_wr *)&e->wr.wr)->type = (uint8_t)rng_u64(r);
			((struct ring_flush_wr *)&e->wr.wr)->level = (uint8_t)rng_u64(r);
			break;
		case 9:
			e->iova = rng_u64(r);
			e->dma.length = (uint32_t)rng_u64(r);
			break;
		default:	/* the whole WQE random but for its id */
			for (size_t k = 8; k + 8 <= P->a.ring.elem; k += 8) {
				uint64_t x = rng_u64(r);

				memcpy((char *)e + k, &x, 8);
			}
			break;
		}
	}
	/* what it may write: the regions behind every key it carries now
	 * (flips below change its opcode and cursors, not its keys) */
	hostile_taint(p, mi);
	hostile_taint(p, rmi);
	hostile_taint_key(p, e->wr.wr.rdma.rkey);
	hostile_taint_key(p, e->wr.wr.atomic.rkey);
	hostile_taint_key(p, e->dma.sge[0].lkey);
	if (W.o.verbose)
		vf_log("hostile #%llu on pair %d: opcode %u raddr 0x%llx rkey 0x%x, sge 0x%llx "
		       "+%u lkey 0x%x; regions tainted 0x%x", (unsigned long long)w->id, p,
		       e->wr.opcode, (unsigned long long)e->wr.wr.rdma.remote_addr,
		       e->wr.wr.rdma.rkey, (unsigned long long)e->dma.sge[0].addr,
		       e->dma.sge[0].length, e->dma.sge[0].lkey, P->taint);
	W.st.hostile++;
	W.st.wrs++;
	w->post_tick = vf_now();
	if (ring_post(&P->a.ring)) {
		wr_put(w);
		return;
	}
	if (rng_pct(r, 40) && vf_on(C_HOSTILE_RACE)) {
		/*
		 * Rewrite the WQE while rxe works on it: the kernel reads it
		 * in place, so each field may change between two reads.
		 */
		volatile struct rxe_send_wqe *ve = e;
		unsigned int k, flips = (unsigned int)rng_range(r, 100, 20000);
		uint32_t vals[4] = { 0, 1, (uint32_t)rng_below(r, 64), (uint32_t)rng_u64(r) };

		for (k = 0; k < flips; k++) {
			uint32_t v = vals[k & 3];

			switch ((k >> 2) % 6) {
			case 0: ve->dma.num_sge = v; break;
			case 1: ve->dma.cur_sge = v; break;
			case 2: ve->dma.sge_offset = v; break;
			case 3: ve->dma.resid = v; break;
			case 4: ve->wr.opcode = v; break;
			default: ve->state = v & 7; break;
			}
		}
	}
	W.st.posted++;
	P->a.sq[P->a.sqn++] = w;
	P->hostile = 1;
	P->b.may_err = 1;
	P->resp_dead = 1;
	traffic_retire_pair(p, "hostile WQE");
}

/* Keep receive queues filled: RC responders, UD QPs, the SRQ. */
static void refill(struct rng *r)
{
	int p, u, i;

	for (p = 0; p < VF_NPAIR; p++) {
		struct vq *b = &W.pair[p].b;
		int busy = 0;

		if (!W.pair[p].live || b->srq || W.pair[p].retiring)
			continue;
		for (i = 0; i < 16; i++)
			busy |= W.delayed[i].used && W.delayed[i].pair == p;
		/* a receive posted now would take the place of a delayed one */
		while (!busy && b->rqn < 6)
			if (post_rrec(b, rrec_make(r, b->max_recv_sge, 0, 0)))
				return;
	}
	for (u = 0; u < VF_NUD; u++) {
		struct vq *q = &W.ud[u];

		if (!W.ud_live[u] || q->srq || q->err_seen || q->chaos_err)
			continue;
		while (q->rqn < 6)
			if (post_rrec(q, rrec_make(r, q->max_recv_sge < 2 ? q->max_recv_sge : 2, 0, 1)))
				return;
	}
	if (W.srq) {
		int busy = 0;

		for (i = 0; i < 16; i++)
			busy |= W.delayed[i].used && W.delayed[i].pair < 0;
		while (!busy && W.srqn < 6)
			if (post_rrec(NULL, rrec_make(r, VF_SGE, 1, 0)))
				return;
	}
	for (i = 0; i < 16; i++)
		if (W.delayed[i].used && W.delayed[i].due <= W.ops)
			post_delayed(&W.delayed[i]);
}

/* ---------------------------------------------------------------- verify */

/* Compare what a scatter through sge wrote with d; record it as known. */
static int check_scatter(const struct m_sge *sge, int nsge, int pd, const uint8_t *d,
			 uint64_t L, const char *what, const struct wrrec *w)
{
	uint64_t off = 0;
	int i;

	for (i = 0; i < nsge && i < M_MAX_SGE && off < L; i++) {
		uint64_t k = sge[i].len < L - off ? sge[i].len : L - off, j;
		struct span s;

		if (!k)
			continue;
		if (!span_of(sge[i].lkey, pd, sge[i].addr, k, &s) || s.len < k) {
			off += k;
			continue;
		}
		for (j = 0; j < k; j++) {
			uint64_t o = s.off + j;
			uint8_t st = s.g->pst[o / 4096];

			if ((st != MP_RW && st != MP_RO) || s.g->detached[o / 4096] ||
			    span_tainted(&s)) {
				s.g->known[o] = 0;
				continue;
			}
			if ((uint8_t)s.g->data[o] != d[off + j]) {
				char wd[1400];

				/* the WR's SGEs and remote range: what else reached them? */
				vf_finding("%s of %s #%llu (%llu bytes): byte %llu at %p (region %d "
					   "offset %llu) is 0x%02x, expected 0x%02x; the WR: %s", what,
					   m_op_name[w->req.op], (unsigned long long)w->id,
					   (unsigned long long)L, (unsigned long long)(off + j),
					   (void *)(s.g->data + o), (int)(s.g - W.reg),
					   (unsigned long long)o, (uint8_t)s.g->data[o], d[off + j],
					   wr_describe(w, wd, sizeof(wd)));
				return -1;
			}
			s.g->shadow[o] = d[off + j];
			s.g->known[o] = 1;
		}
		W.st.data_bytes += k;
		off += k;
	}
	W.st.data_checked++;
	return 0;
}

/* After a successful WR with a determined result: what it wrote. */
static int check_done(struct wrrec *w, const struct vq *rq, const struct vq *rs)
{
	struct m_sge one = { .addr = w->req.raddr, .lkey = w->req.rkey };
	uint64_t nv;

	switch (w->req.op) {
	case M_WRITE:
	case M_WRITE_IMM:
		if (!w->data)
			return 0;
		one.len = (uint32_t)w->out.len;
		check_scatter(&one, 1, rs->m.pd, w->data, w->out.len, "WRITE target", w);
		return 1;
	case M_CAS:
	case M_FADD:
		if (!w->atomic_known)
			return 0;
		nv = w->req.op == M_FADD ? w->atomic_old + w->swap :
		     (w->atomic_old == w->cmp ? w->swap : w->atomic_old);
		one.len = 8;
		check_scatter(&one, 1, rs->m.pd, (uint8_t *)&nv, 8, "atomic target", w);
		check_scatter(w->req.sge, w->req.nsge, rq->m.pd, (uint8_t *)&w->atomic_old, 8,
			      "atomic result", w);
		return 1;
	case M_ATOMIC_WRITE:
		one.len = 8;
		check_scatter(&one, 1, rs->m.pd, (uint8_t *)&w->swap, 8, "ATOMIC_WRITE target", w);
		return 1;
	case M_READ:
		if (!w->data)
			return 0;
		check_scatter(w->req.sge, w->req.nsge, rq->m.pd, w->data, w->out.len, "READ data", w);
		return 1;
	default:
		return 1;	/* nothing written at the responder by the send side */
	}
}

/* ------------------------------------------------------------ completion */

/* Statuses allowed beyond the model's, by what happened to the QPs */
static uint32_t extra_allowed(const struct wrrec *w, const struct vq *q)
{
	struct pair *P = wr_pair(w);
	uint32_t e = 0;

	if (w->hostile || (P && P->hostile))
		return ~0u;
	if (q->err_seen || q->chaos_err)
		e |= M_ST(MS_WR_FLUSH_ERR);
	/* a later WR that fails in the requester moves the QP to ERR at
	 * once, flushing the earlier ones still waiting for their answer */
	{
		int i, after = 0;

		for (i = 0; i < q->sqn; i++) {
			if (q->sq[i] == w)
				after = 1;
			else if (after && (q->sq[i]->allowed & (M_ST(MS_LOC_PROT_ERR) |
								M_ST(MS_LOC_QP_OP_ERR))))
				e |= M_ST(MS_WR_FLUSH_ERR);
		}
	}
	/* a responder that went to ERR without a NAK (chaos, a SEND with
	 * invalidate of a bad R_Key) drops requests: the requester retries,
	 * then gives up.  One that NAKs fails the requester's WR instead. */
	if (P && (P->resp_dead || P->b.chaos_err || P->b.dead))
		e |= M_ST(MS_RETRY_EXC_ERR);
	if ((w->rnr_possible || w->transient) && q->rnr_retry < 7)
		e |= M_ST(MS_RNR_RETRY_EXC_ERR);
	if (w->raced && P && q->rnr_retry < 7)
		e |= M_ST(MS_RNR_RETRY_EXC_ERR);	/* a fault made transient by chaos */
	return e;
}

static void complete_send(struct vq *q, struct wrrec *w, const struct ibv_wc *wc)
{
	struct pair *P = wr_pair(w);
	uint32_t allow = w->allowed | extra_allowed(w, q);
	char b1[160];

	W.st.status[wc->status & 31]++;
	if (!(allow & M_ST(wc->status))) {
		char h[512];
		unsigned int i, n = 0;

		for (i = q->nhist > 4 ? q->nhist - 4 : 0; i < q->nhist; i++)
			n += (unsigned int)snprintf(h + n, sizeof(h) - n, " [%s]", q->hist[i % 4]);
		char d[1400];

		vf_finding("#%llu on QP %u (%s%s%s, mtu %u, responder access 0x%x resources %d): "
			   "completion %s, the model allows %s; QP err_seen %d chaos_err %d, "
			   "responder dead %d may_err %d; before it:%s; the WR: %s",
			   (unsigned long long)w->id, q->qp->qp_num, q->m.ud ? "UD" : "RC",
			   w->raced ? ", raced by chaos" : "", w->signaled ? "" : ", unsignaled",
			   q->m.mtu, P ? P->b.m.access : 0, P ? P->b.m.max_dest_rd_atomic : 0,
			   status_name(wc->status), m_status_set(allow, b1, sizeof(b1)), q->err_seen,
			   q->chaos_err, P ? P->resp_dead : 0, P ? P->b.may_err : 0,
			   n ? h : " nothing", wr_describe(w, d, sizeof(d)));
	}
	snprintf(q->hist[q->nhist++ % 4], sizeof(q->hist[0]), "#%llu %s%s %s",
		 (unsigned long long)w->id, m_op_name[w->req.op], w->signaled ? "" : "(u)",
		 status_name(wc->status));
	if (wc->status != IBV_WC_SUCCESS) {
		W.st.cqe_err++;
		q->err_seen = 1;
		if (P && !P->b.dead)
			late_keep(P, w);
		if (P) {
			if (wc->status == IBV_WC_REM_ACCESS_ERR || wc->status == IBV_WC_REM_INV_REQ_ERR ||
			    wc->status == IBV_WC_REM_OP_ERR)
				P->b.may_err = 1;
			traffic_retire_pair(w->pair, "error completion");
		}
		wr_finish(w, 0);
		return;
	}
	if (wc->opcode != (enum ibv_wc_opcode)0xff && w->signaled && !w->raced) {
		static const int wcop[M_NOPS] = {
			[M_WRITE] = IBV_WC_RDMA_WRITE, [M_WRITE_IMM] = IBV_WC_RDMA_WRITE,
			[M_SEND] = IBV_WC_SEND, [M_SEND_IMM] = IBV_WC_SEND, [M_SEND_INV] = IBV_WC_SEND,
			[M_READ] = IBV_WC_RDMA_READ, [M_CAS] = IBV_WC_COMP_SWAP,
			[M_FADD] = IBV_WC_FETCH_ADD, [M_ATOMIC_WRITE] = IBV_WC_ATOMIC_WRITE,
			[M_FLUSH] = 8 /* IB_WC_FLUSH */,
		};

		if (w->req.op < M_BAD_OPCODE && wc->opcode != (enum ibv_wc_opcode)wcop[w->req.op])
			vf_finding("%s #%llu completed with opcode %d, expected %d",
				   m_op_name[w->req.op], (unsigned long long)w->id, wc->opcode,
				   wcop[w->req.op]);
	}
	if (w->raced || w->conflict) {
		wr_finish(w, 0);
		return;
	}
	wr_finish(w, check_done(w, q, P ? &P->b : q));
}

/* UD sends are kept after their completion until their message is seen */
#define UD_SENT 64
static struct wrrec *ud_sent[UD_SENT];
static unsigned int ud_sentn;

static void ud_remember(struct wrrec *w)
{
	struct wrrec **slot = &ud_sent[ud_sentn++ % UD_SENT];

	if (*slot)
		wr_put(*slot);
	w->refs++;
	*slot = w;
}

/* A send completion: the WRs before it on q completed silently (unsignaled
 * successes), or the queue order is broken. */
static void pop_send(struct vq *q, const struct ibv_wc *wc)
{
	int i, j;

	for (i = 0; i < q->sqn; i++)
		if (q->sq[i]->id == wc->wr_id)
			break;
	if (i == q->sqn) {
		vf_finding("send completion wr_id %llu (%s) on QP %u matches no outstanding WR",
			   (unsigned long long)wc->wr_id, status_name(wc->status), q->qp->qp_num);
		return;
	}
	for (j = 0; j < i; j++) {
		struct wrrec *u = q->sq[j];
		struct ibv_wc ok = { .wr_id = u->id, .status = IBV_WC_SUCCESS, .opcode = 0xff };

		if (u->signaled)
			vf_finding("%s #%llu on QP %u (%s) has no completion, yet #%llu posted after "
				   "it completed (%s)", m_op_name[u->req.op],
				   (unsigned long long)u->id, q->qp->qp_num,
				   "signaled",
				   (unsigned long long)wc->wr_id, status_name(wc->status));
		complete_send(q, u, &ok);
	}
	complete_send(q, q->sq[i], wc);
	for (j = 0; j <= i; j++) {
		if (q->m.ud && q->sq[j]->tag)
			ud_remember(q->sq[j]);
		wr_put(q->sq[j]);
	}
	memmove(q->sq, q->sq + i + 1, (q->sqn - i - 1) * sizeof(q->sq[0]));
	q->sqn -= i + 1;
}

static void cons_drop(struct vq *b, int k)
{
	struct wrrec *c = b->cons[k];

	memmove(b->cons + k, b->cons + k + 1, (b->consn - k - 1) * sizeof(b->cons[0]));
	b->consn--;
	/* the message is done with its receive WQE, whose record is freed
	 * right after (poll_vq(), vq_forget()); the send WR itself may wait
	 * for its ACK longer, and a re-evaluation (wr_touches(), wr_eval())
	 * must not follow the pointer then.  Only the link from the record
	 * back to the WR was cut here before: the WR kept a dangling one. */
	if (c->recv) {
		if (c->recv->cons == c)
			c->recv->cons = NULL;
		c->recv = NULL;
	}
	wr_put(c);
}

static void complete_recv_rc(struct vq *b, struct pair *P, struct rrec *x, const struct ibv_wc *wc)
{
	struct wrrec *c = x->cons;
	int k, checked = 0;
	char b1[160];

	W.st.recv_cqe++;
	if (P->hostile) {
		/* a hostile WQE's message may take any receive WQE */
		rrec_finish(x, 0);
		return;
	}
	if (wc->status == IBV_WC_WR_FLUSH_ERR) {
		if (!b->may_err && !b->chaos_err && !P->resp_dead)
			vf_finding("receive #%llu on QP %u flushed, but nothing moved the QP to ERR",
				   (unsigned long long)x->id, b->qp->qp_num);
		rrec_finish(x, 0);
		return;
	}
	/* the message it took: the WQE's own consumer (plain RQ), or the
	 * oldest one that may take a WQE (SRQ) */
	for (k = 0; k < b->consn; k++) {
		if (c ? b->cons[k] == c : 1)
			break;
	}
	if (!c && k < b->consn)
		c = b->cons[k];
	if (k == b->consn || !c) {
		vf_finding("receive #%llu on QP %u completed (%s, %u bytes) with no message sent to it",
			   (unsigned long long)x->id, b->qp->qp_num, status_name(wc->status),
			   wc->byte_len);
		rrec_finish(x, 0);
		return;
	}
	{
		uint32_t allow = c->recv_allowed | (c->raced ? ~0u : 0) |
				 (b->read_may_fail ? M_ST(MS_REM_ACCESS_ERR) : 0);

		if (!(allow & M_ST(wc->status)))
			vf_finding("receive #%llu on QP %u for %s #%llu (%llu bytes): %s, the model "
				   "allows %s", (unsigned long long)x->id, b->qp->qp_num,
				   m_op_name[c->req.op], (unsigned long long)c->id,
				   (unsigned long long)c->out.len, status_name(wc->status),
				   m_status_set(allow, b1, sizeof(b1)));
	}
	if (wc->status != IBV_WC_SUCCESS) {
		b->may_err = 1;
		P->resp_dead = 1;
		traffic_retire_pair((int)(P - W.pair), "receive error");
	} else {
		if (wc->byte_len != (uint32_t)c->out.len && !c->raced) {
			char q1[600];
			int j, m = 0;

			for (j = 0; j < b->consn && m < 500; j++)
				m += snprintf(q1 + m, sizeof(q1) - (size_t)m, " #%llu %s %llu%s%s",
					      (unsigned long long)b->cons[j]->id,
					      m_op_name[b->cons[j]->req.op],
					      (unsigned long long)b->cons[j]->out.len,
					      b->cons[j]->done ? " done" : "",
					      b->cons[j]->recv ? "" : " no-wqe");
			vf_finding("receive #%llu (WQE of %s) for %s #%llu: byte_len %u, expected %u; "
				   "QP %u consumers %llu recvs %llu done %llu; queue:%s",
				   (unsigned long long)x->id, x->cons ? "its own" : "the oldest",
				   m_op_name[c->req.op], (unsigned long long)c->id, wc->byte_len,
				   (uint32_t)c->out.len, b->qp->qp_num,
				   (unsigned long long)b->consumers, (unsigned long long)b->recvs,
				   (unsigned long long)b->recvs_done, q1);
		}
		if ((c->req.op == M_SEND_IMM || c->req.op == M_WRITE_IMM) &&
		    (!(wc->wc_flags & IBV_WC_WITH_IMM) || be32toh(wc->imm_data) != c->imm))
			vf_finding("receive #%llu for %s #%llu: immediate data missing or wrong",
				   (unsigned long long)x->id, m_op_name[c->req.op],
				   (unsigned long long)c->id);
		if (c->req.op == M_WRITE_IMM) {
			checked = 1;	/* the WQE's buffers are not written */
		} else if (c->data && !c->raced && !c->conflict && !x->conflict) {
			check_scatter(x->r.sge, x->r.nsge, b->m.pd, c->data, c->out.len, "SEND data",
				      c);
			/* bytes beyond the message are untouched */
			checked = c->out.len == 0;
			if (!checked) {
				/* only the scattered part is known now */
				pend_add(x->sp, x->nsp, -1);
				x->posted = 0;
				checked = 1;
			}
		}
	}
	cons_drop(b, k);
	rrec_finish(x, checked);
}

static void complete_recv_ud(struct vq *q, struct rrec *x, const struct ibv_wc *wc)
{
	uint8_t hdr[8];
	uint64_t tag, off = 0;
	unsigned int got = 0, i;

	W.st.recv_cqe++;
	rrec_finish(x, 0);
	if (wc->status == IBV_WC_WR_FLUSH_ERR) {
		if (!q->err_seen && !q->chaos_err && !q->may_err)
			vf_finding("UD receive #%llu on QP %u flushed, but nothing moved the QP to ERR",
				   (unsigned long long)x->id, q->qp->qp_num);
		return;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		/* a receive fails for its own SGEs, or (SRQ) a long message */
		uint32_t allow = M_ST(MS_LOC_PROT_ERR) | M_ST(MS_LOC_QP_OP_ERR) |
				 (x->srq ? M_ST(MS_REM_INV_REQ_ERR) : 0);

		if (!(allow & M_ST(wc->status)))
			vf_finding("UD receive #%llu on QP %u: %s", (unsigned long long)x->id,
				   q->qp->qp_num, status_name(wc->status));
		if (wc->status != IBV_WC_REM_INV_REQ_ERR)
			q->may_err = q->err_seen = 1;
		return;
	}
	W.st.ud_delivered++;
	if (wc->byte_len < VF_GRH) {
		vf_finding("UD receive #%llu: byte_len %u, shorter than the GRH",
			   (unsigned long long)x->id, wc->byte_len);
		return;
	}
	if (wc->byte_len < VF_GRH + 8)
		return;
	/* the tag: message bytes 0-7, after the GRH in the scatter */
	for (i = 0; i < (unsigned int)x->r.nsge && got < 8; i++) {
		uint64_t k = x->r.sge[i].len, j;
		struct span s;

		if (!span_of(x->r.sge[i].lkey, q->m.pd, x->r.sge[i].addr, k, &s) || s.len < k)
			return;
		for (j = 0; j < k && got < 8; j++)
			if (off + j >= VF_GRH) {
				if (s.g->pst[(s.off + j) / 4096] > MP_RO)
					return;
				hdr[got++] = (uint8_t)s.g->data[s.off + j];
			}
		off += k;
	}
	if (got < 8)
		return;
	memcpy(&tag, hdr, 8);
	if ((tag & 0xffff000000000000ull) != UD_TAG || (tag & ~UD_TAG) > W.next_id)
		return;		/* an untagged message (its source was not writable) */
	for (i = 0; i < UD_SENT; i++) {
		struct wrrec *w = ud_sent[i];

		if (!w || w->tag != tag)
			continue;
		if (wc->byte_len != w->out.len + VF_GRH)
			vf_finding("UD receive #%llu for send #%llu: byte_len %u, expected %llu",
				   (unsigned long long)x->id, (unsigned long long)w->id, wc->byte_len,
				   (unsigned long long)(w->out.len + VF_GRH));
		/* the QP it was posted on: the slot's QP may be another one
		 * now, made after a destroy while the message was on its way
		 * (make fuzz seed 0x21d2847b) */
		if (wc->src_qp != w->src_qpn) {
			vf_finding("UD receive #%llu for send #%llu: source QP %u, expected %u",
				   (unsigned long long)x->id, (unsigned long long)w->id, wc->src_qp,
				   w->src_qpn);
		} else if (W.o.verbose > 1) {
			int u = w->pair - VF_NPAIR;
			long now = W.ud_live[u] && W.ud[u].qp ? (long)W.ud[u].qp->qp_num : -1;

			if (now != (long)w->src_qpn)
				vf_log("UD receive #%llu for send #%llu from QP %u, gone since "
				       "(slot %d: QP %ld)", (unsigned long long)x->id,
				       (unsigned long long)w->id, w->src_qpn, u, now);
		}
		w->tag = 0;	/* delivered once */
		return;
	}
	for (i = 0; i < (unsigned int)VF_NUD; i++) {
		int j;

		for (j = 0; j < W.ud[i].sqn; j++)
			if (W.ud[i].sq[j]->tag == tag) {
				W.ud[i].sq[j]->tag = 0;	/* arrived before its completion */
				return;
			}
	}
	vf_finding("UD receive #%llu on QP %u: %u bytes tagged 0x%llx: no such send, or it was "
		   "delivered twice", (unsigned long long)x->id, q->qp->qp_num, wc->byte_len,
		   (unsigned long long)tag);
}

static struct rrec *take_rrec(struct vq *q, uint64_t id, int flush)
{
	struct rrec *x;
	int j;

	for (j = 0; j < q->rqn; j++)
		if (q->rq[j]->id == id)
			break;
	if (j < q->rqn) {
		x = q->rq[j];
		if (j && !flush)
			vf_finding("receive #%llu completed before %d older ones on QP %u",
				   (unsigned long long)id, j, q->qp->qp_num);
		memmove(q->rq + j, q->rq + j + 1, (q->rqn - j - 1) * sizeof(q->rq[0]));
		q->rqn--;
		q->recvs_done++;
		return x;
	}
	for (j = 0; j < W.srqn; j++)
		if (W.srqq[j]->id == id) {
			x = W.srqq[j];
			memmove(W.srqq + j, W.srqq + j + 1, (W.srqn - j - 1) * sizeof(W.srqq[0]));
			W.srqn--;
			return x;
		}
	return NULL;
}

static void poll_vq(struct vq *q, struct pair *P)
{
	struct ibv_wc wc[16];
	int n, i;

	if (!q->scq)
		return;
	n = ibv_poll_cq(q->scq, 16, wc);
	if (n < 0) {
		vf_finding("ibv_poll_cq failed: %d", n);
		return;
	}
	for (i = 0; i < n; i++) {
		struct rrec *x;

		W.st.cqe++;
		/* wr_ids are unique: a receive's or a send's (opcode is not
		 * defined in an error completion) */
		x = take_rrec(q, wc[i].wr_id, wc[i].status == IBV_WC_WR_FLUSH_ERR);
		if (!x) {
			pop_send(q, &wc[i]);
			continue;
		}
		if (q->m.ud)
			complete_recv_ud(q, x, &wc[i]);
		else
			complete_recv_rc(q, P, x, &wc[i]);
		if (x->cons && x->cons->recv == x)
			x->cons->recv = NULL;
		free(x);
	}
}

void traffic_poll(void)
{
	int p, u;

	for (p = 0; p < VF_NPAIR; p++) {
		if (!W.pair[p].live)
			continue;
		poll_vq(&W.pair[p].a, &W.pair[p]);
		poll_vq(&W.pair[p].b, &W.pair[p]);
	}
	for (u = 0; u < VF_NUD; u++)
		if (W.ud_live[u])
			poll_vq(&W.ud[u], NULL);
}

/* WRs in flight on q that will produce a completion: all of them once an
 * error is seen (flushes complete every WR), else up to the last
 * signaled one */
static int vq_waiting(const struct vq *q)
{
	int i;

	if (q->dead)
		return 0;
	if (q->err_seen || q->chaos_err)
		return q->sqn;
	/* what traffic_hang_check() excuses is not waited for either */
	for (i = q->sqn; i > 0; i--)
		if (!q->sq[i - 1]->hostile &&
		    (q->sq[i - 1]->signaled || !(q->sq[i - 1]->allowed & M_ST(MS_SUCCESS))))
			return i;
	return 0;
}

int traffic_outstanding(void)
{
	int n = 0, p;

	for (p = 0; p < VF_NPAIR; p++)
		if (W.pair[p].live && !W.pair[p].hostile)
			n += vq_waiting(&W.pair[p].a);
	for (p = 0; p < VF_NUD; p++)
		if (W.ud_live[p])
			n += vq_waiting(&W.ud[p]);
	return n;
}

/* A signaled zero-length RDMA WRITE (UD: SEND) behind trailing unsignaled
 * WRs: its completion says they are done. */
static void sentinel(struct vq *q, int pair)
{
	struct wrrec *w;

	if (q->dead || !q->sqn || q->sqn >= VF_SQ - 1)
		return;
	/*
	 * A QP in ERR flushes what it still has, each WR with a completion,
	 * signaled or not; but an unsignaled WR that succeeded before the
	 * error left none, and nothing after it would ever say so: the
	 * sentinel, flushed, does (pop_send()).  Without it the drain waited
	 * the whole hang bound for such a WR, half of the 60 s runs.
	 */
	if ((q->err_seen || q->chaos_err) ? q->sq[q->sqn - 1]->signaled :
					    vq_waiting(q) == q->sqn)
		return;
	w = wr_new();
	w->refs = 1;
	w->pair = pair;
	w->signaled = 1;
	w->req.op = q->m.ud ? M_SEND : M_WRITE;
	w->req.path = M_PATH_VERBS;
	if (q->m.ud) {
		w->req.raddr = q->qp->qp_num;
		w->req.rkey = UD_QKEY;
	}
	wr_eval(w, 1);
	w->post_tick = vf_now();
	if (post_verbs(q, w, 0)) {
		vf_finding("posting a zero-length %s on QP %u failed", m_op_name[w->req.op],
			   q->qp->qp_num);
		wr_put(w);
		return;
	}
	W.st.posted++;
	q->sq[q->sqn++] = w;
}

void traffic_retire_pair(int p, const char *why)
{
	struct pair *P = &W.pair[p];

	if (P->retiring)
		return;
	P->retiring = 1;
	P->retire_tick = vf_now();
	if (W.o.verbose)
		vf_log("pair %d (QPs %u/%u) retires: %s", p, P->a.qp ? P->a.qp->qp_num : 0,
		       P->b.qp ? P->b.qp->qp_num : 0, why);
}

/* Forget what a queue has outstanding (it is being destroyed). */
static void vq_forget(struct vq *q, int pair)
{
	int i;

	for (i = 0; i < q->sqn; i++) {
		wr_finish(q->sq[i], 0);
		wr_put(q->sq[i]);
	}
	q->sqn = 0;
	while (q->consn)
		cons_drop(q, 0);
	for (i = 0; i < q->rqn; i++) {
		rrec_finish(q->rq[i], 0);
		if (q->rq[i]->cons && q->rq[i]->cons->recv == q->rq[i])
			q->rq[i]->cons->recv = NULL;
		free(q->rq[i]);
	}
	q->rqn = 0;
	for (i = 0; i < 16; i++)
		if (W.delayed[i].used && W.delayed[i].pair == pair && pair >= 0) {
			free(W.delayed[i].r);
			W.delayed[i].used = 0;
		}
}

void traffic_forget_pair(int p)
{
	vq_forget(&W.pair[p].a, -2);
	vq_forget(&W.pair[p].b, p);
}

void traffic_forget_ud(int u)
{
	struct vq *q = &W.ud[u];
	int i;

	/* a message rxe sent before the QP was destroyed still reaches its
	 * receiver, after: keep such sends where complete_recv_ud() looks
	 * (it checks the source QP against the QP the send was posted on) */
	for (i = 0; i < q->sqn; i++)
		if (q->sq[i]->tag)
			ud_remember(q->sq[i]);
	vq_forget(q, -2);
}

void traffic_hang_check(void)
{
	double now = vf_now();
	int p, i;

	for (p = 0; p < VF_NPAIR + VF_NUD; p++) {
		struct vq *q = p < VF_NPAIR ? &W.pair[p].a : &W.ud[p - VF_NPAIR];

		if ((p < VF_NPAIR ? !W.pair[p].live : !W.ud_live[p - VF_NPAIR]) || q->dead)
			continue;
		for (i = 0; i < q->sqn; i++) {
			struct wrrec *w = q->sq[i];
			char b[160];

			/* an unsignaled WR that may succeed completes silently;
			 * a hostile WQE may leave its QP stuck: not a finding */
			if (now - w->post_tick <= W.o.hang || w->hostile ||
			    (p < VF_NPAIR && W.pair[p].hostile) ||
			    (!w->signaled && (w->allowed & M_ST(MS_SUCCESS))))
				continue;
			vf_finding("hang: %s #%llu on QP %u (%s, %llu bytes, %d SGEs, path %d%s) has no "
				   "completion after %.0f s; the model allows %s; QP retry %d rnr_retry "
				   "%d; %s", m_op_name[w->req.op], (unsigned long long)w->id,
				   q->qp->qp_num, q->m.ud ? "UD" : "RC",
				   (unsigned long long)w->out.len, w->req.nsge, w->req.path,
				   w->signaled ? "" : ", unsignaled", now - w->post_tick,
				   m_status_set(w->allowed, b, sizeof(b)), q->retry_cnt, q->rnr_retry,
				   w->raced ? "raced by chaos" : "not raced");
			return;
		}
	}
}

/* Pairs: recreate the retired once drained; MRs: register again. */
void traffic_maintain(struct rng *r)
{
	int p, u;

	for (p = 0; p < VF_NPAIR; p++) {
		struct pair *P = &W.pair[p];

		if (P->live && !P->retiring && rng_pct(r, 1) && rng_pct(r, 10))
			traffic_retire_pair(p, "recycled");
		if (P->live && P->retiring)
			sentinel(&P->a, p);
		if (P->live && P->retiring && (P->a.sqn == 0 || P->a.dead ||
					       (P->hostile && vf_now() - P->retire_tick > 3) ||
					       (!vq_waiting(&P->a) && P->a.sq[P->a.sqn - 1]->post_tick <
						vf_now() - 5))) {
			traffic_forget_pair(p);
			pair_destroy(p);
		}
		if (!P->live && !W.stop && vf_on(C_RC))
			pair_make(p, r);
	}
	for (u = 0; u < VF_NUD; u++) {
		struct vq *q = &W.ud[u];

		if (!vf_on(C_UD))
			break;
		if (W.ud_live[u] && (q->err_seen || q->chaos_err || q->dead) &&
		    (!vq_waiting(q) || q->dead)) {
			traffic_forget_ud(u);
			ud_destroy(u);
		}
		if (!W.ud_live[u] && !W.stop)
			ud_make(u, r);
	}
	for (p = 0; p < VF_NREG; p++)
		if (W.reg[p].used && !W.mr[p].live && rng_pct(r, 30))
			mr_register(p, r);
}

void traffic_step(struct rng *r)
{
	int k, i;

	traffic_maintain(r);
	refill(r);
	k = (int)rng_range(r, 1, 4);
	for (i = 0; i < k && !W.finding && (!W.o.ops || W.ops < W.o.ops); i++) {
		W.ops++;
		if (vf_on(C_HOSTILE) && vf_on(C_RING) && rng_pct(r, 2))
			gen_hostile(r);
		else
			gen_one(r);
	}
	traffic_poll();
}

/* Wait until every send WR has completed (or the hang bound). */
void traffic_drain(double secs)
{
	double t0 = vf_now();

	int p;

	for (p = 0; p < VF_NPAIR; p++)
		if (W.pair[p].live)
			sentinel(&W.pair[p].a, p);
	for (p = 0; p < VF_NUD; p++)
		if (W.ud_live[p])
			sentinel(&W.ud[p], VF_NPAIR + p);
	while (traffic_outstanding() && vf_now() - t0 < secs && !W.finding) {
		int i;

		for (i = 0; i < 16; i++)
			if (W.delayed[i].used)
				post_delayed(&W.delayed[i]);
		traffic_poll();
		pthread_mutex_unlock(&W.lock);
		usleep(1000);
		pthread_mutex_lock(&W.lock);
	}
	if (traffic_outstanding() && !W.finding)
		traffic_hang_check();
	if (traffic_outstanding() && !W.finding) {
		/* younger than the hang bound, so no finding: say what */
		for (p = 0; p < VF_NPAIR + VF_NUD; p++) {
			struct vq *q = p < VF_NPAIR ? &W.pair[p].a : &W.ud[p - VF_NPAIR];
			int i, n;

			if (p < VF_NPAIR ? !W.pair[p].live || W.pair[p].hostile :
					   !W.ud_live[p - VF_NPAIR])
				continue;
			n = vq_waiting(q);
			for (i = 0; i < n; i++) {
				char b[1400];

				vf_log("drain: still waiting after %.0f s for #%llu on QP %u (posted "
				       "%.0f s ago, %s%s%s, QP retry %d rnr_retry %d): %s", secs,
				       (unsigned long long)q->sq[i]->id, q->qp->qp_num,
				       vf_now() - q->sq[i]->post_tick,
				       q->sq[i]->signaled ? "signaled" : "unsignaled",
				       q->sq[i]->raced ? ", raced" : "",
				       q->err_seen || q->chaos_err ? ", QP in ERR" : "",
				       q->retry_cnt, q->rnr_retry,
				       wr_describe(q->sq[i], b, sizeof(b)));
			}
		}
	}
}
