// SPDX-License-Identifier: GPL-2.0
/*
 * Batches of crafted RoCEv2 packets.  Each batch gets its own random stream
 * (seed, batch number) and its own fresh RC QPs, so one batch replays alone
 * (--batch N).  Four kinds:
 *   resp  requests (SEND, WRITE, READ, atomics, ATOMIC WRITE, FLUSH, with
 *         immediate or invalidate) aimed at the responder of a connected
 *         pair, at and around its expected PSN, rkeys and VAs of every MR;
 *   comp  responses (READ responses, ACK/NAK/RNR NAK, atomic ACKs) aimed at a
 *         requester whose READ/atomic/WRITE/SEND went to a QP that drops
 *         them;
 *   ud    UD SENDs with good and bad Q_Keys, sizes around the receive
 *         buffers and the MTU, to UD QPs and QP1;
 *   junk  random opcodes and fields, flipped bytes, truncations, any QPN.
 * A packet is first decoded as rxe would read it; the model says whether
 * rxe passes it to a QP; that QP is "exposed" (it may do what the protocol
 * says), and a WRITE or atomic that lies wholly in an MR window that allows
 * it permits those bytes to change.  Oracles after each batch: memory
 * (canaries, read-only/deregistered MRs, bytes outside every aimed range),
 * UD deliveries (exactly the packets the model accepts, intact), QPs no
 * packet was accepted for are unchanged and still carry traffic, and no
 * kernel report.
 */
#include "fuzz.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "icrc.h"

const char *const fz_kind_name[FZ_NKINDS] = { "resp", "comp", "ud", "junk" };

#define MAXPKT 66000
#define MAX_EXP 64
#define UD_MARK 0x55444d41524b2121ull	/* "UDMARK!!" */

struct ud_exp {
	int ud;
	size_t len, data;	/* payload length, offset in expdata */
	uint32_t sqpn, immdt;
	int imm, certain;
};

struct batch {
	struct fz_world *w;
	struct rng *r;
	struct fz_stats *st;
	unsigned int access;	/* the current pair's remote access */
	unsigned int mtu;
	uint8_t buf[MAXPKT];
	uint8_t data[MAXPKT];
	struct ud_exp exp[MAX_EXP];
	int nexp, exp_overflow;
	uint8_t expdata[MAX_EXP * 1024];
	size_t expused;
	int ud_loose[2];	/* an uncertain packet went there */
	int ud_touched[2];
};

static struct batch B;

/* Say in w->finding what an oracle saw; -1 for the caller to return. */
__attribute__((format(printf, 1, 2)))
static int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(B.w->finding, sizeof(B.w->finding), fmt, ap);
	va_end(ap);
	return -1;
}

static uint64_t below(uint64_t n)
{
	return rng_below(B.r, n);
}

static int pct(unsigned int p)
{
	return rng_pct(B.r, p);
}

static uint64_t u64(void)
{
	return rng_u64(B.r);
}

/* ---- sending with the model ---- */

static int opc_is(uint8_t op, int a, int b, int c)
{
	return op == a || op == b || op == c;
}

static void expect_ud(struct fz_qpref *q, const struct roce_pkt *f, int certain)
{
	struct fz_world *w = B.w;
	struct ud_exp *e;
	int ud = q->qpn == w->ud[0].qp->qp_num ? 0 : 1;
	size_t keep = f->payload_len;

	B.ud_touched[ud] = 1;
	if (!certain)
		B.ud_loose[ud] = 1;
	if (GRH_BYTES + f->payload_len > w->ud[ud].sge_len)
		return;		/* does not fit: rxe drops it */
	if (B.nexp == MAX_EXP || B.expused + keep > sizeof(B.expdata)) {
		B.exp_overflow = 1;
		return;
	}
	e = &B.exp[B.nexp++];
	e->ud = ud;
	e->len = f->payload_len;
	e->data = B.expused;
	memcpy(B.expdata + B.expused, f->payload, keep);
	B.expused += keep;
	e->sqpn = f->deth_sqpn;
	e->imm = f->opcode == (OP_UD | OP_SEND_ONLY_IMM);
	e->immdt = f->immdt;
	e->certain = certain;
}

/* Byte-level damage after building: flip bytes (ICRC fixed or not), cut. */
static size_t damage(size_t len, unsigned int flip_pct, unsigned int cut_pct)
{
	if (pct(flip_pct)) {
		int n = 1 + (int)below(3), i;

		for (i = 0; i < n && len > IP4_BYTES + UDP_BYTES + 1; i++) {
			size_t at = IP4_BYTES + UDP_BYTES + below(len - IP4_BYTES - UDP_BYTES);

			B.buf[at] ^= (uint8_t)(1u << below(8));
		}
		if (pct(85))
			roce_set_icrc4(B.buf, len);
	}
	if (pct(cut_pct)) {
		len = IP4_BYTES + UDP_BYTES + below(len - IP4_BYTES - UDP_BYTES);
		B.buf[2] = (uint8_t)(len >> 8);
		B.buf[3] = (uint8_t)len;
		if (pct(50) && len >= IP4_BYTES + UDP_BYTES) {
			size_t ulen = len - IP4_BYTES;

			B.buf[IP4_BYTES + 4] = (uint8_t)(ulen >> 8);
			B.buf[IP4_BYTES + 5] = (uint8_t)ulen;
			if (pct(80))
				roce_set_icrc4(B.buf, len);
		}
	}
	return len;
}

/* Build p, damage it with the given odds, model it, send it. */
static int send_pkt(struct roce_pkt *p, unsigned int flip_pct, unsigned int cut_pct)
{
	struct fz_world *w = B.w;
	struct fz_qpref *q;
	struct roce_pkt f;
	size_t len;
	int certain;

	p->ip_id = ++w->ip_id ? w->ip_id : ++w->ip_id;
	len = roce_build(p, B.buf, sizeof(B.buf));
	if (!len)
		return 0;
	len = damage(len, flip_pct, cut_pct);
	q = fz_model_accepts(w, B.buf, len, &f, &certain);
	if (q && q->qpn == w->sentinel.qp->qp_num)
		return 0;	/* the sentinel's receives are not the fuzzer's to take */
	B.st->pkts++;
	if (p->icrc_xor)
		B.st->bad_icrc++;
	if (q) {
		B.st->accepted++;
		q->exposed = 1;
		if (q->type == IBV_QPT_UD) {
			expect_ud(q, &f, certain);
		} else {
			uint8_t op = f.opcode;

			if ((opc_is(op, OP_WRITE_FIRST, OP_WRITE_ONLY, OP_WRITE_ONLY_IMM) ||
			     op == OP_ATOMIC_WRITE) && (B.access & IBV_ACCESS_REMOTE_WRITE))
				fz_permit_remote(w, f.reth_rkey, f.reth_va, f.reth_len,
						 IBV_ACCESS_REMOTE_WRITE);
			if ((op == OP_CMP_SWAP || op == OP_FETCH_ADD) &&
			    (B.access & IBV_ACCESS_REMOTE_ATOMIC))
				fz_permit_remote(w, f.atm_rkey, f.atm_va, 8,
						 IBV_ACCESS_REMOTE_ATOMIC);
		}
	} else if (f.dqpn == 1) {
		B.st->gsi++;
	}
	if (w->verbose)
		printf("  %-18s qpn %#08x psn %#08x %5zu bytes%s%s -> %s%s\n",
		       roce_ops[f.opcode].name ? roce_ops[f.opcode].name : "(reserved)", f.dqpn,
		       f.psn, len, f.truncate ? " truncated" : "", p->icrc_xor ? " bad-ICRC" : "",
		       q ? "accepted by QP " : "dropped", q ? (q->type == IBV_QPT_UD ? "(UD)" : "(RC)") : "");
	if (fz_send(w, B.buf, len))
		return -1;
	return 0;
}

/* ---- field choices ---- */

static uint32_t psn_near(uint32_t e)
{
	static const int32_t d[] = { -1, 1, 2, -2, 0x7fffff, -0x800000, 0x800000, -0x7fffff,
				     100, -100 };

	if (pct(75))
		return e;
	if (pct(70))
		return (e + (uint32_t)d[below(10)]) & PSN_MASK;
	return (uint32_t)u64() & PSN_MASK;
}

static const int remote_mrs[] = {
	MR_PINNED, MR_ODP, MR_ODP_SUBPAGE, MR_PINNED_SUBPAGE, MR_ODP_IOVA_HIGH,
	MR_PINNED_IOVA_HIGH, MR_ODP_IOVA_ZERO, MR_PINNED_RO, MR_ODP_RO, MR_ODP_ROPAGE,
	MR_STALE_PINNED, MR_STALE_ODP, MR_LOCAL, MR_LOCAL_ODP,
};

static uint32_t pick_rkey(int mr)
{
	uint32_t k = B.w->mr[mr].rkey;

	if (pct(88))
		return k;
	switch (below(5)) {
	case 0:
		return k ^ (1u << below(8));		/* right index, wrong key */
	case 1:
		return (k & 0xff) | (uint32_t)(below(64) << 8);	/* another index */
	case 2:
		return 0;
	case 3:
		return B.w->mr[MR_RECV].lkey;
	default:
		return (uint32_t)u64();
	}
}

/* A VA for an access of len bytes to MR mr: in, at and across its bounds,
 * and around the wraps of u64. */
static uint64_t pick_va(int mr, uint64_t len)
{
	const struct fz_mr *m = &B.w->mr[mr];
	uint64_t iova = m->iova, n = m->len;

	if (pct(55))
		return iova + (n > len ? below(n - len + 1) : 0);
	switch (below(12)) {
	case 0:
		return iova;
	case 1:
		return iova + n - len;
	case 2:
		return iova + n;
	case 3:
		return iova + n - len + 1 + below(8);
	case 4:
		return iova - 1 - below(64);
	case 5:
		return iova - len + below(len + 1);
	case 6:
		return 0ull - below(64) - 1;
	case 7:
		return 0ull - len + below(16);
	case 8:
		return 0;
	case 9:
		return iova + (0ull - iova) / 2;
	case 10:
		return (iova + below(n)) & ~7ull;
	default:
		return u64();
	}
}

static uint32_t pick_len(uint32_t want)
{
	static const uint32_t odd[] = { 0, 1, 7, 8, 9, 4095, 4096, 4097, 65536, 0x7fffffff,
					0x80000000u, 0x80000001u, 0xffffffffu, 0xfffffff8u };

	if (pct(85))
		return want;
	if (pct(70))
		return odd[below(sizeof(odd) / sizeof(odd[0]))];
	return (uint32_t)u64();
}

static void base_pkt(struct roce_pkt *p, uint8_t op, uint32_t dqpn, uint32_t psn)
{
	roce_pkt_init(p);
	p->opcode = op;
	p->dqpn = dqpn;
	p->psn = psn;
	p->sport = (uint16_t)(49152 + below(16384));
	p->ackreq = pct(50);
	if (pct(10))
		p->tos = (uint8_t)u64();
	if (pct(10))
		p->ttl = (uint8_t)u64();
	if (pct(5))
		p->resv8a = (uint8_t)u64();
}

/* Occasional header damage that rxe must drop (or, for some, ignore). */
static void spoil(struct roce_pkt *p, int heavy)
{
	unsigned int k = heavy ? 30 : 8;

	if (!pct(k))
		return;
	switch (below(12)) {
	case 0:
	case 1:
	case 2:
		p->icrc_xor = 1u << below(32);
		break;
	case 3:
		p->pkey = pct(50) ? 0x7fff : (uint16_t)u64();
		break;
	case 4:
		p->tver = (uint8_t)(1 + below(15));
		break;
	case 5:
		p->udp_len = (int)below(p->payload_len + 80);
		break;
	case 6:
		p->saddr = 0x7f000002 + (uint32_t)below(4);
		break;
	case 7:
		p->daddr = 0x7f000002;
		break;
	case 8:
		p->truncate = IP4_BYTES + UDP_BYTES + below(BTH_BYTES + 40);
		break;
	case 9:
		p->ext_override = 1;
		p->ext = (unsigned int)below(1u << 9);
		break;
	case 10:
		p->pad = (uint8_t)below(4);
		break;
	default:
		p->udp_csum = (uint16_t)(1 + below(0xfffe));
		break;
	}
}

static size_t pay(size_t n)
{
	size_t i;

	if (n > sizeof(B.data))
		n = sizeof(B.data);
	for (i = 0; i < n; i += 8) {
		uint64_t v = u64();

		memcpy(B.data + i, &v, n - i < 8 ? n - i : 8);
	}
	return n;
}

/* ---- resp: requests at a responder ---- */

static uint32_t rq_psn(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_RQ_PSN, &ia))
		return 0;
	return a.rq_psn;
}

/* A multi-packet SEND or WRITE of total bytes, from psn, at dqpn. */
static int message(uint32_t dqpn, uint32_t psn, int write, size_t total)
{
	unsigned int mtu = B.mtu;
	size_t npk = total ? (total + mtu - 1) / mtu : 1, i, sent = 0;
	int mr = remote_mrs[below(sizeof(remote_mrs) / sizeof(remote_mrs[0]))];
	uint32_t rkey = pick_rkey(mr), reth_len = pick_len((uint32_t)total);
	uint64_t va = pick_va(mr, total ? total : 1);
	int imm = pct(25), inv = !write && pct(15);
	struct roce_pkt p;

	if (npk > 5)
		npk = 5;	/* a long message: its start is what matters */
	for (i = 0; i < npk; i++) {
		int first = i == 0, last = i + 1 == npk;
		size_t n = last ? total - sent : mtu;
		uint8_t op;

		if (pct(5))
			n = below(mtu + 64);		/* MTU violations */
		if (write)
			op = first && last ? (imm ? OP_WRITE_ONLY_IMM : OP_WRITE_ONLY) :
			     first ? OP_WRITE_FIRST :
			     last ? (imm ? OP_WRITE_LAST_IMM : OP_WRITE_LAST) : OP_WRITE_MIDDLE;
		else
			op = first && last ? (inv ? OP_SEND_ONLY_INV :
					      imm ? OP_SEND_ONLY_IMM : OP_SEND_ONLY) :
			     first ? OP_SEND_FIRST :
			     last ? (inv ? OP_SEND_LAST_INV :
				     imm ? OP_SEND_LAST_IMM : OP_SEND_LAST) : OP_SEND_MIDDLE;
		if (pct(4))
			op = (uint8_t)below(0x20);	/* out of sequence */
		if (pct(4))
			continue;			/* lost */
		base_pkt(&p, op, dqpn, (psn + (uint32_t)i) & PSN_MASK);
		p.reth_va = va;
		p.reth_rkey = rkey;
		p.reth_len = reth_len;
		p.immdt = (uint32_t)u64();
		p.ieth_rkey = pct(50) ? B.w->mr[remote_mrs[below(14)]].rkey : (uint32_t)u64();
		p.payload_len = pay(n);
		p.payload = B.data;
		p.pad = (uint8_t)((-(unsigned int)n) & 3);
		spoil(&p, 0);
		if (send_pkt(&p, 2, 2))
			return -1;
		if (pct(3) && send_pkt(&p, 0, 0))	/* duplicated */
			return -1;
		sent += n;
	}
	return 0;
}

static int one_request(uint32_t dqpn, uint32_t psn)
{
	int mr = remote_mrs[below(sizeof(remote_mrs) / sizeof(remote_mrs[0]))];
	struct roce_pkt p;
	unsigned int k = (unsigned int)below(100);
	uint64_t len;

	if (k < 30)
		return message(dqpn, psn, 1, pct(70) ? below(B.mtu + 1) : below(4 * B.mtu + 1));
	if (k < 50)
		return message(dqpn, psn, 0, pct(70) ? below(B.mtu + 1) : below(3 * B.mtu + 1));
	if (k < 65) {		/* RDMA READ */
		len = pct(60) ? below(B.mtu * 3 + 1) : below(B.w->mr[mr].len + 2);
		base_pkt(&p, OP_READ_REQ, dqpn, psn);
		p.reth_len = pick_len((uint32_t)len);
		p.reth_va = pick_va(mr, len ? len : 1);
		p.reth_rkey = pick_rkey(mr);
	} else if (k < 80) {	/* CMP_SWAP, FETCH_ADD */
		base_pkt(&p, pct(50) ? OP_CMP_SWAP : OP_FETCH_ADD, dqpn, psn);
		p.atm_va = pick_va(mr, 8);
		if (pct(70))
			p.atm_va &= ~7ull;
		p.atm_rkey = pick_rkey(mr);
		p.atm_swap = u64();
		p.atm_comp = pct(50) ? 0 : u64();
	} else if (k < 88) {	/* ATOMIC WRITE: RETH + 8 bytes */
		base_pkt(&p, OP_ATOMIC_WRITE, dqpn, psn);
		p.reth_len = pick_len(8);
		p.reth_va = pick_va(mr, 8);
		if (pct(70))
			p.reth_va &= ~7ull;
		p.reth_rkey = pick_rkey(mr);
		p.payload_len = pay(pct(85) ? 8 : below(24));
		p.payload = B.data;
	} else if (k < 93) {	/* FLUSH */
		base_pkt(&p, OP_FLUSH, dqpn, psn);
		p.feth = (uint32_t)below(8);
		p.reth_len = pick_len((uint32_t)below(8192));
		p.reth_va = pick_va(mr, p.reth_len ? p.reth_len : 1);
		p.reth_rkey = pick_rkey(mr);
	} else {		/* any RC opcode, random fields */
		base_pkt(&p, (uint8_t)below(0x20), dqpn, psn);
		p.reth_va = pick_va(mr, 64);
		p.reth_rkey = pick_rkey(mr);
		p.reth_len = pick_len((uint32_t)below(B.mtu * 2));
		p.atm_va = p.reth_va;
		p.atm_rkey = p.reth_rkey;
		p.aeth_syn = (uint8_t)u64();
		p.payload_len = pay(below(B.mtu + 16));
		p.payload = B.data;
		p.pad = (uint8_t)below(4);
	}
	spoil(&p, 0);
	return send_pkt(&p, 2, 2);
}

static int qp_unchanged(struct ibv_qp *qp, const struct ibv_qp_attr *was, const char *who)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_RQ_PSN | IBV_QP_SQ_PSN, &ia))
		return -1;
	if (a.qp_state != was->qp_state || a.rq_psn != was->rq_psn || a.sq_psn != was->sq_psn) {
		return fail("%s QP %u changed (state %d -> %d, rq_psn %#x -> %#x, sq_psn %#x -> %#x) though the model says rxe dropped every packet aimed at it",
			    who, qp->qp_num, was->qp_state, a.qp_state, was->rq_psn, a.rq_psn,
			    was->sq_psn, a.sq_psn);
	}
	return 0;
}

static void snap(struct ibv_qp *qp, struct ibv_qp_attr *a)
{
	struct ibv_qp_init_attr ia;

	memset(a, 0, sizeof(*a));
	ibv_query_qp(qp, a, IBV_QP_STATE | IBV_QP_RQ_PSN | IBV_QP_SQ_PSN, &ia);
}

static int junk_pkt(struct fz_pair *pr);

/* After a batch at a pair: exposed pairs are retired, the others must be
 * unchanged and still work. */
static int pair_after(struct fz_pair *pr, const struct ibv_qp_attr *sa, const struct ibv_qp_attr *sb)
{
	struct fz_qpref *qa = fz_qp_find(B.w, pr->p.a.qp->qp_num);
	struct fz_qpref *qb = fz_qp_find(B.w, pr->p.b.qp->qp_num);

	if ((qa && qa->exposed) || (qb && qb->exposed)) {
		B.st->exposed++;
		return 0;
	}
	if (qp_unchanged(pr->p.a.qp, sa, "requester") || qp_unchanged(pr->p.b.qp, sb, "responder"))
		return -1;
	B.st->legit++;
	return fz_pair_traffic(B.w, pr, B.r);
}

static int batch_resp_or_junk(int junk)
{
	struct fz_world *w = B.w;
	struct fz_pair pr;
	struct ibv_qp_attr sa, sb;
	uint32_t e, bq;
	int n, i, err = 0, slot;

	if (fz_pair_new(w, &pr, B.r, ROLE_RESP_A, ROLE_RESP_B))
		return fail("%s", w->err);
	B.access = pr.at.access;
	B.mtu = pr.mtu;
	bq = pr.p.b.qp->qp_num;
	for (i = 0; i < 2; i++) {
		/* at least the 32 bytes of the check's SEND */
		static const size_t sz[] = { 32, 64, 256, 1024, 4096, 8192 };

		slot = SLOT_RC + (int)below(SLOT_END - SLOT_RC);
		if (fz_post_recv_slot(w, pr.p.b.qp, slot, sz[below(6)]))
			err = -1;
	}
	snap(pr.p.a.qp, &sa);
	snap(pr.p.b.qp, &sb);
	e = rq_psn(pr.p.b.qp);
	n = junk ? 1 + (int)below(12) : 1 + (int)below(4);
	for (i = 0; i < n && !err; i++) {
		if (junk) {
			err = junk_pkt(&pr);
		} else {
			uint32_t dq = pct(95) ? bq : pr.p.a.qp->qp_num;

			err = one_request(dq, psn_near(e));
			e = (e + 1) & PSN_MASK;
			if (pct(50))
				e = rq_psn(pr.p.b.qp);
		}
	}
	if (!err && fz_sentinel(w))
		err = -1;
	if (!err)
		err = pair_after(&pr, &sa, &sb);
	fz_pair_free(w, &pr);
	return err;
}

/* ---- comp: responses at a requester ---- */

struct wr_plan {
	enum ibv_wr_opcode op;
	uint32_t first, last, len;
};

static int batch_comp(void)
{
	struct fz_world *w = B.w;
	struct fz_pair pr;
	struct wr_plan plan[3];
	struct ibv_qp *c;
	struct ibv_wc wc[8];
	uint32_t psn, cq;
	int nwr = 1 + (int)below(3), i, n, err = 0, k;
	int lmr = pct(50) ? MR_LOCAL_PINNED : MR_LOCAL_ODP;
	struct fz_mr *lm = &w->mr[lmr];
	size_t loff = 0;

	if (fz_pair_new(w, &pr, B.r, ROLE_COMP_C, ROLE_COMP_D))
		return fail("%s", w->err);
	B.access = pr.at.access;
	B.mtu = pr.mtu;
	c = pr.p.a.qp;
	cq = c->qp_num;
	/* d drops what c sends, so only the fuzzer answers c */
	if (fz_qp_to_init(w, pr.p.b.qp, pr.at.access)) {
		fz_pair_free(w, &pr);
		return fail("%s", w->err);
	}
	fz_qp_find(w, pr.p.b.qp->qp_num)->state = IBV_QPS_INIT;
	psn = pr.at.psn;
	for (i = 0; i < nwr && !err; i++) {
		static const enum ibv_wr_opcode ops[] = {
			IBV_WR_RDMA_READ, IBV_WR_RDMA_READ, IBV_WR_ATOMIC_FETCH_AND_ADD,
			IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_RDMA_WRITE, IBV_WR_SEND,
		};
		struct wr_plan *pl = &plan[i];
		uint32_t len, npk;
		struct ibv_sge sge;
		struct ibv_send_wr wr = { .num_sge = 1, .sg_list = &sge,
					  .send_flags = IBV_SEND_SIGNALED }, *bad;

		pl->op = ops[below(6)];
		if ((pl->op == IBV_WR_RDMA_READ || pl->op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
		     pl->op == IBV_WR_ATOMIC_CMP_AND_SWP) && !pr.at.max_rd_atomic)
			pl->op = IBV_WR_RDMA_WRITE;
		len = pl->op == IBV_WR_ATOMIC_FETCH_AND_ADD || pl->op == IBV_WR_ATOMIC_CMP_AND_SWP ?
			8 : 1 + (uint32_t)below(B.mtu * 3);
		if (len > 4000)
			len = 4000;
		loff = (loff + 7) & ~(size_t)7;
		if (loff + len > lm->len)
			break;
		sge = (struct ibv_sge){ (uintptr_t)(lm->map + lm->off + loff), len, lm->lkey };
		wr.opcode = pl->op;
		wr.wr_id = (uint64_t)i;
		if (pl->op == IBV_WR_ATOMIC_FETCH_AND_ADD || pl->op == IBV_WR_ATOMIC_CMP_AND_SWP) {
			wr.wr.atomic.remote_addr = 0x10000;
			wr.wr.atomic.rkey = 0x1234;
			wr.wr.atomic.compare_add = 1;
		} else {
			wr.wr.rdma.remote_addr = 0x10000;
			wr.wr.rdma.rkey = 0x1234;
		}
		/* the completer may write what READ and atomic responses carry */
		if (pl->op == IBV_WR_RDMA_READ || pl->op == IBV_WR_ATOMIC_FETCH_AND_ADD ||
		    pl->op == IBV_WR_ATOMIC_CMP_AND_SWP)
			fz_permit(w, lmr, loff, loff + len);
		loff += len;
		npk = (pl->op == IBV_WR_ATOMIC_FETCH_AND_ADD || pl->op == IBV_WR_ATOMIC_CMP_AND_SWP) ?
			1 : (len + B.mtu - 1) / B.mtu;
		pl->len = len;
		pl->first = psn;
		pl->last = (psn + npk - 1) & PSN_MASK;
		psn = (psn + npk) & PSN_MASK;
		if (ibv_post_send(c, &wr, &bad))
			err = -1;
	}
	nwr = i;
	/* the first WR must be on the wire; later READs/atomics may wait
	 * for max_rd_atomic, so do not insist on them */
	if (!err && nwr && fz_wait_sq_psn(w, c, (plan[0].last + 1) & PSN_MASK, 5000))
		err = fail("%s", w->err);
	if (!err && nwr > 1)
		fz_wait_sq_psn(w, c, psn, 20);
	n = 1 + (int)below(8);
	for (k = 0; k < n && !err && nwr; k++) {
		struct wr_plan *pl = &plan[pct(70) ? 0 : below((uint64_t)nwr)];
		struct roce_pkt p;
		uint32_t np = (pl->len + B.mtu - 1) / B.mtu, j, at, left;
		uint8_t op;

		if (pl->op == IBV_WR_RDMA_READ) {
			j = pct(70) ? 0 : (uint32_t)below(np + 1);
			at = (pl->first + j) & PSN_MASK;
			left = pl->len > j * B.mtu ? pl->len - j * B.mtu : 0;
			op = np == 1 ? OP_READ_RESP_ONLY :
			     j == 0 ? OP_READ_RESP_FIRST :
			     j + 1 >= np ? OP_READ_RESP_LAST : OP_READ_RESP_MIDDLE;
			base_pkt(&p, op, cq, at);
			p.payload_len = pay(left > B.mtu ? B.mtu : left);
			if (pct(10))
				p.payload_len = pay(below(B.mtu + 64));
		} else if (pl->op == IBV_WR_RDMA_WRITE || pl->op == IBV_WR_SEND) {
			base_pkt(&p, OP_ACK, cq, pct(70) ? pl->last : psn_near(pl->first));
		} else {
			base_pkt(&p, OP_ATOMIC_ACK, cq, pl->first);
			p.atmack_orig = u64();
		}
		p.payload = B.data;
		p.pad = (uint8_t)((-(unsigned int)p.payload_len) & 3);
		p.aeth_msn = (uint32_t)below(16);
		p.aeth_syn = 0x1f;			/* ACK, no credit limit */
		if (pct(25)) {
			static const uint8_t syn[] = { 0x00, 0x60, 0x61, 0x62, 0x63, 0x64, 0x65,
						       0x40, 0x7f, 0xff, 0x21, 0x80 };

			p.aeth_syn = syn[below(sizeof(syn))];
		}
		if (pct(12))
			p.opcode = (uint8_t)(OP_READ_RESP_FIRST + below(6));
		if (pct(10))
			p.psn = psn_near(pl->first);
		spoil(&p, 0);
		err = send_pkt(&p, 2, 2);
	}
	if (!err && fz_sentinel(w))
		err = -1;
	/* what the completer made of it: any status, but it must not hang
	 * the device or write outside the local buffers */
	usleep(1000);
	k = ibv_poll_cq(pr.p.a.cq, 8, wc);
	for (i = 0; i < k; i++) {
		B.st->comp_cqe++;
		if (wc[i].status != IBV_WC_SUCCESS)
			B.st->comp_err++;
	}
	fz_pair_free(w, &pr);
	return err;
}

/* ---- ud ---- */

static int ud_pkt(int ud)
{
	struct fz_world *w = B.w;
	struct fz_ud *u = &w->ud[ud];
	static const size_t sizes[] = { 0, 1, 3, 4, 31, 32, 33, 1023, 1024, 1025, 4095, 4096,
					4097, 8152, 8191, 8192, 8193 };
	struct roce_pkt p;
	uint32_t dq = u->qp->qp_num;
	size_t n;

	if (pct(10)) {
		static const uint32_t q[] = { 0, 1, MCAST_QPN, 2 };

		dq = pct(50) ? q[below(4)] : w->dead_qpn[below((uint64_t)w->ndead)];
	}
	base_pkt(&p, pct(85) ? (uint8_t)(OP_UD | (OP_SEND_ONLY + below(2))) : (uint8_t)u64(), dq,
		 (uint32_t)u64() & PSN_MASK);
	p.deth_qkey = u->qkey;
	if (pct(20)) {
		static const uint32_t k[] = { 0, GSI_QKEY, 0x11111111u, 0x80000022u, 0x80000000u };

		p.deth_qkey = pct(50) ? u->qkey ^ (1u << below(32)) : k[below(5)];
	}
	if (dq == 1)
		p.deth_qkey = pct(80) ? GSI_QKEY : p.deth_qkey;
	p.deth_sqpn = (uint32_t)u64() & QPN_MASK;
	p.immdt = (uint32_t)u64();
	n = pct(60) ? sizes[below(sizeof(sizes) / sizeof(sizes[0]))] : below(9000);
	if (dq == 1 && pct(70))
		n = 256;	/* MAD sized */
	p.payload_len = pay(n);
	p.payload = B.data;
	p.pad = (uint8_t)below(4);
	spoil(&p, 0);
	return send_pkt(&p, 3, 3);
}

static int batch_ud(void)
{
	int n = 1 + (int)below(8), i, err = 0, ud = (int)below(2);

	for (i = 0; i < n && !err; i++)
		err = ud_pkt(pct(80) ? ud : 1 - ud);
	return err;
}

/* ---- junk ---- */

static int junk_pkt(struct fz_pair *pr)
{
	struct fz_world *w = B.w;
	struct roce_pkt p;
	uint32_t dq;
	int mr = remote_mrs[below(sizeof(remote_mrs) / sizeof(remote_mrs[0]))];

	switch (below(9)) {
	case 0:
	case 1:
		dq = pr->p.b.qp->qp_num;
		break;
	case 2:
		dq = pr->p.a.qp->qp_num;
		break;
	case 3:
		dq = w->ud[below(2)].qp->qp_num;
		break;
	case 4:
		dq = w->dead_qpn[below((uint64_t)w->ndead)];
		break;
	case 5:
		dq = (uint32_t)below(3);
		break;
	case 6:
		dq = MCAST_QPN;
		break;
	default:
		dq = (uint32_t)u64() & QPN_MASK;
		break;
	}
	base_pkt(&p, pct(50) ? (uint8_t)u64() : (uint8_t)below(0x20), dq,
		 pct(50) ? rq_psn(pr->p.b.qp) : (uint32_t)u64());
	p.se = pct(50);
	p.migreq = pct(20);
	p.resv7 = pct(10) ? (uint8_t)u64() : 0;
	p.pkey = pct(85) ? 0xffff : (uint16_t)u64();
	p.tver = pct(90) ? 0 : (uint8_t)u64();
	p.rdeth_eecn = (uint32_t)u64();
	p.deth_qkey = pct(50) ? w->ud[below(2)].qkey : (uint32_t)u64();
	p.deth_sqpn = (uint32_t)u64();
	p.feth = (uint32_t)u64();
	p.reth_va = pick_va(mr, 64);
	p.reth_rkey = pick_rkey(mr);
	p.reth_len = pick_len((uint32_t)below(2 * B.mtu));
	p.atm_va = pick_va(mr, 8);
	p.atm_rkey = p.reth_rkey;
	p.atm_swap = u64();
	p.atm_comp = u64();
	p.aeth_syn = (uint8_t)u64();
	p.aeth_msn = (uint32_t)u64();
	p.atmack_orig = u64();
	p.immdt = (uint32_t)u64();
	p.ieth_rkey = pick_rkey(mr);
	p.payload_len = pay(pct(80) ? below(B.mtu + 64) : below(MAXPKT - 200));
	p.payload = B.data;
	p.pad = (uint8_t)below(4);
	spoil(&p, 1);
	return send_pkt(&p, 30, 10);
}

/* ---- after every batch: UD deliveries ---- */

static int ud_mark(int ud)
{
	struct fz_world *w = B.w;
	struct fz_ud *u = &w->ud[ud];
	uint64_t mark = UD_MARK;
	struct roce_pkt p;
	size_t len;

	roce_pkt_init(&p);
	p.opcode = OP_UD | OP_SEND_ONLY;
	p.dqpn = u->qp->qp_num;
	p.deth_qkey = u->qkey;
	p.payload = (const uint8_t *)&mark;
	p.payload_len = sizeof(mark);
	p.ip_id = ++w->ip_id ? w->ip_id : ++w->ip_id;
	len = roce_build(&p, B.buf, sizeof(B.buf));
	return fz_send(w, B.buf, len);
}

/* Is the receive wc (data at d) exactly the packet of e? */
static int exp_is(const struct ud_exp *e, const struct ibv_wc *wc, const uint8_t *d)
{
	return wc->byte_len == GRH_BYTES + e->len &&
	       !memcmp(d + GRH_BYTES, B.expdata + e->data, e->len) && wc->src_qp == e->sqpn &&
	       !!(wc->wc_flags & IBV_WC_WITH_IMM) == e->imm &&
	       (!e->imm || (uint32_t)ntohl(wc->imm_data) == e->immdt);
}

static int ud_check(int ud)
{
	struct fz_world *w = B.w;
	struct fz_ud *u = &w->ud[ud];
	struct ibv_wc wc;
	int j = 0, got_mark = 0, i;

	if (ud_mark(ud))
		return fail("%s", w->err);
	while (!got_mark) {
		uint8_t *d;
		uint64_t m;

		if (fz_poll(u->cq, &wc, 1, 10000) != 1)
			return fail("UD QP %u: the marker packet was not received in 10 s",
					u->qp->qp_num);
		d = fz_slot_sge(w, (int)wc.wr_id);
		if (wc.status != IBV_WC_SUCCESS)
			return fail("UD QP %u: receive completed with %s", u->qp->qp_num,
					ibv_wc_status_str(wc.status));
		memcpy(&m, d + GRH_BYTES, 8);
		if (wc.byte_len == GRH_BYTES + 8 && m == UD_MARK) {
			got_mark = 1;
		} else {
			/* the next expectation it can be: one that rxe may
			 * also have dropped (a wrong UDP checksum) only if it
			 * is exactly this packet */
			while (j < B.nexp && (B.exp[j].ud != ud ||
					      (!B.exp[j].certain && !exp_is(&B.exp[j], &wc, d))))
				j++;
			if (j == B.nexp) {
				if (B.ud_loose[ud] || B.exp_overflow)
					goto repost;
				return fail("UD QP %u received %u bytes that no accepted packet explains (a packet rxe should have dropped?)",
						u->qp->qp_num, wc.byte_len);
			}
			if (!exp_is(&B.exp[j], &wc, d))
				return fail("UD QP %u: received %u bytes (src QP %#x) for a packet of %zu payload bytes (src QP %#x): delivered wrong",
						u->qp->qp_num, wc.byte_len, wc.src_qp, B.exp[j].len,
						B.exp[j].sqpn);
			B.st->ud_delivered++;
			j++;
		}
repost:
		if (fz_post_recv_slot(w, u->qp, (int)wc.wr_id, u->sge_len))
			return fail("%s", w->err);
	}
	for (i = j; i < B.nexp && !B.exp_overflow; i++)
		if (B.exp[i].ud == ud && B.exp[i].certain && !B.ud_loose[ud])
			return fail("UD QP %u: a valid packet of %zu payload bytes was not delivered",
					u->qp->qp_num, B.exp[i].len);
	return 0;
}

/* ---- a batch ---- */

enum fz_kind fz_batch_kind(uint64_t seed, uint64_t n, const bool *kinds)
{
	static const unsigned int weight[FZ_NKINDS] = { 40, 25, 20, 15 };
	struct rng r;
	unsigned int total = 0, k, x;

	rng_seed(&r, seed, n + 1);
	for (k = 0; k < FZ_NKINDS; k++)
		if (kinds[k])
			total += weight[k];
	x = (unsigned int)rng_below(&r, total ? total : 1);
	for (k = 0; k < FZ_NKINDS; k++) {
		if (!kinds[k])
			continue;
		if (x < weight[k])
			return (enum fz_kind)k;
		x -= weight[k];
	}
	return KIND_RESP;
}

int fz_batch(struct fz_world *w, uint64_t seed, uint64_t n, const bool *kinds,
	     struct fz_stats *st)
{
	enum fz_kind kind = fz_batch_kind(seed, n, kinds);
	struct rng r;
	int err, ud;

	rng_seed(&r, seed, n + 1);
	rng_u64(&r);		/* the kind's draw */
	memset(B.exp, 0, sizeof(B.exp));
	B.w = w;
	B.r = &r;
	B.st = st;
	B.nexp = 0;
	B.exp_overflow = 0;
	B.expused = 0;
	B.ud_loose[0] = B.ud_loose[1] = 0;
	B.ud_touched[0] = B.ud_touched[1] = 0;
	B.mtu = 4096;
	B.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	w->finding[0] = 0;
	st->batches[kind]++;
	if (pct(15))
		fz_odp_churn(w, &r);
	switch (kind) {
	case KIND_RESP:
		err = batch_resp_or_junk(0);
		break;
	case KIND_COMP:
		err = batch_comp();
		break;
	case KIND_UD:
		err = batch_ud();
		break;
	default:
		err = batch_resp_or_junk(1);
		break;
	}
	/* every batch: a packet the model drops must not show up later */
	for (ud = 0; ud < 2 && !err; ud++)
		err = ud_check(ud);
	if (fz_check_kmsg(w))
		return -1;
	if (err)
		return -1;
	if (fz_check_memory(w))
		return -1;
	return 0;
}
