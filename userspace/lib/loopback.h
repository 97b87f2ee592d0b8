/*
 * loopback: the verbs setup the userspace tools share.  One RDMA device opened
 * by name with a PD, the GID of the loopback path, and pairs of RC QPs on that
 * device connected to each other, so that one process is both requester and
 * responder, and UD QPs made ready to send and receive.  Every call that fails
 * returns -1 (or NULL), leaves errno set and says in d->err what it could not
 * do, with the errno text; the caller prints that in its own format.  Built
 * into each tool that lists it in LIB (see ../common.mk).
 */
#ifndef RXE_ODP_LOOPBACK_H
#define RXE_ODP_LOOPBACK_H

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

/* An opened device. */
struct lb_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t port;
	struct ibv_port_attr port_attr;
	int gid_index;			/* -1 until lb_dev_gid() */
	union ibv_gid gid;		/* at gid_index: both ends of every pair */
	char err[256];			/* why the last failing call failed */
};

/* Open the device called name, query its port, allocate a PD.  On failure
 * what was set up stays in *d for lb_dev_close(). */
int lb_dev_open(struct lb_dev *d, const char *name, uint8_t port);

/* Choose the GID of the loopback path: the one at index, or with index < 0
 * the first IPv4-mapped one (::ffff:a.b.c.d, RoCEv2 over IPv4). */
int lb_dev_gid(struct lb_dev *d, int index);

/* The IPv4-mapped GID (::ffff:a.b.c.d, RoCEv2 over IPv4) of the dotted
 * address addr, another host's: 0, or -1 if addr is no IPv4 address. */
int lb_gid_ipv4(const char *addr, union ibv_gid *gid);

/* Release the PD and close the device (what of it was set up). */
void lb_dev_close(struct lb_dev *d);

struct lb_qp_tune;

/* How the two QPs of a pair are made and connected; the tools differ here. */
struct lb_pair_attr {
	int cqe_a;			/* entries of QP a's CQ */
	int cqe_b;			/* of QP b's; 0: b shares a's CQ */
	struct ibv_comp_channel *channel_a; /* events of QP a's CQ (lb_cq_poll_wait()); NULL: none */
	struct ibv_qp_cap cap;		/* of both QPs */
	struct ibv_srq *srq_b;		/* QP b receives from it (then no RQ) */
	int sq_sig_all;			/* every send WR completes signalled */
	unsigned int access;		/* qp_access_flags: remote ops accepted */
	enum ibv_mtu mtu;		/* 0: the port's active MTU */
	uint32_t psn;			/* first PSN, both directions */
	uint8_t max_rd_atomic;		/* READs/atomics in flight, both ways */
	uint8_t hop_limit;
	uint8_t timeout;		/* local ACK timeout, 4.096 us << timeout */
	const union ibv_gid *dgid;	/* lb_qp_connect()'s remote GID; NULL: d's */
	const struct lb_qp_tune *tune;	/* both QPs' (lb_qp_connect()); NULL: defaults */
};

/* One end: a QP and the CQ its sends and receives complete on. */
struct lb_end {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

/* Poll @cq, created on @ch, for up to @nwc completions into @wc, sleeping
 * on the channel while there are none (no polling loop competing for the
 * CPU with the work that completes them).  Returns the completions polled,
 * 0 when none came in @timeout_ms, -1 on an error (errno set, or a poll
 * error from ibv_poll_cq()). */
int lb_cq_poll_wait(struct ibv_comp_channel *ch, struct ibv_cq *cq, int nwc,
		    struct ibv_wc *wc, int timeout_ms);

/* Two RC QPs connected to each other: a posts, b answers (or both post). */
struct lb_pair {
	struct lb_end a, b;		/* b.cq == a.cq when they share it */
};

/* What lb_qp_connect() may set beyond lb_pair_attr; without it a QP gets
 * retry_cnt 7, rnr_retry 7 (both "forever"), min_rnr_timer 12 (0.64 ms)
 * and max_dest_rd_atomic = max_rd_atomic. */
struct lb_qp_tune {
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
	uint8_t max_dest_rd_atomic;	/* responder resources, 0 allowed */
};

/* Take qp (created on d, in RESET) to RTS, connected to QP number dqpn on
 * d's GID (or at->dgid's, another host's), with at's settings and tune's
 * (NULL: the defaults above). */
int lb_qp_connect(struct lb_dev *d, struct ibv_qp *qp, uint32_t dqpn,
		  const struct lb_pair_attr *at, const struct lb_qp_tune *tune);

/* Take a UD QP (created on d, in RESET) to RTS: pkey index 0, d's port,
 * Q_Key qkey, first send PSN psn.  A UD QP has no remote end, so there is
 * nothing to connect; this is here so that the tools do not each repeat
 * the three modify_qp calls and their masks. */
int lb_ud_ready(struct lb_dev *d, struct ibv_qp *qp, uint32_t qkey, uint32_t psn);

/* One end on d's PD: a CQ of at->cqe_a entries and an RC QP on it (in
 * RESET, at's cap and sq_sig_all) for lb_qp_connect(); on failure what was
 * made stays in *x for lb_end_destroy(), which frees the QP, then the CQ. */
int lb_end_create(struct lb_dev *d, struct lb_end *x, const struct lb_pair_attr *at);
void lb_end_destroy(struct lb_end *x);

/* Create a pair on d's PD and take both QPs to RTS (needs lb_dev_gid()).
 * On failure what was set up stays in *p for lb_pair_destroy(). */
int lb_pair_create(struct lb_dev *d, struct lb_pair *p, const struct lb_pair_attr *at);

/* Destroy both QPs, then their CQ(s); a zeroed pair is fine. */
void lb_pair_destroy(struct lb_pair *p);

/* ibv_reg_mr on d's PD: pinned, or On-Demand Paging when access has
 * IBV_ACCESS_ON_DEMAND; NULL with errno and d->err on failure. */
struct ibv_mr *lb_reg_mr(struct lb_dev *d, void *addr, size_t len, int access);

/* A page-aligned buffer of len bytes, every byte fill, registered pinned
 * with access: the source or target of the tools' transfers. */
struct lb_buf {
	char *addr;
	size_t len;
	struct ibv_mr *mr;
};

/* Allocate, fill and register *b; -1 with errno and d->err on failure, what
 * was set up staying in *b for lb_buf_free(). */
int lb_buf_new(struct lb_dev *d, struct lb_buf *b, size_t len, int fill, int access);

/* Deregister and free what of *b was set up; a zeroed buffer is fine. */
void lb_buf_free(struct lb_buf *b);

#endif
