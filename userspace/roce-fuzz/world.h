/*
 * The world the packet fuzzer aims at: RDMA objects it owns on the device
 * (memory regions of every kind with canaries around them, RC QP pairs,
 * requester QPs waiting for responses, UD QPs), the raw socket it sends
 * from, and the oracles that say whether rxe did something it may not.
 */
#ifndef ROCE_FUZZ_WORLD_H
#define ROCE_FUZZ_WORLD_H

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

#include "loopback.h"
#include "pkt.h"
#include "rng.h" /* userspace/lib: the fuzzers share one generator */

/* Memory regions, by role (index into world.mr[]). */
enum fz_mr_id {
	MR_PINNED,		/* remote RW + atomic, page aligned */
	MR_ODP,			/* the same, On-Demand Paging */
	MR_ODP_SUBPAGE,		/* ODP, starts and ends inside a page */
	MR_PINNED_SUBPAGE,	/* pinned, inside one page */
	MR_ODP_IOVA_HIGH,	/* ODP, iova just below 2^64 */
	MR_PINNED_IOVA_HIGH,	/* pinned, iova just below 2^64 */
	MR_ODP_IOVA_ZERO,	/* ODP, iova 0 */
	MR_PINNED_RO,		/* remote read only: never written */
	MR_ODP_RO,		/* the same, ODP */
	MR_ODP_ROPAGE,		/* ODP RW whose middle page is PROT_READ */
	MR_STALE_PINNED,	/* deregistered: never written again */
	MR_STALE_ODP,
	MR_LOCAL,		/* local write only: no remote access */
	MR_RECV,		/* receive buffers (slots) */
	MR_LOCAL_PINNED,	/* requester-side buffers */
	MR_LOCAL_ODP,
	FZ_NMR
};

struct fz_mr {
	const char *name;
	uint8_t *map;		/* the whole mapping, canaries included */
	size_t map_len;
	size_t off, len;	/* the MR window inside map */
	uint64_t iova;
	uint32_t rkey, lkey;
	int access;		/* IBV_ACCESS_* it was registered with */
	int odp, stale;
	size_t ro_off, ro_len;	/* a PROT_READ part of the window */
	struct ibv_mr *mr;
	uint8_t *shadow;	/* what map must hold */
};

#define FZ_MAX_PERMIT 512
struct fz_permit {
	int mr;
	size_t start, end;	/* window-relative */
};

/* Receive slots in MR_RECV: each slot's SGE starts FZ_SLOT_GAP bytes in,
 * so the gaps between SGEs are canaries inside the window. */
#define FZ_SLOT_GAP	64
#define FZ_SLOT_SIZE	(FZ_SLOT_GAP + GRH_BYTES + 8192 + FZ_SLOT_GAP)
#define FZ_NSLOTS	48
enum { SLOT_SENTINEL = 0, SLOT_UD0 = 4, SLOT_UD1 = 16, SLOT_RC = 28, SLOT_END = 40 };

struct fz_ud {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	uint32_t qkey;
	int slot0, nslots;	/* its receive slots */
	size_t sge_len;		/* bytes per receive */
};

/* A live QP the model knows about. */
enum fz_role { ROLE_NONE, ROLE_RESP_A, ROLE_RESP_B, ROLE_COMP_C, ROLE_COMP_D, ROLE_UD };

struct fz_qpref {
	uint32_t qpn;
	enum fz_role role;
	enum ibv_qp_type type;
	int state;		/* IBV_QPS_* */
	uint32_t qkey;		/* UD */
	int exposed;		/* a packet passed rxe's checks for it */
};

#define FZ_MAX_QPREF 16
#define FZ_MAX_DEAD 8

struct fz_world {
	struct lb_dev dev;
	int raw;			/* raw IPv4 socket */
	int kmsg;			/* /dev/kmsg, -1 if it cannot be read */
	struct fz_mr mr[FZ_NMR];
	struct fz_permit permit[FZ_MAX_PERMIT];
	int npermit;
	int permit_overflow;
	size_t slot_len[FZ_NSLOTS];	/* largest receive posted in a slot */
	struct fz_ud ud[2], sentinel;
	uint64_t sentinel_seq;
	uint32_t dead_qpn[FZ_MAX_DEAD];
	int ndead;
	struct fz_qpref qp[FZ_MAX_QPREF];
	int nqp;
	uint16_t ip_id;
	char err[512];			/* what the last failing call failed at */
	char finding[1024];		/* what the last oracle saw */
	int verbose;
	int no_odp;
};

/* no_odp: register the ODP MRs pinned (for rxe without ODP, e.g. stock). */
int fz_world_init(struct fz_world *w, const char *dev, uint64_t seed, int no_odp);
void fz_world_fini(struct fz_world *w);

/* Send one built packet from the raw socket. */
int fz_send(struct fz_world *w, const uint8_t *buf, size_t len);

/* A crafted UD SEND to the sentinel QP, waited for: every packet sent
 * before it has been through rxe_rcv().  0, or -1 with w->finding. */
int fz_sentinel(struct fz_world *w);
/* Startup proof that crafted packets reach rxe with a valid ICRC and that
 * a wrong ICRC is dropped; -1 with w->err if not. */
int fz_calibrate(struct fz_world *w);

/* Permits: rxe may change [start, end) of mr's window this batch. */
void fz_permit(struct fz_world *w, int mr, size_t start, size_t end);
/* The MR whose rkey this is (registered, not stale), or -1. */
int fz_mr_by_rkey(const struct fz_world *w, uint32_t rkey);
/* Permit [va, va + len) of the MR with rkey if the whole range lies in its
 * window, the part is not read-only and the MR allows access. */
void fz_permit_remote(struct fz_world *w, uint32_t rkey, uint64_t va, uint64_t len, int access);

/* Compare every MR mapping with its shadow; changes inside permits are
 * taken into the shadow.  Returns the number of violations (described in
 * w->finding), clears the permits. */
int fz_check_memory(struct fz_world *w);

/* Drop a few pages of an ODP MR (MADV_DONTNEED): invalidations, and
 * zero pages faulted in by the next access. */
void fz_odp_churn(struct fz_world *w, struct rng *r);

/* New kernel reports in /dev/kmsg since the last call: 1 (w->finding). */
int fz_check_kmsg(struct fz_world *w);

/* QP registry for the acceptance model. */
int fz_qp_add(struct fz_world *w, uint32_t qpn, enum fz_role role, enum ibv_qp_type type,
	      int state, uint32_t qkey);
void fz_qp_del(struct fz_world *w, uint32_t qpn);
struct fz_qpref *fz_qp_find(struct fz_world *w, uint32_t qpn);

/*
 * Would rxe_rcv() pass this packet (len bytes from the IPv4 header on) on
 * to a QP (headers, ICRC, QPN, state, P_Key, Q_Key, addresses)?  Returns
 * the QP's entry, or NULL when rxe drops it or it goes to a QP the fuzzer
 * does not own (QP1).  f gets the fields as rxe reads them; *certain is 0
 * when the outcome also depends on something the model does not decide.
 */
struct fz_qpref *fz_model_accepts(struct fz_world *w, const uint8_t *buf, size_t len,
				  struct roce_pkt *f, int *certain);

/* Post receive slot i of MR_RECV on qp with sge_len bytes. */
int fz_post_recv_slot(struct fz_world *w, struct ibv_qp *qp, int slot, size_t sge_len);
uint8_t *fz_slot_sge(struct fz_world *w, int slot);

/* RC pairs: a requester a and a responder b, connected (lb_pair). */
struct fz_pair {
	struct lb_pair p;
	struct lb_pair_attr at;
	unsigned int mtu;		/* bytes */
};
int fz_pair_new(struct fz_world *w, struct fz_pair *pr, struct rng *r, enum fz_role ra,
		enum fz_role rb);
void fz_pair_free(struct fz_world *w, struct fz_pair *pr);
/* Legitimate traffic a -> b (SEND into a receive, WRITE into MR_PINNED or
 * MR_ODP), every byte checked.  0, or -1 with w->finding. */
int fz_pair_traffic(struct fz_world *w, struct fz_pair *pr, struct rng *r);
/* Move a connected QP back to INIT (RESET, INIT): it drops every packet. */
int fz_qp_to_init(struct fz_world *w, struct ibv_qp *qp, unsigned int access);
/* Wait until the QP's requester has sent up to (not including) psn. */
int fz_wait_sq_psn(struct fz_world *w, struct ibv_qp *qp, uint32_t psn, int ms);

/* Poll cq for up to n completions within ms milliseconds. */
int fz_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms);

/* The final check: a fresh pair passes WRITE, READ, SEND and FETCH_ADD on
 * pinned and ODP memory. 0, or -1 with w->finding. */
int fz_final_check(struct fz_world *w, struct rng *r);

#endif
