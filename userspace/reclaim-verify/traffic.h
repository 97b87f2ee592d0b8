/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What reclaim-verify's server.c and client.c share: buffers.c (buffer
 * pools and slots), xfer.c (posting, checking completions) and conn.c
 * (rdma_cm set-up). The layers call downwards only:
 *
 *   main.c -> server.c, client.c -> xfer.c -> buffers.c -> common.c
 *                                -> conn.c ----------------> common.c
 *
 * Slot ownership is what keeps the verification honest: a slot is BUSY while a
 * transaction owns it, and the reclaim thread only drops or remaps FREE slots.
 * The server's write-target slots are used by the *client* without the server
 * seeing the WRITE, so the server lends them: transaction n uses slot n mod S,
 * the client may run transactions acked+1 .. acked+W, and the server marks
 * slot (n+W) mod S BUSY before it acknowledges n (and frees slot n mod S after
 * verifying it).  Any slot outside that window is provably idle.
 */
#ifndef RV_TRAFFIC_H
#define RV_TRAFFIC_H

#include <netdb.h>

#include "rv.h"

/* wr_id: QP, work kind, slot, transaction number */
#define WRID(q, k, slot, n) (((uint64_t)(q) << 56) | ((uint64_t)(k) << 48) | \
			     ((uint64_t)((slot) & 0xffff) << 32) | ((n) & 0xffffffffu))
#define WRID_Q(w) ((unsigned)((w) >> 56))
#define WRID_K(w) ((unsigned)(((w) >> 48) & 0xff))
#define WRID_SLOT(w) ((int)(((w) >> 32) & 0xffff))
#define WRID_N(w) ((uint32_t)(w))
#define NOSLOT 0xffff

/* pattern streams: one per QP and direction */
static inline uint32_t stream_of(unsigned q, unsigned what)
{
	return (q << 8) | what;
}

#define ST_TGT 1
#define ST_C2S 2
#define ST_S2C 3

static inline bool op_on(const struct rv_ctx *ctx, enum rv_op op)
{
	return ctx->cfg.op[op];
}

/* buffers.c (rv_working_set() is in rv.h, for main.c) */
struct rv_buf *rv_buf_new(struct rv_ctx *ctx, struct ibv_pd *pd, enum rv_role role, unsigned q);
void rv_buf_free(struct rv_buf *b);
/* Deregister pd's implicit MR (--implicit), once pd's buffers are freed. */
void rv_implicit_release(struct rv_ctx *ctx, struct ibv_pd *pd);
int rv_slot_alloc(struct rv_buf *b);
void rv_slot_free(struct rv_buf *b, int s);
void rv_slot_take(struct rv_buf *b, unsigned s);
void rv_slot_return(struct rv_buf *b, unsigned s);
static inline uint8_t *rv_slot_ptr(struct rv_buf *b, int s)
{
	return b->base + (size_t)s * b->slot;
}

/* xfer.c */
enum pat_class rv_verify(struct rv_ctx *ctx, enum rv_where w, const void *p, size_t len,
			 uint32_t stream, uint64_t off, uint64_t gen, bool pinned_path,
			 const char *what, unsigned q);
int rv_post_send(struct rv_ctx *ctx, struct ibv_qp *qp, uint64_t wr_id,
		 enum ibv_wr_opcode op, void *addr, uint32_t len, struct ibv_mr *mr,
		 uint64_t raddr, uint32_t rkey, uint32_t imm, uint64_t cmp, uint64_t swp);
int rv_post_recv(struct rv_ctx *ctx, struct ibv_qp *qp, struct rv_buf *b, unsigned q);
void rv_count_error(struct rv_ctx *ctx, const struct ibv_wc *wc, const char *side,
		    bool *first_seen);

/* conn.c */
int rv_get_addr(struct rv_ctx *ctx, const char *host, unsigned port, bool passive,
		struct sockaddr_storage *ss);
int rv_wait_cm(struct rv_ctx *ctx, struct rdma_event_channel *ec,
	       enum rdma_cm_event_type want, struct rdma_cm_event **out, int timeout_ms);
void rv_set_nonblock(int fd);
int rv_check_odp_caps(struct rv_ctx *ctx, struct ibv_context *vctx);
int rv_set_ack_timeout(struct rv_ctx *ctx, struct rdma_cm_id *id);
/* Disconnect a connection and destroy its QP (if made), CQ (if made) and id. */
void rv_conn_destroy(struct rdma_cm_id *id, struct ibv_cq *cq);
/* Release what each side opened first: completion channel, PD, event
 * channel (each if made; a side's QPs must be gone). */
void rv_dev_release(struct ibv_comp_channel *cc, struct ibv_pd *pd,
		    struct rdma_event_channel *ec);

#endif
