/*
 * ring: the send queue of a librxe QP, written directly.  A user QP's send
 * queue is a ring of struct rxe_send_wqe that the process and the kernel
 * share (mmap'd from /dev/infiniband/uverbsN); librxe writes work requests
 * into it and the kernel reads them in place.  rdma-core 44's librxe cannot
 * post RDMA FLUSH (IB_WR_FLUSH, kernel 6.2+), so verbs-fuzz and
 * odp-selftest write such WQEs themselves; verbs-fuzz also writes WQEs that
 * librxe would never write (fields that disagree with each other), since
 * any process owning a QP can.  The layout is the kernel's uapi
 * (rdma/rdma_user_rxe.h, 6.12).  Built into each tool that lists it in LIB
 * (see ../common.mk).
 */
#ifndef RXE_ODP_RING_H
#define RXE_ODP_RING_H

#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <stdint.h>

/* IB_WR_FLUSH's part of the kernel's struct rxe_send_wr union (6.2+; not
 * in rdma-core 44's copy of the header) */
struct ring_flush_wr {
	uint64_t remote_addr;
	uint32_t length;
	uint32_t rkey;
	uint8_t type;
	uint8_t level;
};

#define RING_WR_FLUSH		14	/* IB_UVERBS_WR_FLUSH */
#define RING_WR_ATOMIC_WRITE	15	/* IB_UVERBS_WR_ATOMIC_WRITE */
#define RING_FLUSH_GLOBAL		1	/* IB_FLUSH_GLOBAL */
#define RING_FLUSH_PERSISTENT	2	/* IB_FLUSH_PERSISTENT */
#define RING_FLUSH_RANGE		0	/* IB_FLUSH_RANGE */
#define RING_FLUSH_MR		1	/* IB_FLUSH_MR */
#define RING_ACCESS_FLUSH_GLOBAL	(1 << 8)	/* IB_UVERBS_ACCESS_FLUSH_GLOBAL */
#define RING_ACCESS_FLUSH_PERSISTENT (1 << 9)

struct sq_ring {
	struct rxe_queue_buf *q;	/* NULL: not found */
	unsigned int slots;		/* index_mask + 1 */
	size_t elem;			/* bytes per WQE slot */
	struct ibv_qp *qp;		/* for the doorbell */
};

/* Find qp's send queue: the librxe QP object holds, after the ibv_qp_ex,
 * the mmap info and address of each ring; the candidate is accepted only
 * if /proc/self/maps shows a uverbs mapping there with the same file
 * offset and its header describes slots big enough for max_send_sge SGEs.
 * 0, or -1 with why in err. */
int ring_find_sq(struct ibv_qp *qp, unsigned int max_send_sge, struct sq_ring *r,
		 char *err, size_t errlen);

/* Free slots (the kernel's consumer index is in the shared header) */
unsigned int ring_space(const struct sq_ring *r);

/* The slot the next WQE goes to (zeroed), or NULL if the ring is full. */
struct rxe_send_wqe *ring_next(struct sq_ring *r);

/* Publish the WQE returned by ring_next() and ring the doorbell: a
 * post_send command with no work requests, which makes rxe run the QP's
 * send task.  0 or an errno value. */
int ring_post(struct sq_ring *r);

/* The doorbell alone. */
int ring_doorbell(const struct sq_ring *r);

#endif
