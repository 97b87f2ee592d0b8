/* odp-selftest: device setup, loopback RC QP pairs, post and poll helpers. */
#include "st.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ibv_mr *reg(struct env *e, void *buf, size_t len, int acc)
{
	struct ibv_mr *mr = lb_reg_mr(&e->dev, buf, len, acc);

	if (!mr)
		diag("%s", e->dev.err);
	return mr;
}

int env_open(struct env *e)
{
	if (lb_dev_open(&e->dev, e->dev_name, 1)) {
		diag("%s", e->dev.err);
		return -1;
	}
	if (ibv_query_device_ex(e->dev.ctx, NULL, &e->attr)) {
		diag("ibv_query_device_ex failed");
		return -1;
	}
	if (lb_dev_gid(&e->dev, e->gid_opt)) {
		diag("%s", e->dev.err);
		return -1;
	}
	return 0;
}

void env_close(struct env *e)
{
	lb_dev_close(&e->dev);
}

int has_odp(const struct env *e)
{
	return !!(e->attr.odp_caps.general_caps & IBV_ODP_SUPPORT);
}

int odp_rc_caps(const struct env *e, uint32_t need)
{
	return has_odp(e) && (e->attr.odp_caps.per_transport_caps.rc_odp_caps & need) == need;
}

int odp_ud_caps(const struct env *e, uint32_t need)
{
	return has_odp(e) && (e->attr.odp_caps.per_transport_caps.ud_odp_caps & need) == need;
}

/* T_PASS if the device advertises the RC ODP caps, else a skip with reason. */
int need_odp_rc(struct env *e, uint32_t need)
{
	if (!has_odp(e))
		ST_SKIP(e, "%s advertises no ODP support (general_odp_caps 0x%llx)", e->dev_name,
		     (unsigned long long)e->attr.odp_caps.general_caps);
	if (!odp_rc_caps(e, need))
		ST_SKIP(e, "%s rc_odp_caps 0x%x lacks 0x%x", e->dev_name,
		     e->attr.odp_caps.per_transport_caps.rc_odp_caps, need);
	return T_PASS;
}

int rc_pair_create_tuned(struct env *e, struct lb_pair *p, struct ibv_srq *srq_b,
			 const struct lb_qp_tune *tune, uint8_t timeout)
{
	static const struct lb_pair_attr attr = {
		.cqe_a = 1024,
		.cqe_b = 1024,
		.cap = { .max_send_wr = 256, .max_recv_wr = 256, .max_send_sge = 4,
			 .max_recv_sge = 4 },
		.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			  IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE,
		.mtu = IBV_MTU_1024,
		.psn = 1000,
		.max_rd_atomic = 16,
		.hop_limit = 1,
		.timeout = 14,
	};
	struct lb_pair_attr at = attr;

	at.srq_b = srq_b;
	at.tune = tune;
	if (timeout)
		at.timeout = timeout;
	if (lb_pair_create(&e->dev, p, &at)) {
		diag("%s", e->dev.err);
		return T_FAIL;
	}
	return T_PASS;
}

int rc_pair_create(struct env *e, struct lb_pair *p, struct ibv_srq *srq_b)
{
	return rc_pair_create_tuned(e, p, srq_b, NULL, 0);
}

int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

int post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t laddr, uint32_t len,
	      uint32_t lkey, uint64_t raddr, uint32_t rkey, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int r;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	r = ibv_post_send(qp, &wr, &bad);
	if (r)
		diag("ibv_post_send(op %d): %s", op, strerror(r));
	return r;
}

int post_atomic(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t laddr, uint32_t lkey,
		uint64_t raddr, uint32_t rkey, uint64_t cmp_add, uint64_t swap)
{
	struct ibv_sge sge = { .addr = laddr, .length = 8, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int r;

	wr.wr.atomic.remote_addr = raddr;
	wr.wr.atomic.rkey = rkey;
	wr.wr.atomic.compare_add = cmp_add;
	wr.wr.atomic.swap = swap;
	r = ibv_post_send(qp, &wr, &bad);
	if (r)
		diag("ibv_post_send(atomic): %s", strerror(r));
	return r;
}

int post_send_ud(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t rqpn, uint64_t laddr,
		 uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = laddr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = 3, .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int r;

	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = rqpn;
	wr.wr.ud.remote_qkey = 0x11111111;
	r = ibv_post_send(qp, &wr, &bad);
	if (r)
		diag("ibv_post_send(UD): %s", strerror(r));
	return r;
}

int post_recv(struct ibv_qp *qp, uint64_t addr, uint32_t len, uint32_t lkey, uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;
	int r = ibv_post_recv(qp, &wr, &bad);

	if (r)
		diag("ibv_post_recv: %s", strerror(r));
	return r;
}

int post_srq_recv(struct ibv_srq *srq, uint64_t addr, uint32_t len, uint32_t lkey,
		  uint64_t wr_id)
{
	struct ibv_sge sge = { .addr = addr, .length = len, .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;
	int r = ibv_post_srq_recv(srq, &wr, &bad);

	if (r)
		diag("ibv_post_srq_recv: %s", strerror(r));
	return r;
}

int post_flush(struct ibv_qp *qp, uint64_t raddr, uint32_t len, uint32_t rkey, uint8_t type,
	       uint8_t level, uint64_t wr_id)
{
	struct rxe_send_wqe *w;
	struct ring_flush_wr *f;
	struct sq_ring r;
	char err[256];
	int ret;

	if (ring_find_sq(qp, 1, &r, err, sizeof(err))) {
		diag("FLUSH: %s", err);
		return -1;
	}
	w = ring_next(&r);
	if (!w) {
		diag("FLUSH: the send queue is full");
		return -1;
	}
	f = (struct ring_flush_wr *)&w->wr.wr;
	w->wr.wr_id = wr_id;
	w->wr.opcode = RING_WR_FLUSH;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	f->remote_addr = raddr;
	f->length = len;
	f->rkey = rkey;
	f->type = type;
	f->level = level;
	w->iova = raddr;
	w->dma.length = w->dma.resid = len;
	ret = ring_post(&r);
	if (ret)
		diag("FLUSH: doorbell: %s", strerror(ret));
	return ret;
}

int bind_mw2(struct env *e, struct lb_end *x, struct ibv_mr *mr, uint64_t addr, uint64_t len,
	     unsigned int access, struct ibv_mw **mw)
{
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_wc wc;
	uint32_t rkey;
	int r;

	*mw = ibv_alloc_mw(e->dev.pd, IBV_MW_TYPE_2);
	CHECK(*mw, "ibv_alloc_mw(type 2): %s", strerror(errno));
	rkey = ibv_inc_rkey((*mw)->rkey);
	wr.wr_id = 77;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = *mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = access;
	r = ibv_post_send(x->qp, &wr, &bad);
	CHECK(!r, "post BIND_MW: %s", strerror(r));
	r = poll_one(e, x->cq, &wc);
	CHECK(r == 1, "BIND_MW: no completion (poll rc %d)", r);
	CHECK(wc.status == IBV_WC_SUCCESS && wc.opcode == IBV_WC_BIND_MW,
	      "BIND_MW completed with %s, opcode %d", wc_str(wc.status), wc.opcode);
	(*mw)->rkey = rkey;
	return T_PASS;
}

/* The deadline counts 1 ms sleeps rather than reading a clock: a starved TCG
 * guest's clock can jump by minutes, which must not look like a hang. */
int poll_ms(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
{
	int n, i;

	for (i = 0;; i++) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n < 0 ? -1 : 1;
		if (i >= ms)
			return 0;
		usleep(1000);
	}
}

int poll_one(struct env *e, struct ibv_cq *cq, struct ibv_wc *wc)
{
	return poll_ms(cq, wc, e->poll_ms);
}

const char *wc_str(enum ibv_wc_status s)
{
	return ibv_wc_status_str(s);
}

/* A work request got no completion: say which of "the responder keeps
 * answering RNR NAK", "the requester keeps retrying" and "nothing moves"
 * it was, from the device's counters read twice a second apart. */
static void stuck_counters(struct env *e, const char *what)
{
	static const char *const names[] = {
		"odp_faults", "odp_fault_errors", "odp_rnr_naks", "odp_fault_retries",
		"send_rnr_err", "rcvd_rnr_err", "completer_retry_err", "duplicate_request",
		"out_of_seq_request", "rcvd_seq_err",
	};
	enum { N = sizeof(names) / sizeof(names[0]) };
	long long a[N], b[N];
	char line[512];
	size_t i, off = 0;

	hw_counters(e, names, a, N);
	sleep(1);
	hw_counters(e, names, b, N);
	for (i = 0; i < N && off < sizeof(line); i++)
		off += (size_t)snprintf(line + off, sizeof(line) - off, " %s %lld(+%lld)", names[i],
					b[i], b[i] - a[i]);
	diag("%s: stuck; %s counters, (+ in the next second):%s", what, e->dev_name, line);
}

int expect_wc(struct env *e, struct ibv_cq *cq, enum ibv_wc_status st, const char *what)
{
	struct ibv_wc wc;
	int r = poll_one(e, cq, &wc);

	if (r != 1)
		stuck_counters(e, what);
	CHECK(r == 1, "%s: no completion within %d ms (poll rc %d)", what, e->poll_ms, r);
	CHECK(wc.status == st, "%s: completion status %s (%d), expected %s (%d)", what,
	      wc_str(wc.status), wc.status, wc_str(st), st);
	if (e->verbose)
		diag("%s: completion %s", what, wc_str(wc.status));
	return T_PASS;
}

int expect_no_wc(struct ibv_cq *cq, int ms, const char *what)
{
	struct ibv_wc wc;
	int r = poll_ms(cq, &wc, ms);

	CHECK(r == 0, "%s: unexpected completion, status %s", what, r == 1 ? wc_str(wc.status) : "?");
	return T_PASS;
}

/* rxe posts an error completion before it moves the QP to ERR: wait a
 * bounded moment for the transition; returns the last state seen. */
int wait_qp_err(struct env *e, struct ibv_qp *qp)
{
	int r = qp_state(qp), i;

	for (i = 0; r != IBV_QPS_ERR && i < e->poll_ms / 10; i++) {
		usleep(10000);
		r = qp_state(qp);
	}
	return r;
}
