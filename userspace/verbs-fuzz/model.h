/*
 * model: what rxe must do with one work request, given the MRs, the memory
 * and the QPs it touches, as the fuzzer knows them at one moment.  Pure
 * code (no verbs, no system calls), so the host unit tests can pin it down.
 *
 * The model follows how rxe processes a request, in its order:
 *   requester   librxe's checks at post time (EINVAL), the opcode for the QP
 *               type, then per packet the gather of the payload from the
 *               local SGEs (L_Key lookup, range, ODP fault);
 *   responder   QP access flags, responder resources, RETH length, R_Key
 *               lookup and range, alignment, then per packet the copy into
 *               or out of the MR (ODP fault) or the scatter into the receive
 *               WQE;
 *   completer   the scatter of READ data or an atomic's original value into
 *               the local SGEs.
 * A failure is located at the packet where it happens.  When the requester
 * fails at packet kL and the responder at kR < kL, both errors are legal:
 * the requester builds packets ahead of the responder's answer (the only
 * case where an unraced request has two outcomes).
 *
 * Races are the caller's: it evaluates the request in every state the MRs
 * and memory pass through while it is in flight and allows the union.
 */
#ifndef VF_MODEL_H
#define VF_MODEL_H

#include <stdint.h>

#define M_MAX_SGE	8
#define M_INF		UINT64_MAX	/* "never fails" as a packet index */
#define M_PAGE		4096ull
#define M_HPAGE		(2ull << 20)	/* x86-64 HPAGE_SIZE */

/* The work request operations the fuzzer posts. */
enum m_op {
	M_WRITE, M_WRITE_IMM, M_SEND, M_SEND_IMM, M_SEND_INV, M_READ,
	M_CAS, M_FADD, M_ATOMIC_WRITE, M_FLUSH,
	M_BAD_OPCODE,		/* an opcode rxe must refuse for a user QP */
	M_NOPS
};

extern const char *const m_op_name[M_NOPS];

/* How a request reaches the send queue: each path has its own checks. */
enum m_path {
	M_PATH_VERBS,		/* ibv_post_send (librxe checks, then the ring) */
	M_PATH_QPEX,		/* ibv_wr_* on an ibv_qp_ex */
	M_PATH_RING,		/* written into the ring by the fuzzer */
};

/* A page of the owner's address space, as its page tables have it. */
enum m_page { MP_RW, MP_RO, MP_NONE, MP_HOLE, MP_POISON };

/* Access flags (IBV_ACCESS_* values, plus the kernel's flush bits) */
#define MA_LOCAL_WRITE		(1u << 0)
#define MA_REMOTE_WRITE		(1u << 1)
#define MA_REMOTE_READ		(1u << 2)
#define MA_REMOTE_ATOMIC	(1u << 3)
#define MA_MW_BIND		(1u << 4)
#define MA_ON_DEMAND		(1u << 6)
#define MA_HUGETLB		(1u << 7)
#define MA_FLUSH_GLOBAL		(1u << 8)
#define MA_FLUSH_PERSISTENT	(1u << 9)

/* One registered MR (lkey == rkey for user MRs on rxe). */
struct m_mr {
	uint32_t key;
	int pd;
	unsigned int access;
	uint64_t iova, len;	/* the range requests name */
	uint64_t addr;		/* the owner's virtual address of iova */
	int odp;		/* faults pages in through the owner's page tables */
	int fault_fails;	/* ODP + HUGETLB on memory that is not huge: every fault fails */
};

/* The state the model evaluates in: the live MRs and the page states. */
struct m_view {
	const struct m_mr *mr;
	int nmr;
	/* state of the page holding va (only asked for pages of an ODP MR) */
	enum m_page (*page)(const void *ctx, uint64_t va);
	const void *ctx;
};

struct m_sge {
	uint64_t addr;
	uint32_t len;
	uint32_t lkey;
};

/* What the fuzzer knows of a QP. */
struct m_qp {
	int ud;			/* IBV_QPT_UD, else RC */
	int pd;
	unsigned int access;	/* qp_access_flags: remote operations accepted */
	int max_dest_rd_atomic;	/* responder resources (0: none) */
	unsigned int mtu;	/* path MTU in bytes (UD: the port's) */
	unsigned int max_sge, max_inline;
};

/* One send work request. */
struct m_req {
	enum m_op op;
	enum m_path path;
	int nsge;		/* may exceed M_MAX_SGE only as a count: the rest unused */
	struct m_sge sge[M_MAX_SGE];
	int inl;		/* IBV_SEND_INLINE: data copied at post, L_Keys unused */
	uint64_t raddr;
	uint32_t rkey;
	uint32_t flush_len;
	uint8_t flush_type, flush_level;
	uint32_t inv_rkey;	/* SEND_INV: the R_Key to invalidate */
};

/* The receive WQE a SEND (or WRITE_IMM) consumes. */
struct m_recv {
	int nsge;
	struct m_sge sge[M_MAX_SGE];
};

/* What may happen. Status sets are bit masks of enum ibv_wc_status. */
struct m_out {
	int post_err;		/* librxe refuses the post with this errno (0: accepted) */
	uint32_t req;		/* the requester's completion */
	uint32_t req_split;	/* each side's own failure status alone (0: none):
				 * what a WR raced by a change of an MR or page
				 * may also complete with, when its two sides
				 * met the memory in different states (see
				 * traffic_reevaluate()) */
	int consumes;		/* needs a receive WQE at the responder */
	uint32_t recv;		/* statuses its receive WQE may complete with */
	int recv_stuck;		/* ...or it may stay half-filled, without completion */
	int recv_untouched;	/* ...or it may not be reached at all */
	int resp_dies;		/* the responder QP goes to ERR (SEND_INV of a bad R_Key) */
	int resp_err;		/* the responder QP goes to ERR, though the requester's
				 * status may not say so (it failed first) */
	int remote_written;	/* success changes the remote range */
	uint64_t len;		/* message length as rxe sees it (u32 sum of SGEs) */
};

#define M_ST(s)		(1u << (s))

/* Status bits used by the model (enum ibv_wc_status values) */
enum {
	MS_SUCCESS = 0, MS_LOC_LEN_ERR = 1, MS_LOC_QP_OP_ERR = 2,
	MS_LOC_PROT_ERR = 4, MS_WR_FLUSH_ERR = 5, MS_REM_INV_REQ_ERR = 9,
	MS_REM_ACCESS_ERR = 10, MS_REM_OP_ERR = 11, MS_RETRY_EXC_ERR = 12,
	MS_RNR_RETRY_EXC_ERR = 13,
};

/* The MR a key selects for an access, or -1: rxe's lookup_mr() (same key,
 * same PD, every access bit granted). */
int m_lookup(const struct m_view *v, uint32_t key, int pd, unsigned int access);

/* The first byte of [addr, addr + len) (as an offset from addr) that an
 * access through MR m cannot reach: outside the MR's range, or on a page
 * an ODP fault cannot map (write: needs a writable page).  len if none. */
uint64_t m_mr_reach(const struct m_view *v, const struct m_mr *m, uint64_t addr, uint64_t len,
		    int write);

/* Gather (write = 0) or scatter (write = 1) len bytes of a message through
 * a list of SGEs: the message offset of the first byte that fails, or
 * M_INF.  *enospc says the failure is running out of SGEs. */
uint64_t m_sg_reach(const struct m_view *v, int pd, const struct m_sge *sge, int nsge,
		    uint64_t len, unsigned int access, int write, int *enospc);

/* Evaluate req, posted on requester rq towards responder rs (the same QP
 * for UD), in state v; recv is the receive WQE it would consume (RC SEND
 * and WRITE_IMM), NULL if unknown. */
void m_eval(const struct m_view *v, const struct m_qp *rq, const struct m_qp *rs,
	    const struct m_req *req, const struct m_recv *recv, struct m_out *o);

/* The message length rxe computes: the SGE lengths summed in 32 bits. */
uint64_t m_msg_len(const struct m_req *req);

/* Whether registering [addr, addr + len) at iova with access on a region
 * whose pages have the given states must succeed: 0, or the errno it must
 * fail with.  huge: the memory is hugetlbfs. */
int m_reg_errno(const struct m_view *v, uint64_t addr, uint64_t len, uint64_t iova,
		unsigned int access, int huge);

/* A readable list of the statuses in a set ("SUCCESS|REM_ACCESS_ERR"). */
const char *m_status_set(uint32_t set, char *buf, unsigned int len);

#endif
