/* model: the outcome of one work request on rxe (see model.h). */
#include "model.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *const m_op_name[M_NOPS] = {
	[M_WRITE] = "WRITE", [M_WRITE_IMM] = "WRITE_IMM", [M_SEND] = "SEND",
	[M_SEND_IMM] = "SEND_IMM", [M_SEND_INV] = "SEND_INV", [M_READ] = "READ",
	[M_CAS] = "CMP_SWP", [M_FADD] = "FETCH_ADD", [M_ATOMIC_WRITE] = "ATOMIC_WRITE",
	[M_FLUSH] = "FLUSH", [M_BAD_OPCODE] = "BAD_OPCODE",
};

int m_lookup(const struct m_view *v, uint32_t key, int pd, unsigned int access)
{
	int i;

	for (i = 0; i < v->nmr; i++) {
		const struct m_mr *m = &v->mr[i];

		if (m->key != key)
			continue;
		/* keys are unique among live MRs: this one or none */
		if (m->pd != pd || (m->access & access) != access)
			return -1;
		return i;
	}
	return -1;
}

/* First byte (offset from addr) of an ODP MR range that a fault cannot map. */
static uint64_t odp_reach(const struct m_view *v, const struct m_mr *m, uint64_t va, uint64_t len,
			  int write)
{
	uint64_t off = 0;

	if (m->fault_fails)
		return 0;
	while (off < len) {
		uint64_t page = (va + off) & ~(M_PAGE - 1);
		enum m_page st = v->page(v->ctx, page);

		if (st == MP_NONE || st == MP_HOLE || st == MP_POISON || (write && st == MP_RO))
			return off;
		off += page + M_PAGE - (va + off);
	}
	return len;
}

uint64_t m_mr_reach(const struct m_view *v, const struct m_mr *m, uint64_t addr, uint64_t len,
		    int write)
{
	uint64_t d, in;

	/* rxe's mr_check_range(): [addr, addr + len) inside [iova, iova + len),
	 * computed without overflow */
	if (addr < m->iova)
		return 0;
	d = addr - m->iova;
	if (d >= m->len)
		return 0;
	in = m->len - d;		/* bytes from addr to the MR's end */
	if (len > in)
		len = in;		/* what is beyond fails in any case */
	if (!m->odp)
		return len;
	return odp_reach(v, m, m->addr + d, len, write);
}

uint64_t m_sg_reach(const struct m_view *v, int pd, const struct m_sge *sge, int nsge,
		    uint64_t len, unsigned int access, int write, int *enospc)
{
	uint64_t off = 0;
	int i;

	*enospc = 0;
	for (i = 0; i < nsge && off < len; i++) {
		uint64_t n = sge[i].len, ok;
		int mi;

		if (!n)
			continue;	/* copy_data() skips empty SGEs unseen */
		if (n > len - off)
			n = len - off;
		mi = m_lookup(v, sge[i].lkey, pd, access);
		if (mi < 0)
			return off;
		ok = m_mr_reach(v, &v->mr[mi], sge[i].addr, n, write);
		if (ok < n)
			return off + ok;
		off += n;
	}
	if (off < len) {
		*enospc = 1;
		return off;
	}
	return M_INF;
}

uint64_t m_msg_len(const struct m_req *req)
{
	uint32_t sum = 0;
	int i, n = req->nsge < M_MAX_SGE ? req->nsge : M_MAX_SGE;

	/* librxe 44's ibv_qp_ex, as the WQEs it writes show: the SGE list's
	 * length is the first SGE's num_sge times; an inline data list's
	 * length stays 0 (its data is copied, its length never added up) */
	if (req->path == M_PATH_QPEX && req->inl)
		return 0;
	if (req->path == M_PATH_QPEX && n)
		return (uint32_t)(req->sge[0].len * (uint32_t)n);
	/* librxe adds the SGE lengths in an unsigned int */
	for (i = 0; i < n; i++)
		sum += req->sge[i].len;
	return sum;
}

static uint64_t pkt(uint64_t byte, unsigned int mtu)
{
	return byte == M_INF ? M_INF : byte / mtu;
}

/* Which operations a QP type can send (rxe's rxe_wr_opcode_info) */
static int op_valid(int ud, enum m_op op)
{
	if (op == M_BAD_OPCODE)
		return 0;
	if (ud)
		return op == M_SEND || op == M_SEND_IMM;
	return 1;
}

/* Remote access to [raddr, raddr + len) through rkey: returns the packet
 * index of the failure (M_INF: none) and its status in *st. */
static uint64_t rdma_reach(const struct m_view *v, const struct m_qp *rs, uint64_t raddr,
			   uint32_t rkey, uint64_t len, unsigned int access, int write,
			   unsigned int mtu, uint32_t *st)
{
	uint64_t ok;
	int mi;

	*st = M_ST(MS_REM_ACCESS_ERR);
	mi = m_lookup(v, rkey, rs->pd, access);
	if (mi < 0)
		return 0;
	/* check_rkey() checks the whole range at the first packet */
	if (m_mr_reach(v, &(struct m_mr){ .iova = v->mr[mi].iova, .len = v->mr[mi].len },
		       raddr, len, 0) < len)
		return 0;
	ok = m_mr_reach(v, &v->mr[mi], raddr, len, write);
	return ok < len ? pkt(ok, mtu) : M_INF;
}

/* The two ends' failures combined for a request whose payload the
 * requester gathers packet by packet (SEND, WRITE); sL is the local
 * failure's status (protection, or running out of SGEs) */
static uint32_t combine_gather(uint64_t kL, uint32_t sL, uint64_t kR, uint32_t sR)
{
	if (kL != M_INF && kR < kL)
		return sL | sR;
	if (kL != M_INF)
		return sL;
	if (kR != M_INF)
		return sR;
	return M_ST(MS_SUCCESS);
}

/* READ and atomics: the responder answers, the completer scatters the
 * answer packet by packet; whichever fails at the earlier packet decides
 * (the responder's NAK comes after its good packets). */
static uint32_t combine_scatter(uint64_t kL, uint64_t kR, uint32_t sR)
{
	if (kR != M_INF && kR <= kL)
		return sR;
	if (kL != M_INF)
		return M_ST(MS_LOC_PROT_ERR);
	return M_ST(MS_SUCCESS);
}

/*
 * Each side's failure on its own, whichever packet it is at.  A message's
 * two sides do not meet the memory at the same moment: the requester
 * gathers a packet's payload when it builds the packet (and scatters a
 * READ's response when it arrives), the responder checks the R_Key and
 * the range when the packet gets there.  A WR in flight while an MR is
 * deregistered or a page unmapped or protected may so meet the old state
 * on one side and the new one on the other: e.g. a WRITE whose source and
 * target MR is deregistered after its payload was gathered is NAKed by
 * the responder (IBV_WC_REM_ACCESS_ERR), which no single state gives
 * (the local failure, at packet 0, comes first in every state that has
 * the MR gone).  Nothing orders a deregistration or an munmap against
 * the WRs in flight that use the memory: rxe holds the MR only while one
 * side copies (rxe_mr_copy() / copy_data()), not across both.
 */
static uint32_t split(uint64_t kL, uint32_t sL, uint64_t kR, uint32_t sR)
{
	return (kL != M_INF ? sL : 0) | (kR != M_INF ? sR : 0);
}

static void eval_ud(const struct m_view *v, const struct m_qp *rq, const struct m_req *r,
		    uint64_t L, struct m_out *o)
{
	int enospc;

	o->consumes = 1;
	/* C10-93.1.1: longer than the port MTU: no packet, no error */
	if (L > rq->mtu) {
		o->req = M_ST(MS_SUCCESS);
		o->consumes = 0;
		return;
	}
	if (!r->inl &&
	    m_sg_reach(v, rq->pd, r->sge, r->nsge, L, 0, 0, &enospc) != M_INF) {
		o->req = enospc ? M_ST(MS_LOC_QP_OP_ERR) : M_ST(MS_LOC_PROT_ERR);
		o->consumes = 0;
		return;
	}
	o->req = M_ST(MS_SUCCESS);
}

/* The receive side of an RC SEND: the packet where the scatter fails, the
 * status the requester then gets and the one the receive WQE gets. */
static uint64_t recv_reach(const struct m_view *v, const struct m_qp *rs,
			   const struct m_recv *rv, uint64_t L, unsigned int mtu, uint32_t *sR,
			   uint32_t *sRecv)
{
	uint32_t resid = 0;
	uint64_t b, bmal;
	int i, enospc;

	for (i = 0; i < rv->nsge; i++)
		resid += rv->sge[i].len;	/* librxe's dma.resid, 32 bits */
	b = m_sg_reach(v, rs->pd, rv->sge, rv->nsge, L, MA_LOCAL_WRITE, 1, &enospc);
	/* send_data_in() refuses a packet that goes past resid first: an
	 * invalid request and a local length error (patch 0027; stock rxe
	 * took it for a malformed WQE).  A resid past INT_MAX is negative
	 * for copy_data() (an int), which refuses every packet: malformed. */
	bmal = (int32_t)resid < 0 ? 0 : (L > resid ? resid : M_INF);
	if (bmal != M_INF && pkt(bmal, mtu) <= pkt(b, mtu)) {
		if ((int32_t)resid < 0) {
			*sR = M_ST(MS_REM_OP_ERR);
			*sRecv = M_ST(MS_LOC_QP_OP_ERR);
		} else {
			*sR = M_ST(MS_REM_INV_REQ_ERR);
			*sRecv = M_ST(MS_LOC_LEN_ERR);
		}
		return pkt(bmal, mtu);
	}
	if (b == M_INF)
		return M_INF;
	if (enospc) {
		*sR = M_ST(MS_REM_INV_REQ_ERR);
		*sRecv = M_ST(MS_REM_INV_REQ_ERR);
	} else {
		*sR = M_ST(MS_REM_OP_ERR);
		*sRecv = M_ST(MS_LOC_PROT_ERR);
	}
	return pkt(b, mtu);
}

/* The receive WQE of an RDMA WRITE with immediate: only its last packet
 * takes one, so a failure before the last packet leaves the receive queue
 * alone, and one at the last packet (R_Key or ODP fault in the MR)
 * completes the WQE with the responder's status. */
static void write_imm_recv(uint64_t L, unsigned int mtu, uint64_t kL, uint64_t kR, uint32_t sR,
			   struct m_out *o)
{
	uint64_t last = L ? (L - 1) / mtu : 0;

	if (kL != M_INF)
		o->recv_untouched = 1;
	else if (kR == M_INF)
		o->recv = M_ST(MS_SUCCESS);
	else if (kR == last && sR == M_ST(MS_REM_ACCESS_ERR))
		o->recv = sR;
	else
		o->recv_untouched = 1;
}

void m_eval(const struct m_view *v, const struct m_qp *rq, const struct m_qp *rs,
	    const struct m_req *r, const struct m_recv *rv, struct m_out *o)
{
	uint64_t L = m_msg_len(r), kL = M_INF, kR = M_INF;
	unsigned int mtu = rq->mtu;
	uint32_t sR = 0, sRecv = 0, sL = M_ST(MS_LOC_PROT_ERR);
	int enospc, mi;

	memset(o, 0, sizeof(*o));
	o->len = L;

	/* librxe's validate_send_wr() */
	if (r->path != M_PATH_RING) {
		if ((unsigned int)r->nsge > rq->max_sge) {
			o->post_err = EINVAL;
			return;
		}
		if (r->inl && r->path == M_PATH_VERBS && L > rq->max_inline) {
			o->post_err = EINVAL;
			return;
		}
		if (r->inl && r->path == M_PATH_QPEX) {
			/* librxe checks each buffer alone against the room */
			int i;

			for (i = 0; i < r->nsge && i < M_MAX_SGE; i++)
				if (r->sge[i].len > rq->max_inline) {
					o->post_err = ENOSPC;
					return;
				}
		}
		if (r->path == M_PATH_VERBS && (r->op == M_CAS || r->op == M_FADD) &&
		    (L < 8 || (r->raddr & 7))) {
			o->post_err = EINVAL;
			return;
		}
	} else if ((unsigned int)r->nsge > rq->max_sge) {
		/* rxe_requester(): num_sge beyond the QP's */
		o->req = M_ST(MS_LOC_QP_OP_ERR);
		return;
	}

	if (!op_valid(rq->ud, r->op)) {
		o->req = M_ST(MS_LOC_QP_OP_ERR);
		return;
	}
	if (rq->ud) {
		eval_ud(v, rq, r, L, o);
		return;
	}

	switch (r->op) {
	case M_WRITE:
	case M_WRITE_IMM:
	case M_SEND:
	case M_SEND_IMM:
	case M_SEND_INV:
		/* copy_data() keeps the residue in an int */
		if (!r->inl && L >= (1ull << 31)) {
			o->req = M_ST(MS_LOC_QP_OP_ERR);
			return;
		}
		if (!r->inl) {
			kL = pkt(m_sg_reach(v, rq->pd, r->sge, r->nsge, L, 0, 0, &enospc), mtu);
			/* a message longer than its SGEs: -ENOSPC, not -EFAULT */
			if (kL != M_INF && enospc)
				sL = M_ST(MS_LOC_QP_OP_ERR);
		}
		if (r->op == M_WRITE || r->op == M_WRITE_IMM) {
			o->consumes = r->op == M_WRITE_IMM;
			o->remote_written = 1;
			if (!(rs->access & MA_REMOTE_WRITE)) {
				kR = 0;
				sR = M_ST(MS_REM_INV_REQ_ERR);
			} else if (L > (1ull << 31)) {
				kR = 0;
				sR = M_ST(MS_REM_INV_REQ_ERR);
			} else if (L) {
				/* C9-88: a zero-length WRITE names no MR */
				kR = rdma_reach(v, rs, r->raddr, r->rkey, L, MA_REMOTE_WRITE, 1, mtu,
						&sR);
			}
			o->req = combine_gather(kL, sL, kR, sR);
			o->req_split = split(kL, sL, kR, sR);
			if (o->consumes)
				write_imm_recv(L, mtu, kL, kR, sR, o);
			return;
		}
		o->consumes = 1;
		if (rv)
			kR = recv_reach(v, rs, rv, L, mtu, &sR, &sRecv);
		o->req = combine_gather(kL, sL, kR, sR);
		o->req_split = split(kL, sL, kR, sR);
		/* the receive WQE is taken by the first packet and completes
		 * at the last one or at the responder's error */
		if (kL == 0)
			o->recv_untouched = 1;
		else if (kR != M_INF && kR < kL)
			o->recv = sRecv;
		else if (kL != M_INF)
			o->recv_stuck = 1;
		else if (!rv)
			o->recv = 0;	/* unknown WQE: the caller decides */
		else
			o->recv = kR != M_INF ? sRecv : M_ST(MS_SUCCESS);
		/* SEND_INV: rxe invalidates after the data is in; an R_Key
		 * that names no MW or fast-registered MR fails the receive
		 * WQE and the responder QP and is NAKed as an invalid request
		 * (patch 0028; stock rxe ACKed it) */
		if (r->op == M_SEND_INV && o->req == M_ST(MS_SUCCESS)) {
			o->req = M_ST(MS_REM_INV_REQ_ERR);
			o->req_split = M_ST(MS_REM_INV_REQ_ERR);
			o->recv = M_ST(MS_REM_INV_REQ_ERR);
			o->resp_dies = 1;
		}
		return;

	case M_READ:
		if (!(rs->access & MA_REMOTE_READ) || rs->max_dest_rd_atomic == 0 ||
		    L > (1ull << 31)) {
			kR = 0;
			sR = M_ST(MS_REM_INV_REQ_ERR);
		} else if (L) {
			kR = rdma_reach(v, rs, r->raddr, r->rkey, L, MA_REMOTE_READ, 0, mtu, &sR);
		}
		kL = pkt(m_sg_reach(v, rq->pd, r->sge, r->nsge, L, MA_LOCAL_WRITE, 1, &enospc),
			 mtu);
		o->req = combine_scatter(kL, kR, sR);
		o->req_split = split(kL, M_ST(MS_LOC_PROT_ERR), kR, sR);
		/* The responder sends every response packet of the READ
		 * without waiting for the requester (rxe_receiver() loops
		 * in RESPST_READ_REPLY until the last one), so it reaches
		 * its own failure at packet kR even when the requester's
		 * completer already failed at an earlier packet kL with
		 * LOC_PROT_ERR.  read_reply() then answers
		 * RESPST_ERR_RKEY_VIOLATION (an ODP page it cannot fault:
		 * hwpoison, a hole), a class C error: do_class_ac_error()
		 * sets goto_error, and RESPST_ERROR calls rxe_qp_error(),
		 * which flushes the responder's receive queue.  Its NAK
		 * reaches a requester that is in ERR already. */
		if (kR != M_INF)
			o->resp_err = 1;
		return;

	case M_CAS:
	case M_FADD:
	case M_ATOMIC_WRITE: {
		unsigned int qacc = r->op == M_ATOMIC_WRITE ? MA_REMOTE_WRITE : MA_REMOTE_ATOMIC;

		o->remote_written = 1;
		sL = 0;
		/* the original value goes to the local SGEs: 8 bytes */
		if (r->op != M_ATOMIC_WRITE &&
		    (L < 8 || m_sg_reach(v, rq->pd, r->sge, r->nsge, 8, MA_LOCAL_WRITE, 1,
				       &enospc) != M_INF))
			sL = M_ST(MS_LOC_PROT_ERR);
		if (!(rs->access & qacc) || rs->max_dest_rd_atomic == 0) {
			sR = M_ST(MS_REM_INV_REQ_ERR);
		} else if ((mi = m_lookup(v, r->rkey, rs->pd, qacc)) < 0 ||
			   m_mr_reach(v, &(struct m_mr){ .iova = v->mr[mi].iova,
						     .len = v->mr[mi].len },
				      r->raddr, 8, 0) < 8) {
			sR = M_ST(MS_REM_ACCESS_ERR);
		} else if ((v->mr[mi].addr + (r->raddr - v->mr[mi].iova)) & 7) {
			/* alignment is the address's in the owner's memory (A19.4.2) */
			sR = M_ST(MS_REM_INV_REQ_ERR);
		} else if (m_mr_reach(v, &v->mr[mi], r->raddr, 8, 1) < 8) {
			sR = M_ST(MS_REM_ACCESS_ERR);
		}
		/* the responder's failure first; else the completer's store */
		o->req = sR ? sR : sL ? sL : M_ST(MS_SUCCESS);
		/*
		 * The responder does the atomic, the completer stores the
		 * original value later: an MR changed between the two (the
		 * same MR deregistered, both sides in it) fails the store
		 * alone, after a remote side that worked.
		 */
		o->req_split = sR | sL;
		return;
	}

	case M_FLUSH: {
		unsigned int acc = 0;

		if ((r->flush_type & 1) && !(rs->access & MA_FLUSH_GLOBAL)) {
			o->req = M_ST(MS_REM_INV_REQ_ERR);
			return;
		}
		if ((r->flush_type & 2) && !(rs->access & MA_FLUSH_PERSISTENT)) {
			o->req = M_ST(MS_REM_INV_REQ_ERR);
			return;
		}
		/* a FLUSH takes a responder resource, as a READ does */
		if (rs->max_dest_rd_atomic == 0 || r->flush_len > (1u << 31)) {
			o->req = M_ST(MS_REM_INV_REQ_ERR);
			return;
		}
		if (r->flush_type & 1)
			acc |= MA_FLUSH_GLOBAL;
		if (r->flush_type & 2)
			acc |= MA_FLUSH_PERSISTENT;
		mi = m_lookup(v, r->rkey, rs->pd, acc);
		if (mi < 0) {
			o->req = M_ST(MS_REM_ACCESS_ERR);
			return;
		}
		if (r->flush_level != 1) {
			const struct m_mr *m = &v->mr[mi];

			/* mr_check_range(), a zero length included */
			if (r->raddr < m->iova || r->flush_len > m->len ||
			    r->raddr - m->iova > m->len - r->flush_len) {
				o->req = M_ST(MS_REM_ACCESS_ERR);
				return;
			}
		}
		o->req = M_ST(MS_SUCCESS);
		return;
	}

	default:
		o->req = M_ST(MS_LOC_QP_OP_ERR);
		return;
	}
}

int m_reg_errno(const struct m_view *v, uint64_t addr, uint64_t len, uint64_t iova,
		unsigned int access, int huge)
{
	int odp = !!(access & MA_ON_DEMAND), writable;
	uint64_t end, p;

	/* ib_uverbs_reg_mr() */
	if ((addr & (M_PAGE - 1)) != (iova & (M_PAGE - 1)))
		return EINVAL;
	if ((access & (MA_REMOTE_WRITE | MA_REMOTE_ATOMIC)) && !(access & MA_LOCAL_WRITE))
		return EINVAL;
	/* rxe: HUGETLB only means something for ODP */
	if ((access & MA_HUGETLB) && !odp)
		return EOPNOTSUPP;
	if (odp) {
		if (access & MA_FLUSH_PERSISTENT)
			return EOPNOTSUPP;
		/* implicit ODP (patch 0030; make fuzz seed 0x32b9ab48): the
		 * whole address space, with iova 0 and 4 KiB pages only */
		if (!addr && len == UINT64_MAX)
			return iova || (access & MA_HUGETLB) ? EINVAL : 0;
		if (!len)
			return EINVAL;
		/* rxe_odp_mr_init_user(): the two sums must not wrap */
		if (addr + len < addr || iova + len < iova)
			return EOVERFLOW;
		/*
		 * Only a HUGETLB MR gets a umem for its range, from
		 * ib_umem_odp_get(), with 2 MiB pages (HPAGE_SHIFT) whatever
		 * the memory is: ib_init_umem_odp() rounds the end up to 2 MiB
		 * and refuses an end that wraps to 0 with -EOVERFLOW (seed
		 * 0x138a: addr 0xfffffffffff89f23, len 0x1000, HUGETLB).
		 * Every other ODP MR registers as an empty parent (lazy
		 * children), nothing rounded: a range ending at 2^64 - 1 is
		 * fine (make fuzz seed 0x21d2847a).
		 */
		if ((access & MA_HUGETLB) &&
		    ((addr + len + M_HPAGE - 1) & ~(M_HPAGE - 1)) < M_HPAGE)
			return EOVERFLOW;
		(void)huge;
		return 0;
	}
	/*
	 * pinned: ib_umem_get() and the page pinning. It refuses zero pages,
	 * not zero bytes: a length of 0 at an address inside a page pins that
	 * page (seen on rxe: ibv_reg_mr(addr 0x...d1b, len 0) succeeds).
	 */
	if (iova + len < iova)
		return EOVERFLOW;	/* rxe: an iova range that wraps (patch 0022) */
	if ((!len && !(addr & (M_PAGE - 1))) || addr + len < addr || ((addr + len + M_PAGE - 1) & ~(M_PAGE - 1)) < addr + len)
		return EINVAL;
	if (access & MA_FLUSH_PERSISTENT)
		return EINVAL;		/* no persistent memory here */
	writable = !!(access & (MA_LOCAL_WRITE | MA_REMOTE_WRITE | MA_REMOTE_ATOMIC |
				MA_MW_BIND));
	end = addr + len;
	for (p = addr & ~(M_PAGE - 1); p < end; p += M_PAGE) {
		enum m_page st = v->page(v->ctx, p);

		if (st == MP_HOLE || st == MP_NONE || (writable && st == MP_RO))
			return EFAULT;
		if (st == MP_POISON)
			return EHWPOISON;
		if (p + M_PAGE < p)
			break;
	}
	return 0;
}

const char *m_status_set(uint32_t set, char *buf, unsigned int len)
{
	static const char *const nm[32] = {
		[0] = "SUCCESS", [1] = "LOC_LEN_ERR", [2] = "LOC_QP_OP_ERR",
		[3] = "LOC_EEC_OP_ERR", [4] = "LOC_PROT_ERR", [5] = "WR_FLUSH_ERR",
		[6] = "MW_BIND_ERR", [7] = "BAD_RESP_ERR", [8] = "LOC_ACCESS_ERR",
		[9] = "REM_INV_REQ_ERR", [10] = "REM_ACCESS_ERR", [11] = "REM_OP_ERR",
		[12] = "RETRY_EXC_ERR", [13] = "RNR_RETRY_EXC_ERR", [14] = "LOC_RDD_VIOL_ERR",
		[15] = "REM_INV_RD_REQ_ERR", [16] = "REM_ABORT_ERR", [17] = "INV_EECN_ERR",
		[18] = "INV_EEC_STATE_ERR", [19] = "FATAL_ERR", [20] = "RESP_TIMEOUT_ERR",
		[21] = "GENERAL_ERR",
	};
	unsigned int i, n = 0;

	buf[0] = 0;
	for (i = 0; i < 32 && n < len; i++) {
		if (!(set & (1u << i)))
			continue;
		n += snprintf(buf + n, len - n, "%s%s", n ? "|" : "", nm[i] ? nm[i] : "?");
	}
	if (!set)
		snprintf(buf, len, "(none)");
	return buf;
}
