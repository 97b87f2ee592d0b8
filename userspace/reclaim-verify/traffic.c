// SPDX-License-Identifier: GPL-2.0
/*
 * Buffers, memory regions, rdma_cm connections and the transaction engines.
 *
 * Slot ownership is what keeps the verification honest: a slot is BUSY while a
 * transaction owns it, and the reclaim thread only drops or remaps FREE slots.
 * The server's write-target slots are used by the *client* without the server
 * seeing the WRITE, so the server lends them: transaction n uses slot n mod S,
 * the client may run transactions acked+1 .. acked+W, and the server marks
 * slot (n+W) mod S BUSY before it acknowledges n (and frees slot n mod S after
 * verifying it).  Any slot outside that window is provably idle.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rv.h"

#define WRID(q, k, slot, n) (((uint64_t)(q) << 56) | ((uint64_t)(k) << 48) | \
			     ((uint64_t)((slot) & 0xffff) << 32) | ((n) & 0xffffffffu))
#define WRID_Q(w) ((unsigned)((w) >> 56))
#define WRID_K(w) ((unsigned)(((w) >> 48) & 0xff))
#define WRID_SLOT(w) ((int)(((w) >> 32) & 0xffff))
#define WRID_N(w) ((uint32_t)(w))
#define NOSLOT 0xffff

static uint32_t stream_of(unsigned q, unsigned what)
{
	return (q << 8) | what;
}

#define ST_TGT 1
#define ST_C2S 2
#define ST_S2C 3

static bool op_on(const struct rv_ctx *ctx, enum rv_op op)
{
	return ctx->cfg.op[op];
}

/* ---------- buffers ---------- */

static unsigned pool_slots(const struct rv_config *cfg, enum rv_role role)
{
	unsigned w = cfg->window;

	switch (role) {
	case ROLE_TGT:
		return (unsigned)(cfg->target / cfg->block);
	case ROLE_RCV:
	case ROLE_ACKSRC:
		return 2 * w + 6;
	case ROLE_SRC:
		return 3 * w + 6;
	case ROLE_DST:
		return 3 * w + 6;
	case ROLE_ATOM:
	default:
		return 1;
	}
}

static size_t role_size(const struct rv_config *cfg, enum rv_role role)
{
	if (role == ROLE_ATOM)
		return 4096;
	return (size_t)pool_slots(cfg, role) * cfg->block;
}

/* Buffers of 1 MiB or more are padded to whole 2 MiB chunks for THP. */
static size_t map_size(size_t size)
{
	return size >= RV_HUGE / 2 ? (size + RV_HUGE - 1) / RV_HUGE * RV_HUGE : size;
}

size_t rv_working_set(const struct rv_config *cfg, bool server, bool client)
{
	size_t per = 0;

	if (server)
		per += map_size(role_size(cfg, ROLE_TGT)) + map_size(role_size(cfg, ROLE_RCV)) +
		       map_size(role_size(cfg, ROLE_ACKSRC)) + role_size(cfg, ROLE_ATOM);
	if (client)
		per += map_size(role_size(cfg, ROLE_SRC)) + map_size(role_size(cfg, ROLE_DST));
	return per * cfg->qps;
}

static const char *const role_names[RV_NROLES] = {
	"tgt", "rcv", "acksrc", "atom", "src", "dst",
};

static struct rv_buf *buf_new(struct rv_ctx *ctx, struct ibv_pd *pd, enum rv_role role,
			      unsigned q)
{
	const struct rv_config *cfg = &ctx->cfg;
	struct rv_buf *b = calloc(1, sizeof(*b));
	size_t size = role_size(cfg, role), msize = map_size(size);
	int access = 0;
	uint8_t *p;

	if (!b)
		return NULL;
	b->ctx = ctx;
	b->role = role;
	b->qp = q;
	b->slot = role == ROLE_ATOM ? 4096 : cfg->block;
	b->size = msize;
	/* Pools use the padding as extra slots; the target must match the client's S. */
	b->nslots = role == ROLE_TGT || role == ROLE_ATOM ? pool_slots(cfg, role) :
		    (unsigned)(msize / b->slot);
	snprintf(b->name, sizeof(b->name), "qp%u.%s", q, role_names[role]);
	/* Huge-page aligned, so THP collapse/split have whole 2 MiB chunks to work on. */
	p = mmap(NULL, msize + (msize >= RV_HUGE ? RV_HUGE : 0), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		rv_fatal(ctx, "mmap %zu bytes: %s", msize, strerror(errno));
		free(b);
		return NULL;
	}
	if (msize >= RV_HUGE) {
		uintptr_t a = ((uintptr_t)p + RV_HUGE - 1) & ~(uintptr_t)(RV_HUGE - 1);
		size_t head = a - (uintptr_t)p;

		if (head)
			munmap(p, head);
		if (RV_HUGE - head)
			munmap((uint8_t *)a + msize, RV_HUGE - head);
		p = (uint8_t *)a;
	}
	b->base = p;
	/* Fault every page in before registration: a pinned MR must not pin the
	 * shared zero page, and both kinds start from the same state. */
	memset(p, 0, msize);
	b->state = calloc(b->nslots, 1);
	b->evmark = calloc(b->nslots, 1);
	b->dropped = calloc(b->nslots, 1);
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	pthread_rwlock_init(&b->fill, NULL);

	switch (role) {
	case ROLE_TGT:
		access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
		b->destructive_ok = true;
		break;
	case ROLE_ATOM:
		access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_READ;
		break;
	case ROLE_RCV:
	case ROLE_DST:
		access = IBV_ACCESS_LOCAL_WRITE;
		b->destructive_ok = true;
		break;
	case ROLE_ACKSRC:
	case ROLE_SRC:
		access = 0;	/* the NIC only reads these: they may go read-only */
		b->nic_reads_only = true;
		b->destructive_ok = true;
		break;
	default:
		break;
	}
	pthread_mutex_lock(&ctx->reg_lock);
	if (cfg->mr == RV_MR_PINNED)
		b->pinned = true;
	else if (cfg->mr == RV_MR_MIX)
		b->pinned = ctx->buf_seq & 1;
	ctx->buf_seq++;
	pthread_mutex_unlock(&ctx->reg_lock);
	if (!b->pinned)
		access |= IBV_ACCESS_ON_DEMAND;
	b->mr = ibv_reg_mr(pd, b->base, b->size, access);
	if (!b->mr) {
		int e = errno;

		rv_fatal(ctx, "ibv_reg_mr(%s, %zu bytes, %s) failed: %s%s", b->name, b->size,
			 b->pinned ? "pinned" : "ODP", strerror(e),
			 !b->pinned && (e == EOPNOTSUPP || e == EINVAL) ?
			 " (this device/driver has no On-Demand Paging; try --pinned)" : "");
		return NULL;
	}
	pthread_mutex_lock(&ctx->reg_lock);
	if (ctx->nbufs < RV_MAXBUF)
		ctx->bufs[ctx->nbufs++] = b;
	pthread_mutex_unlock(&ctx->reg_lock);
	return b;
}

static void buf_free(struct rv_buf *b)
{
	if (!b)
		return;
	if (b->mr)
		ibv_dereg_mr(b->mr);
	munmap(b->base, b->size);
	free(b->state);
	free(b->evmark);
	free(b->dropped);
	free(b);
}

/* NIC about to use slot s: count it if a destructive event hit it since. */
static void note_reaccess(struct rv_buf *b, unsigned s)
{
	if (b->evmark[s]) {
		atomic_fetch_add(&b->ctx->ev.reaccess[b->evmark[s] - 1], 1);
		b->evmark[s] = 0;
	}
}

static int slot_alloc(struct rv_buf *b)
{
	unsigned i, s;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		for (i = 0; i < b->nslots; i++) {
			s = (b->cursor + i) % b->nslots;
			if (b->state[s] == SLOT_FREE) {
				b->state[s] = SLOT_BUSY;
				b->cursor = s + 1;
				note_reaccess(b, s);
				pthread_mutex_unlock(&b->lock);
				return (int)s;
			}
		}
		pthread_cond_wait(&b->cond, &b->lock);
	}
}

static void slot_free(struct rv_buf *b, int s)
{
	if (s < 0 || s == NOSLOT)
		return;
	pthread_mutex_lock(&b->lock);
	b->state[s] = SLOT_FREE;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

/* Server lends target slot s to the client (waits out a reclaim in progress). */
static void slot_take(struct rv_buf *b, unsigned s)
{
	pthread_mutex_lock(&b->lock);
	while (b->state[s] == SLOT_RECLAIM)
		pthread_cond_wait(&b->cond, &b->lock);
	b->state[s] = SLOT_BUSY;
	note_reaccess(b, s);
	pthread_mutex_unlock(&b->lock);
	atomic_fetch_add(&b->inflight, 1);
}

static void slot_return(struct rv_buf *b, unsigned s)
{
	atomic_fetch_sub(&b->inflight, 1);
	slot_free(b, (int)s);
}

static uint8_t *slot_ptr(struct rv_buf *b, int s)
{
	return b->base + (size_t)s * b->slot;
}

/* ---------- verification ---------- */

static enum pat_class verify(struct rv_ctx *ctx, enum rv_where w, const void *p, size_t len,
			     uint32_t stream, uint64_t off, uint64_t gen, bool pinned_path,
			     const char *what, unsigned q)
{
	static const char *const wn[RV_NWHERE] = {
		"server: written block", "server: received message",
		"client: read-back", "client: received ack",
	};
	struct pat_result r;

	atomic_fetch_add(&ctx->st.verified[w], 1);
	if (!pat_check(p, len, stream, off, gen, &r)) {
		atomic_fetch_add(&ctx->st.cls[w][PAT_OK], 1);
		return PAT_OK;
	}
	atomic_fetch_add(&ctx->st.cls[w][r.cls], 1);
	atomic_fetch_add(&ctx->st.bad_bytes, r.bad_bytes);
	if (pat_class_is_stale(r.cls) && pinned_path)
		atomic_fetch_add(&ctx->st.stale_explained, 1);
	else
		atomic_fetch_add(&ctx->st.unexplained, 1);
	if (ctx->cfg.verbose || atomic_fetch_add(&ctx->st.mismatches_printed, 1) < 5)
		fprintf(stderr,
			"%s: MISMATCH %s qp %u %s gen %llu: %s, %zu bad bytes in %u pages, first at +%zu; found stream %#x off %llu gen %llu%s\n",
			ctx->prog, wn[w], q, what, (unsigned long long)gen, pat_class_name(r.cls),
			r.bad_bytes, r.bad_pages, r.first_bad, r.found_stream,
			(unsigned long long)r.found_off, (unsigned long long)r.found_gen,
			pinned_path ? " (pinned memory on the path)" : "");
	return r.cls;
}

/* ---------- posting ---------- */

static int post_send(struct rv_ctx *ctx, struct ibv_qp *qp, uint64_t wr_id,
		     enum ibv_wr_opcode op, void *addr, uint32_t len, struct ibv_mr *mr,
		     uint64_t raddr, uint32_t rkey, uint32_t imm, uint64_t cmp, uint64_t swp)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = mr ? mr->lkey : 0 };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = len ? 1 : 0,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int rc;

	if (op == IBV_WR_SEND_WITH_IMM)
		wr.imm_data = htonl(imm);
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = cmp;
		wr.wr.atomic.swap = swp;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	rc = ibv_post_send(qp, &wr, &bad);
	if (rc)
		rv_fatal(ctx, "ibv_post_send: %s", strerror(rc));
	return rc;
}

static int post_recv(struct rv_ctx *ctx, struct ibv_qp *qp, struct rv_buf *b, unsigned q)
{
	int s = slot_alloc(b);
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot_ptr(b, s), .length = (uint32_t)b->slot, .lkey = b->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = WRID(q, WK_RECV, s, 0), .sg_list = &sge, .num_sge = 1 }, *bad;
	int rc;

	atomic_fetch_add(&b->inflight, 1);
	rc = ibv_post_recv(qp, &wr, &bad);
	if (rc)
		rv_fatal(ctx, "ibv_post_recv: %s", strerror(rc));
	return rc;
}

static void count_error(struct rv_ctx *ctx, const struct ibv_wc *wc, const char *side,
			bool *first_seen)
{
	unsigned k = WRID_K(wc->wr_id), st = wc->status < 32 ? wc->status : 31;

	if (k >= RV_NWK)
		k = 0;
	atomic_fetch_add(&ctx->st.err[k][st], 1);
	if (wc->status != IBV_WC_WR_FLUSH_ERR)
		fprintf(stderr, "%s: %s qp %u: error completion %s (%d) on work kind %u, vendor_err %#x\n",
			ctx->prog, side, WRID_Q(wc->wr_id), ibv_wc_status_str(wc->status),
			wc->status, k, wc->vendor_err);
	else if (!*first_seen)
		fprintf(stderr, "%s: %s qp %u: work requests flushed, but no error completion came first (work kind %u)\n",
			ctx->prog, side, WRID_Q(wc->wr_id), k);
	*first_seen = true;
}

/* ---------- rdma_cm helpers ---------- */

static int get_addr(struct rv_ctx *ctx, const char *host, unsigned port, bool passive,
		    struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0) }, *ai;
	char ps[16];
	int rc;

	snprintf(ps, sizeof(ps), "%u", port);
	rc = getaddrinfo(host, ps, &hints, &ai);
	if (rc) {
		rv_fatal(ctx, "address '%s': %s", host, gai_strerror(rc));
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
}

static int wait_cm(struct rv_ctx *ctx, struct rdma_event_channel *ec,
		   enum rdma_cm_event_type want, struct rdma_cm_event **out, int timeout_ms)
{
	struct pollfd pfd = { .fd = ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, timeout_ms) <= 0) {
		rv_fatal(ctx, "rdma_cm: timed out waiting for %s", rdma_event_str(want));
		return -1;
	}
	if (rdma_get_cm_event(ec, &ev)) {
		rv_fatal(ctx, "rdma_get_cm_event: %s", strerror(errno));
		return -1;
	}
	if (ev->event == RDMA_CM_EVENT_REJECTED && ev->status == 8) {
		/* IB CM reject reason 8: invalid service ID, nobody listens there */
		rv_fatal(ctx, "rdma_cm: connection rejected: no reclaim-verify server listening at %s port %u (start it first)",
			 ctx->cfg.addr, ctx->cfg.port);
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (ev->event != want) {
		rv_fatal(ctx, "rdma_cm: got %s (status %d) while waiting for %s",
			 rdma_event_str(ev->event), ev->status, rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -1;
	}
	*out = ev;
	return 0;
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int check_odp_caps(struct rv_ctx *ctx, struct ibv_context *vctx)
{
	struct ibv_device_attr_ex ax;
	uint32_t need = IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV | IBV_ODP_SUPPORT_WRITE |
			IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC;

	if (ctx->cfg.mr == RV_MR_PINNED)
		return 0;
	memset(&ax, 0, sizeof(ax));
	if (ibv_query_device_ex(vctx, NULL, &ax)) {
		rv_fatal(ctx, "ibv_query_device_ex: %s", strerror(errno));
		return -1;
	}
	if (!(ax.odp_caps.general_caps & IBV_ODP_SUPPORT) ||
	    (ax.odp_caps.per_transport_caps.rc_odp_caps & need) != need) {
		rv_fatal(ctx, "%s has no On-Demand Paging for RC SEND/RECV/WRITE/READ/ATOMIC "
			 "(general caps %#llx, rc caps %#x): load an ODP-capable driver or use --pinned",
			 ibv_get_device_name(vctx->device),
			 (unsigned long long)ax.odp_caps.general_caps,
			 ax.odp_caps.per_transport_caps.rc_odp_caps);
		return -1;
	}
	return 0;
}

/* ---------- server ---------- */

int rv_server_start(struct rv_ctx *ctx, struct rv_server *s)
{
	struct sockaddr_storage ss;

	s->ctx = ctx;
	s->ec = rdma_create_event_channel();
	if (!s->ec) {
		rv_fatal(ctx, "rdma_create_event_channel: %s (is rdma_ucm loaded?)", strerror(errno));
		return -1;
	}
	if (rdma_create_id(s->ec, &s->listen, s, RDMA_PS_TCP)) {
		rv_fatal(ctx, "rdma_create_id: %s", strerror(errno));
		return -1;
	}
	if (get_addr(ctx, ctx->cfg.addr, ctx->cfg.port, true, &ss))
		return -1;
	if (rdma_bind_addr(s->listen, (struct sockaddr *)&ss)) {
		rv_fatal(ctx, "rdma_bind_addr %s:%u: %s", ctx->cfg.addr, ctx->cfg.port, strerror(errno));
		return -1;
	}
	if (rdma_listen(s->listen, RV_MAXQP)) {
		rv_fatal(ctx, "rdma_listen: %s", strerror(errno));
		return -1;
	}
	set_nonblock(s->ec->fd);
	atomic_store(&s->ready, true);
	return 0;
}

static void srv_ack(struct rv_sqp *sq, uint64_t n, enum pat_class ct, enum pat_class cm)
{
	struct rv_ctx *ctx = sq->ctx;
	uint32_t imm = (uint32_t)(n & ACK_N_MASK) | ((uint32_t)ct << 24) | ((uint32_t)cm << 28);
	int m = NOSLOT;
	void *addr = NULL;
	uint32_t len = 0;

	if (op_on(ctx, RV_OP_SEND)) {
		m = slot_alloc(sq->acksrc);
		addr = slot_ptr(sq->acksrc, m);
		len = (uint32_t)ctx->cfg.block;
		pthread_rwlock_rdlock(&sq->acksrc->fill);
		pat_fill(addr, len, stream_of(sq->q, ST_S2C), 0, n);
		pthread_rwlock_unlock(&sq->acksrc->fill);
		atomic_fetch_add(&sq->acksrc->inflight, 1);
	}
	post_send(ctx, sq->id->qp, WRID(sq->q, WK_SEND, m, n), IBV_WR_SEND_WITH_IMM, addr, len,
		  sq->acksrc->mr, 0, 0, imm, 0, 0);
}

static void srv_notice(struct rv_sqp *sq, const struct ibv_wc *wc)
{
	struct rv_ctx *ctx = sq->ctx;
	uint32_t imm = ntohl(wc->imm_data);
	int rs = WRID_SLOT(wc->wr_id);
	unsigned W = sq->h.window, S = sq->h.nslots, ts;
	uint64_t n = sq->next_n;
	enum pat_class ct = PAT_OK, cm = PAT_OK;

	atomic_fetch_sub(&sq->rcv->inflight, 1);
	if (!(wc->wc_flags & IBV_WC_WITH_IMM)) {
		rv_fatal(ctx, "server qp %u: message without immediate data", sq->q);
		sq->dead = true;
		return;
	}
	if (imm & IMM_FIN) {
		slot_free(sq->rcv, rs);
		sq->fin = true;
		post_send(ctx, sq->id->qp, WRID(sq->q, WK_FINSEND, NOSLOT, 0), IBV_WR_SEND_WITH_IMM,
			  NULL, 0, NULL, 0, 0, ACK_FIN, 0, 0);
		return;
	}
	if ((imm & IMM_N_MASK) != (n & IMM_N_MASK)) {
		rv_fatal(ctx, "server qp %u: notice for transaction %u, expected %llu", sq->q,
			 imm & IMM_N_MASK, (unsigned long long)n);
		sq->dead = true;
		return;
	}
	ts = (unsigned)(n % S);
	if (op_on(ctx, RV_OP_WRITE)) {
		bool pinned = sq->tgt->pinned || (imm & IMM_SRC_PINNED);

		ct = verify(ctx, W_TGT, slot_ptr(sq->tgt, (int)ts), ctx->cfg.block,
			    stream_of(sq->q, ST_TGT), (uint64_t)ts * ctx->cfg.block, n, pinned,
			    "target slot", sq->q);
	}
	if (op_on(ctx, RV_OP_SEND)) {
		bool pinned = sq->rcv->pinned || (imm & IMM_MSG_PINNED);

		if (wc->byte_len != ctx->cfg.block) {
			rv_fatal(ctx, "server qp %u: message of %u bytes, expected %zu", sq->q,
				 wc->byte_len, ctx->cfg.block);
			sq->dead = true;
			return;
		}
		cm = verify(ctx, W_RCV, slot_ptr(sq->rcv, rs), ctx->cfg.block,
			    stream_of(sq->q, ST_C2S), 0, n, pinned, "message", sq->q);
	}
	atomic_fetch_add(&ctx->st.bytes, wc->byte_len);
	slot_free(sq->rcv, rs);
	post_recv(ctx, sq->id->qp, sq->rcv, sq->q);
	/* Transaction n is over: its slot goes home, the client may start n+W. */
	slot_return(sq->tgt, ts);
	slot_take(sq->tgt, (unsigned)((n + W) % S));
	sq->next_n++;
	if (ctx->cfg.mode == RV_SERVER)
		atomic_fetch_add(&ctx->st.txns, 1);
	srv_ack(sq, n, ct, cm);
}

/* Count a server QP as finished once (FIN received or dead). */
static void srv_done(struct rv_server *s, struct rv_sqp *sq)
{
	if ((sq->fin || sq->dead) && !sq->counted) {
		sq->counted = true;
		s->nfin++;
	}
}

static void srv_completion(struct rv_server *s, const struct ibv_wc *wc)
{
	struct rv_ctx *ctx = s->ctx;
	unsigned q = WRID_Q(wc->wr_id);
	struct rv_sqp *sq;

	if (q >= RV_MAXQP || !s->qp[q].used)
		return;
	sq = &s->qp[q];
	if (wc->status != IBV_WC_SUCCESS) {
		count_error(ctx, wc, "server", &sq->err_seen);
		sq->dead = true;
		srv_done(s, sq);
		return;
	}
	atomic_fetch_add(&ctx->completions, 1);
	switch (WRID_K(wc->wr_id)) {
	case WK_RECV:
		atomic_fetch_add(&ctx->st.ops[WK_RECV], 1);
		srv_notice(sq, wc);
		srv_done(s, sq);
		break;
	case WK_SEND:
		atomic_fetch_add(&ctx->st.ops[WK_SEND], 1);
		if (WRID_SLOT(wc->wr_id) != NOSLOT) {
			atomic_fetch_sub(&sq->acksrc->inflight, 1);
			slot_free(sq->acksrc, WRID_SLOT(wc->wr_id));
		}
		break;
	default:
		break;
	}
}

/* --ack-timeout: the Local ACK Timeout of the QP behind ID (before connect/accept). */
static int set_ack_timeout(struct rv_ctx *ctx, struct rdma_cm_id *id)
{
	uint8_t t;

	if (ctx->cfg.ack_timeout < 0)
		return 0;
	t = (uint8_t)ctx->cfg.ack_timeout;
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t))) {
		rv_fatal(ctx, "rdma_set_option(ACK_TIMEOUT %u): %s", t, strerror(errno));
		return -1;
	}
	return 0;
}

static int srv_connect_request(struct rv_server *s, struct rdma_cm_event *ev)
{
	struct rv_ctx *ctx = s->ctx;
	struct rdma_cm_id *id = ev->id;
	struct rv_hello h;
	struct rv_welcome wl;
	struct rv_sqp *sq;
	struct ibv_qp_init_attr qa;
	struct rdma_conn_param cp;
	unsigned i;

	memset(&h, 0, sizeof(h));
	if (ev->param.conn.private_data_len >= sizeof(h))
		memcpy(&h, ev->param.conn.private_data, sizeof(h));
	if (h.magic != RV_MAGIC || h.qp_index >= RV_MAXQP || h.nqps < 1 || h.nqps > RV_MAXQP ||
	    h.qp_index >= h.nqps || h.window < 1 || h.window > 64 ||
	    h.nslots < 2 * h.window || h.block != ctx->cfg.block || s->qp[h.qp_index].used) {
		fprintf(stderr, "%s: server: rejecting a connection (not ours, or block size %u != ours %zu: pass the same --block)\n",
			ctx->prog, h.block, ctx->cfg.block);
		rdma_reject(id, NULL, 0);
		return 0;
	}
	if (!s->pd) {
		if (check_odp_caps(ctx, id->verbs))
			return -1;
		snprintf(ctx->dev, sizeof(ctx->dev), "%s", ibv_get_device_name(id->verbs->device));
		s->pd = ibv_alloc_pd(id->verbs);
		s->cc = ibv_create_comp_channel(id->verbs);
		if (!s->pd || !s->cc || ibv_query_device(id->verbs, &s->dattr)) {
			rv_fatal(ctx, "server: PD/completion channel: %s", strerror(errno));
			return -1;
		}
		set_nonblock(s->cc->fd);
		s->nqps = h.nqps;
	}
	/* The client's parameters decide the window and the target size. */
	ctx->cfg.window = h.window;
	ctx->cfg.qps = h.nqps;
	ctx->cfg.target = (size_t)h.nslots * ctx->cfg.block;
	rv_ops_from_wire(&ctx->cfg, h.ops);
	sq = &s->qp[h.qp_index];
	memset(sq, 0, sizeof(*sq));
	sq->ctx = ctx;
	sq->id = id;
	sq->q = h.qp_index;
	sq->h = h;
	sq->next_n = 1;
	sq->tgt = buf_new(ctx, s->pd, ROLE_TGT, sq->q);
	sq->rcv = sq->tgt ? buf_new(ctx, s->pd, ROLE_RCV, sq->q) : NULL;
	sq->acksrc = sq->rcv ? buf_new(ctx, s->pd, ROLE_ACKSRC, sq->q) : NULL;
	sq->atom = sq->acksrc ? buf_new(ctx, s->pd, ROLE_ATOM, sq->q) : NULL;
	if (!sq->atom)
		return -1;
	sq->cq = ibv_create_cq(id->verbs, 8 * h.window + 32, sq, s->cc, 0);
	if (!sq->cq || ibv_req_notify_cq(sq->cq, 0)) {
		rv_fatal(ctx, "server: ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = sq->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 3 * h.window + 8;
	qa.cap.max_recv_wr = 2 * h.window + 8;
	qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, s->pd, &qa)) {
		rv_fatal(ctx, "server: rdma_create_qp: %s", strerror(errno));
		return -1;
	}
	sq->used = true;
	for (i = 0; i < h.window + 1; i++)
		if (post_recv(ctx, id->qp, sq->rcv, sq->q))
			return -1;
	/* Lend the first window of target slots; the atomic counters are always in use. */
	for (i = 1; i <= h.window; i++)
		slot_take(sq->tgt, i % h.nslots);
	atomic_store(&sq->atom->inflight, (int)h.window);
	memset(&wl, 0, sizeof(wl));
	wl.magic = RV_MAGIC;
	wl.flags = (sq->tgt->pinned << ROLE_TGT) | (sq->rcv->pinned << ROLE_RCV) |
		   (sq->acksrc->pinned << ROLE_ACKSRC) | (sq->atom->pinned << ROLE_ATOM);
	wl.tgt_addr = (uintptr_t)sq->tgt->base;
	wl.tgt_rkey = sq->tgt->mr->rkey;
	wl.atom_addr = (uintptr_t)sq->atom->base;
	wl.atom_rkey = sq->atom->mr->rkey;
	memset(&cp, 0, sizeof(cp));
	cp.private_data = &wl;
	cp.private_data_len = sizeof(wl);
	cp.responder_resources = ev->param.conn.initiator_depth;
	if (cp.responder_resources > s->dattr.max_qp_rd_atom)
		cp.responder_resources = (uint8_t)s->dattr.max_qp_rd_atom;
	cp.initiator_depth = 1;
	cp.rnr_retry_count = 7;
	if (set_ack_timeout(ctx, id))
		return -1;
	if (rdma_accept(id, &cp)) {
		rv_fatal(ctx, "server: rdma_accept: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int srv_cm_events(struct rv_server *s)
{
	struct rdma_cm_event *ev;
	struct rv_ctx *ctx = s->ctx;
	unsigned i;

	while (!rdma_get_cm_event(s->ec, &ev)) {
		int rc = 0;

		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			rc = srv_connect_request(s, ev);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			for (i = 0; i < RV_MAXQP; i++)
				if (s->qp[i].used && s->qp[i].id == ev->id)
					s->qp[i].established = true;
			atomic_store(&ctx->traffic_started, true);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			for (i = 0; i < RV_MAXQP; i++)
				if (s->qp[i].used && s->qp[i].id == ev->id && !s->qp[i].fin &&
				    !s->qp[i].dead) {
					fprintf(stderr, "%s: server: qp %u disconnected before FIN\n",
						ctx->prog, i);
					s->qp[i].dead = true;
					srv_done(s, &s->qp[i]);
				}
			break;
		default:
			break;
		}
		rdma_ack_cm_event(ev);
		if (rc)
			return rc;
	}
	return 0;
}

void *rv_server_main(void *arg)
{
	struct rv_server *s = arg;
	struct rv_ctx *ctx = s->ctx;
	struct ibv_wc wc[32];

	for (;;) {
		struct pollfd pfd[2] = { { .fd = s->ec->fd, .events = POLLIN },
					 { .fd = s->cc ? s->cc->fd : -1, .events = POLLIN } };

		if (s->nqps && s->nfin >= s->nqps)
			break;
		if (atomic_load(&ctx->failed) && ctx->cfg.mode != RV_LOOPBACK)
			break;
		/* in one process, a client QP that died never sends its FIN */
		if (atomic_load(&ctx->client_done))
			break;
		poll(pfd, 2, 100);
		if (srv_cm_events(s)) {
			s->rc = -1;
			atomic_store(&ctx->failed, 1);
			break;
		}
		if (s->cc) {
			struct ibv_cq *cq;
			void *cqctx;

			while (!ibv_get_cq_event(s->cc, &cq, &cqctx)) {
				ibv_ack_cq_events(cq, 1);
				ibv_req_notify_cq(cq, 0);
			}
			for (unsigned i = 0; i < RV_MAXQP; i++) {
				int n, k;

				if (!s->qp[i].used)
					continue;
				while ((n = ibv_poll_cq(s->qp[i].cq, 32, wc)) > 0)
					for (k = 0; k < n; k++)
						srv_completion(s, &wc[k]);
			}
		}
	}
	return NULL;
}

void rv_server_cleanup(struct rv_server *s)
{
	unsigned i;

	for (i = 0; i < RV_MAXQP; i++) {
		struct rv_sqp *sq = &s->qp[i];

		if (!sq->used)
			continue;
		rdma_disconnect(sq->id);
		rdma_destroy_qp(sq->id);
		ibv_destroy_cq(sq->cq);
		rdma_destroy_id(sq->id);
		buf_free(sq->tgt);
		buf_free(sq->rcv);
		buf_free(sq->acksrc);
		buf_free(sq->atom);
	}
	if (s->cc)
		ibv_destroy_comp_channel(s->cc);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->listen)
		rdma_destroy_id(s->listen);
	if (s->ec)
		rdma_destroy_event_channel(s->ec);
}

/* ---------- client ---------- */

static uint64_t mixn(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static void cli_notice(struct rv_cqp *cq, uint64_t n)
{
	struct rv_ctx *ctx = cq->ctx;
	struct rv_txn *t = &cq->tx[n % ctx->cfg.window];
	uint32_t imm = (uint32_t)(n & IMM_N_MASK), len = 0;
	int m = NOSLOT;
	void *addr = NULL;

	if (t->dst >= 0) {
		atomic_fetch_sub(&cq->dst->inflight, 1);
		slot_free(cq->dst, t->dst);
		t->dst = -1;
	}
	if (t->src_pinned)
		imm |= IMM_SRC_PINNED;
	if (op_on(ctx, RV_OP_SEND)) {
		m = slot_alloc(cq->src);
		addr = slot_ptr(cq->src, m);
		len = (uint32_t)ctx->cfg.block;
		pthread_rwlock_rdlock(&cq->src->fill);
		pat_fill(addr, len, stream_of(cq->q, ST_C2S), 0, n);
		pthread_rwlock_unlock(&cq->src->fill);
		atomic_fetch_add(&cq->src->inflight, 1);
		if (cq->src->pinned)
			imm |= IMM_MSG_PINNED;
	}
	post_send(ctx, cq->id->qp, WRID(cq->q, WK_SEND, m, n), IBV_WR_SEND_WITH_IMM, addr, len,
		  cq->src->mr, 0, 0, imm, 0, 0);
}

static void cli_after_read(struct rv_cqp *cq, uint64_t n)
{
	struct rv_ctx *ctx = cq->ctx;
	struct rv_txn *t = &cq->tx[n % ctx->cfg.window];
	unsigned k = (unsigned)(n % ctx->cfg.window);
	uint64_t raddr = cq->atom_addr + 8ull * k;

	if (!op_on(ctx, RV_OP_ATOMIC)) {
		cli_notice(cq, n);
		return;
	}
	if (t->dst < 0) {
		t->dst = slot_alloc(cq->dst);
		atomic_fetch_add(&cq->dst->inflight, 1);
	}
	if (n & 1)
		post_send(ctx, cq->id->qp, WRID(cq->q, WK_ATOMIC, t->dst, n),
			  IBV_WR_ATOMIC_FETCH_AND_ADD, slot_ptr(cq->dst, t->dst), 8, cq->dst->mr,
			  raddr, cq->atom_rkey, 0, mixn(n) | 1, 0);
	else
		post_send(ctx, cq->id->qp, WRID(cq->q, WK_ATOMIC, t->dst, n),
			  IBV_WR_ATOMIC_CMP_AND_SWP, slot_ptr(cq->dst, t->dst), 8, cq->dst->mr,
			  raddr, cq->atom_rkey, 0, cq->expect[k], mixn(n ^ cq->expect[k]));
}

static void cli_start(struct rv_cqp *cq)
{
	struct rv_ctx *ctx = cq->ctx;
	uint64_t n = cq->next_n++;
	struct rv_txn *t = &cq->tx[n % ctx->cfg.window];
	size_t B = ctx->cfg.block;
	unsigned ts = (unsigned)(n % cq->nslots);
	int s;

	t->n = n;
	t->active = true;
	t->dst = -1;
	t->src_pinned = cq->src->pinned;
	if (!op_on(ctx, RV_OP_WRITE)) {
		cli_after_read(cq, n);
		return;
	}
	s = slot_alloc(cq->src);
	pthread_rwlock_rdlock(&cq->src->fill);
	pat_fill(slot_ptr(cq->src, s), B, stream_of(cq->q, ST_TGT), (uint64_t)ts * B, n);
	pthread_rwlock_unlock(&cq->src->fill);
	atomic_fetch_add(&cq->src->inflight, 1);
	if (post_send(ctx, cq->id->qp, WRID(cq->q, WK_WRITE, s, n), IBV_WR_RDMA_WRITE,
		      slot_ptr(cq->src, s), (uint32_t)B, cq->src->mr, cq->tgt_addr + ts * B,
		      cq->tgt_rkey, 0, 0, 0))
		return;
	if (op_on(ctx, RV_OP_READ)) {
		t->dst = slot_alloc(cq->dst);
		atomic_fetch_add(&cq->dst->inflight, 1);
		post_send(ctx, cq->id->qp, WRID(cq->q, WK_READ, t->dst, n), IBV_WR_RDMA_READ,
			  slot_ptr(cq->dst, t->dst), (uint32_t)B, cq->dst->mr,
			  cq->tgt_addr + ts * B, cq->tgt_rkey, 0, 0, 0);
	}
}

static void cli_final(struct rv_cqp *cq)
{
	struct rv_ctx *ctx = cq->ctx;

	if (!cq->final_sent) {
		cq->final_sent = true;
		if (op_on(ctx, RV_OP_ATOMIC)) {
			cq->final_slot = slot_alloc(cq->dst);
			post_send(ctx, cq->id->qp, WRID(cq->q, WK_FINREAD, cq->final_slot, 0),
				  IBV_WR_RDMA_READ, slot_ptr(cq->dst, cq->final_slot),
				  8 * ctx->cfg.window, cq->dst->mr, cq->atom_addr, cq->atom_rkey,
				  0, 0, 0);
			return;
		}
		cq->final_done = true;
	}
	if (cq->final_done && !cq->fin_sent) {
		cq->fin_sent = true;
		post_send(ctx, cq->id->qp, WRID(cq->q, WK_FINSEND, NOSLOT, 0), IBV_WR_SEND_WITH_IMM,
			  NULL, 0, NULL, 0, 0, IMM_FIN, 0, 0);
	}
}

static void cli_pump(struct rv_cqp *cq)
{
	struct rv_ctx *ctx = cq->ctx;

	if (cq->dead || cq->fin_done)
		return;
	if (!atomic_load(&ctx->stop_traffic)) {
		while (cq->next_n <= cq->acked + ctx->cfg.window)
			cli_start(cq);
	} else if (cq->next_n == cq->acked + 1) {
		cli_final(cq);
	}
}

static void cli_ack(struct rv_cqp *cq, const struct ibv_wc *wc)
{
	struct rv_ctx *ctx = cq->ctx;
	uint32_t imm = ntohl(wc->imm_data);
	int rs = WRID_SLOT(wc->wr_id);
	uint64_t n = cq->acked + 1;
	struct rv_txn *t = &cq->tx[n % ctx->cfg.window];

	atomic_fetch_sub(&cq->dst->inflight, 1);
	if (imm == ACK_FIN) {
		slot_free(cq->dst, rs);
		cq->fin_done = true;
		return;
	}
	if ((imm & ACK_N_MASK) != (n & ACK_N_MASK) || !t->active || t->n != n) {
		rv_fatal(ctx, "client qp %u: ack for %u, expected %llu", cq->q, imm & ACK_N_MASK,
			 (unsigned long long)n);
		cq->dead = true;
		return;
	}
	if (ctx->cfg.mode == RV_CLIENT) {
		/* The server's verdicts count here; in loopback the server counted them. */
		enum pat_class ct = (imm >> 24) & 0xf, cm = (imm >> 28) & 0xf;
		bool tp = (cq->srv_flags >> ROLE_TGT) & 1, rp = (cq->srv_flags >> ROLE_RCV) & 1;

		if (op_on(ctx, RV_OP_WRITE)) {
			atomic_fetch_add(&ctx->st.verified[W_TGT], 1);
			atomic_fetch_add(&ctx->st.cls[W_TGT][ct < PAT_NCLASS ? ct : PAT_GARBAGE], 1);
			if (ct != PAT_OK)
				atomic_fetch_add(pat_class_is_stale(ct) && (tp || t->src_pinned) ?
						 &ctx->st.stale_explained : &ctx->st.unexplained, 1);
		}
		if (op_on(ctx, RV_OP_SEND)) {
			atomic_fetch_add(&ctx->st.verified[W_RCV], 1);
			atomic_fetch_add(&ctx->st.cls[W_RCV][cm < PAT_NCLASS ? cm : PAT_GARBAGE], 1);
			if (cm != PAT_OK)
				atomic_fetch_add(pat_class_is_stale(cm) && (rp || cq->src->pinned) ?
						 &ctx->st.stale_explained : &ctx->st.unexplained, 1);
		}
	}
	if (op_on(ctx, RV_OP_SEND)) {
		bool pinned = cq->dst->pinned || ((cq->srv_flags >> ROLE_ACKSRC) & 1);

		if (wc->byte_len != ctx->cfg.block) {
			rv_fatal(ctx, "client qp %u: ack of %u bytes", cq->q, wc->byte_len);
			cq->dead = true;
			return;
		}
		verify(ctx, W_ACK, slot_ptr(cq->dst, rs), ctx->cfg.block,
		       stream_of(cq->q, ST_S2C), 0, n, pinned, "ack message", cq->q);
		atomic_fetch_add(&ctx->st.bytes, wc->byte_len);
	}
	slot_free(cq->dst, rs);
	post_recv(ctx, cq->id->qp, cq->dst, cq->q);
	t->active = false;
	cq->acked = n;
	atomic_fetch_add(&ctx->st.txns, 1);
}

static void cli_done(struct rv_client *c, struct rv_cqp *cq)
{
	if ((cq->fin_done || cq->dead) && !cq->counted) {
		cq->counted = true;
		c->ndone++;
	}
}

static void cli_completion(struct rv_client *c, const struct ibv_wc *wc)
{
	struct rv_ctx *ctx = c->ctx;
	unsigned q = WRID_Q(wc->wr_id), k = WRID_K(wc->wr_id);
	struct rv_cqp *cq;
	uint64_t n;
	struct rv_txn *t;
	size_t B = ctx->cfg.block;

	if (q >= ctx->cfg.qps)
		return;
	cq = &c->qp[q];
	if (wc->status != IBV_WC_SUCCESS) {
		count_error(ctx, wc, "client", &cq->err_seen);
		cq->dead = true;
		cli_done(c, cq);
		return;
	}
	atomic_fetch_add(&ctx->completions, 1);
	if (k < RV_NWK)
		atomic_fetch_add(&ctx->st.ops[k], 1);
	n = cq->acked + 1 + ((WRID_N(wc->wr_id) - (uint32_t)(cq->acked + 1)) & 0xffffffffu);
	t = &cq->tx[n % ctx->cfg.window];
	switch (k) {
	case WK_WRITE:
		atomic_fetch_sub(&cq->src->inflight, 1);
		atomic_fetch_add(&ctx->st.bytes, B);
		slot_free(cq->src, WRID_SLOT(wc->wr_id));
		if (!op_on(ctx, RV_OP_READ))
			cli_after_read(cq, n);
		break;
	case WK_READ: {
		unsigned ts = (unsigned)(n % cq->nslots);
		bool pinned = t->src_pinned || cq->dst->pinned || ((cq->srv_flags >> ROLE_TGT) & 1);

		atomic_fetch_add(&ctx->st.bytes, B);
		verify(ctx, W_READ, slot_ptr(cq->dst, t->dst), B, stream_of(q, ST_TGT),
		       (uint64_t)ts * B, n, pinned, "read-back", q);
		cli_after_read(cq, n);
		break;
	}
	case WK_ATOMIC: {
		unsigned ki = (unsigned)(n % ctx->cfg.window);
		uint64_t got, add = mixn(n) | 1;

		memcpy(&got, slot_ptr(cq->dst, t->dst), 8);
		atomic_fetch_add(&ctx->st.bytes, 8);
		atomic_fetch_add(n & 1 ? &ctx->st.fadd : &ctx->st.cas, 1);
		if (got == cq->expect[ki]) {
			atomic_fetch_add(&ctx->st.atomics_ok, 1);
			cq->expect[ki] = n & 1 ? got + add : mixn(n ^ got);
		} else if (cq->dst->pinned && cq->dst->dropped[t->dst]) {
			/* The result went to the pinned page this slot had before it
			 * was dropped: stale, not wrong.  The server's counter moved,
			 * so follow it as if we had read the right value. */
			atomic_fetch_add(&ctx->st.atomics_stale, 1);
			atomic_fetch_add(&ctx->st.stale_explained, 1);
			cq->expect[ki] = n & 1 ? cq->expect[ki] + add : mixn(n ^ cq->expect[ki]);
		} else {
			atomic_fetch_add(&ctx->st.atomics_bad, 1);
			atomic_fetch_add(&ctx->st.unexplained, 1);
			fprintf(stderr, "%s: ATOMIC MISMATCH qp %u counter %u txn %llu: %s returned %#llx, expected %#llx\n",
				ctx->prog, q, ki, (unsigned long long)n, n & 1 ? "FETCH_ADD" : "CMP_SWAP",
				(unsigned long long)got, (unsigned long long)cq->expect[ki]);
			/* resynchronise so one fault is counted once */
			cq->expect[ki] = n & 1 ? got + add : got;
		}
		cli_notice(cq, n);
		break;
	}
	case WK_SEND:
		if (WRID_SLOT(wc->wr_id) != NOSLOT) {
			atomic_fetch_sub(&cq->src->inflight, 1);
			slot_free(cq->src, WRID_SLOT(wc->wr_id));
		}
		break;
	case WK_RECV:
		cli_ack(cq, wc);
		cli_done(c, cq);
		break;
	case WK_FINREAD: {
		unsigned i;
		const uint8_t *p = slot_ptr(cq->dst, cq->final_slot);

		for (i = 0; i < ctx->cfg.window; i++) {
			uint64_t v;

			memcpy(&v, p + 8 * i, 8);
			if (v == cq->expect[i]) {
				atomic_fetch_add(&ctx->st.final_ok, 1);
			} else if (cq->dst->pinned && cq->dst->dropped[cq->final_slot]) {
				atomic_fetch_add(&ctx->st.final_stale, 1);
				atomic_fetch_add(&ctx->st.stale_explained, 1);
			} else {
				atomic_fetch_add(&ctx->st.final_bad, 1);
				atomic_fetch_add(&ctx->st.unexplained, 1);
				fprintf(stderr, "%s: qp %u counter %u ends at %#llx, expected %#llx\n",
					ctx->prog, q, i, (unsigned long long)v,
					(unsigned long long)cq->expect[i]);
			}
		}
		slot_free(cq->dst, cq->final_slot);
		cq->final_done = true;
		break;
	}
	default:
		break;
	}
}

int rv_client_setup(struct rv_ctx *ctx, struct rv_client *c)
{
	struct sockaddr_storage ss;
	unsigned q, i;

	c->ctx = ctx;
	c->ec = rdma_create_event_channel();
	if (!c->ec) {
		rv_fatal(ctx, "rdma_create_event_channel: %s (is rdma_ucm loaded?)", strerror(errno));
		return -1;
	}
	if (get_addr(ctx, ctx->cfg.addr, ctx->cfg.port, false, &ss))
		return -1;
	for (q = 0; q < ctx->cfg.qps; q++) {
		struct rv_cqp *cq = &c->qp[q];
		struct rdma_cm_event *ev;
		struct ibv_qp_init_attr qa;
		struct rdma_conn_param cp;
		struct rv_hello h;
		struct rv_welcome wl;

		cq->ctx = ctx;
		cq->q = q;
		cq->next_n = 1;
		cq->nslots = (unsigned)(ctx->cfg.target / ctx->cfg.block);
		if (rdma_create_id(c->ec, &cq->id, cq, RDMA_PS_TCP)) {
			rv_fatal(ctx, "rdma_create_id: %s", strerror(errno));
			return -1;
		}
		if (rdma_resolve_addr(cq->id, NULL, (struct sockaddr *)&ss, 5000)) {
			rv_fatal(ctx, "rdma_resolve_addr %s: %s", ctx->cfg.addr, strerror(errno));
			return -1;
		}
		if (wait_cm(ctx, c->ec, RDMA_CM_EVENT_ADDR_RESOLVED, &ev, 10000))
			return -1;
		rdma_ack_cm_event(ev);
		if (rdma_resolve_route(cq->id, 5000)) {
			rv_fatal(ctx, "rdma_resolve_route: %s", strerror(errno));
			return -1;
		}
		if (wait_cm(ctx, c->ec, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev, 10000))
			return -1;
		rdma_ack_cm_event(ev);
		if (!c->pd) {
			if (check_odp_caps(ctx, cq->id->verbs))
				return -1;
			snprintf(ctx->dev, sizeof(ctx->dev), "%s",
				 ibv_get_device_name(cq->id->verbs->device));
			c->pd = ibv_alloc_pd(cq->id->verbs);
			c->cc = ibv_create_comp_channel(cq->id->verbs);
			if (!c->pd || !c->cc || ibv_query_device(cq->id->verbs, &c->dattr)) {
				rv_fatal(ctx, "client: PD/completion channel: %s", strerror(errno));
				return -1;
			}
		}
		cq->src = buf_new(ctx, c->pd, ROLE_SRC, q);
		cq->dst = cq->src ? buf_new(ctx, c->pd, ROLE_DST, q) : NULL;
		if (!cq->dst)
			return -1;
		cq->cq = ibv_create_cq(cq->id->verbs, 8 * ctx->cfg.window + 32, cq, c->cc, 0);
		if (!cq->cq || ibv_req_notify_cq(cq->cq, 0)) {
			rv_fatal(ctx, "client: ibv_create_cq: %s", strerror(errno));
			return -1;
		}
		memset(&qa, 0, sizeof(qa));
		qa.send_cq = qa.recv_cq = cq->cq;
		qa.qp_type = IBV_QPT_RC;
		qa.cap.max_send_wr = 3 * ctx->cfg.window + 8;
		qa.cap.max_recv_wr = 2 * ctx->cfg.window + 8;
		qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
		if (rdma_create_qp(cq->id, c->pd, &qa)) {
			rv_fatal(ctx, "client: rdma_create_qp: %s", strerror(errno));
			return -1;
		}
		for (i = 0; i < ctx->cfg.window + 1; i++)
			if (post_recv(ctx, cq->id->qp, cq->dst, q))
				return -1;
		memset(&h, 0, sizeof(h));
		h.magic = RV_MAGIC;
		h.qp_index = q;
		h.nqps = ctx->cfg.qps;
		h.window = ctx->cfg.window;
		h.nslots = cq->nslots;
		h.block = (uint32_t)ctx->cfg.block;
		h.ops = rv_ops_to_wire(&ctx->cfg);
		memset(&cp, 0, sizeof(cp));
		cp.private_data = &h;
		cp.private_data_len = sizeof(h);
		cp.initiator_depth = (uint8_t)((int)ctx->cfg.window < c->dattr.max_qp_init_rd_atom ?
					       (int)ctx->cfg.window : c->dattr.max_qp_init_rd_atom);
		cp.responder_resources = 1;
		cp.retry_count = 7;
		cp.rnr_retry_count = 7;
		if (set_ack_timeout(ctx, cq->id))
			return -1;
		if (rdma_connect(cq->id, &cp)) {
			rv_fatal(ctx, "rdma_connect: %s", strerror(errno));
			return -1;
		}
		if (wait_cm(ctx, c->ec, RDMA_CM_EVENT_ESTABLISHED, &ev, 20000))
			return -1;
		memset(&wl, 0, sizeof(wl));
		if (ev->param.conn.private_data_len >= sizeof(wl))
			memcpy(&wl, ev->param.conn.private_data, sizeof(wl));
		rdma_ack_cm_event(ev);
		if (wl.magic != RV_MAGIC) {
			rv_fatal(ctx, "client: the server's answer is not from reclaim-verify");
			return -1;
		}
		cq->tgt_addr = wl.tgt_addr;
		cq->tgt_rkey = wl.tgt_rkey;
		cq->atom_addr = wl.atom_addr;
		cq->atom_rkey = wl.atom_rkey;
		cq->srv_flags = wl.flags;
	}
	set_nonblock(c->ec->fd);
	set_nonblock(c->cc->fd);
	return 0;
}

void *rv_client_main(void *arg)
{
	struct rv_client *c = arg;
	struct rv_ctx *ctx = c->ctx;
	struct ibv_wc wc[32];
	unsigned q;

	atomic_store(&ctx->traffic_started, true);
	for (q = 0; q < ctx->cfg.qps; q++)
		cli_pump(&c->qp[q]);
	while (c->ndone < ctx->cfg.qps && !atomic_load(&ctx->failed)) {
		struct pollfd pfd[2] = { { .fd = c->cc->fd, .events = POLLIN },
					 { .fd = c->ec->fd, .events = POLLIN } };
		struct rdma_cm_event *ev;
		struct ibv_cq *cq;
		void *cqctx;

		poll(pfd, 2, 100);
		while (!rdma_get_cm_event(c->ec, &ev)) {
			if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
				for (q = 0; q < ctx->cfg.qps; q++)
					if (c->qp[q].id == ev->id && !c->qp[q].fin_done &&
					    !c->qp[q].dead) {
						fprintf(stderr, "%s: client: qp %u disconnected by the server\n",
							ctx->prog, q);
						c->qp[q].dead = true;
						cli_done(c, &c->qp[q]);
					}
			rdma_ack_cm_event(ev);
		}
		while (!ibv_get_cq_event(c->cc, &cq, &cqctx)) {
			ibv_ack_cq_events(cq, 1);
			ibv_req_notify_cq(cq, 0);
		}
		for (q = 0; q < ctx->cfg.qps; q++) {
			int n, k;

			while ((n = ibv_poll_cq(c->qp[q].cq, 32, wc)) > 0)
				for (k = 0; k < n; k++)
					cli_completion(c, &wc[k]);
			cli_pump(&c->qp[q]);
		}
	}
	atomic_store(&ctx->client_done, true);
	return NULL;
}

void rv_client_cleanup(struct rv_client *c)
{
	unsigned q;

	for (q = 0; q < RV_MAXQP; q++) {
		struct rv_cqp *cq = &c->qp[q];

		if (!cq->id)
			continue;
		if (cq->id->qp) {
			rdma_disconnect(cq->id);
			rdma_destroy_qp(cq->id);
		}
		if (cq->cq)
			ibv_destroy_cq(cq->cq);
		rdma_destroy_id(cq->id);
		buf_free(cq->src);
		buf_free(cq->dst);
	}
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->ec)
		rdma_destroy_event_channel(c->ec);
}
