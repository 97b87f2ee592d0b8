/* odp-selftest: device setup, loopback RC QP pairs, post and poll helpers. */
#include "st.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int find_gid(struct env *e)
{
	struct ibv_port_attr pa;
	int i;

	if (ibv_query_port(e->ctx, e->port, &pa))
		return -1;
	if (e->gid_idx >= 0)
		return ibv_query_gid(e->ctx, e->port, e->gid_idx, &e->gid);
	/* The IPv4-mapped GID (::ffff:a.b.c.d): RoCEv2 over the loopback address. */
	for (i = 0; i < pa.gid_tbl_len; i++) {
		union ibv_gid g;

		if (ibv_query_gid(e->ctx, e->port, i, &g))
			continue;
		if (!memcmp(g.raw, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12)) {
			e->gid_idx = i;
			e->gid = g;
			return 0;
		}
	}
	return -1;
}

int env_open(struct env *e)
{
	struct ibv_device **list;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		diag("ibv_get_device_list: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), e->dev_name))
			break;
	if (i == n) {
		diag("no RDMA device named %s", e->dev_name);
		ibv_free_device_list(list);
		return -1;
	}
	e->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!e->ctx) {
		diag("ibv_open_device(%s): %s", e->dev_name, strerror(errno));
		return -1;
	}
	if (ibv_query_device_ex(e->ctx, NULL, &e->attr)) {
		diag("ibv_query_device_ex failed");
		return -1;
	}
	if (find_gid(e)) {
		diag("no usable GID on %s port %u (want an IPv4-mapped one)", e->dev_name, e->port);
		return -1;
	}
	e->pd = ibv_alloc_pd(e->ctx);
	if (!e->pd) {
		diag("ibv_alloc_pd: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void env_close(struct env *e)
{
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	if (e->ctx)
		ibv_close_device(e->ctx);
	e->pd = NULL;
	e->ctx = NULL;
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
		SKIP(e, "%s advertises no ODP support (general_odp_caps 0x%llx)", e->dev_name,
		     (unsigned long long)e->attr.odp_caps.general_caps);
	if (!odp_rc_caps(e, need))
		SKIP(e, "%s rc_odp_caps 0x%x lacks 0x%x", e->dev_name,
		     e->attr.odp_caps.per_transport_caps.rc_odp_caps, need);
	return T_PASS;
}

static int qpx_create(struct env *e, struct qpx *x, struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.srq = srq,
		.cap = { .max_send_wr = 256, .max_recv_wr = srq ? 0 : 256,
			 .max_send_sge = 4, .max_recv_sge = 4 },
	};

	x->cq = ibv_create_cq(e->ctx, 1024, NULL, NULL, 0);
	if (!x->cq) {
		diag("ibv_create_cq: %s", strerror(errno));
		return -1;
	}
	ia.send_cq = x->cq;
	ia.recv_cq = x->cq;
	x->qp = ibv_create_qp(e->pd, &ia);
	if (!x->qp) {
		diag("ibv_create_qp: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int qp_connect(struct env *e, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = e->port,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				  IBV_QP_ACCESS_FLAGS)) {
		diag("modify_qp INIT: %s", strerror(errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 1000;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = e->gid;
	a.ah_attr.grh.sgid_index = e->gid_idx;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = e->port;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER)) {
		diag("modify_qp RTR: %s", strerror(errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 1000;
	a.max_rd_atomic = 16;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
		diag("modify_qp RTS: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int rc_pair_create(struct env *e, struct rc_pair *p, struct ibv_srq *srq_b)
{
	memset(p, 0, sizeof(*p));
	if (qpx_create(e, &p->a, NULL) || qpx_create(e, &p->b, srq_b))
		return T_FAIL;
	if (qp_connect(e, p->a.qp, p->b.qp->qp_num) || qp_connect(e, p->b.qp, p->a.qp->qp_num))
		return T_FAIL;
	return T_PASS;
}

static void qpx_destroy(struct qpx *x)
{
	if (x->qp)
		ibv_destroy_qp(x->qp);
	if (x->cq)
		ibv_destroy_cq(x->cq);
	x->qp = NULL;
	x->cq = NULL;
}

void rc_pair_destroy(struct rc_pair *p)
{
	qpx_destroy(&p->a);
	qpx_destroy(&p->b);
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

/* The deadline counts 1 ms sleeps rather than reading a clock: a starved TCG
 * guest's clock can jump by minutes, which must not look like a hang. */
static int poll_ms(struct ibv_cq *cq, struct ibv_wc *wc, int ms)
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

int expect_wc(struct env *e, struct ibv_cq *cq, enum ibv_wc_status st, const char *what)
{
	struct ibv_wc wc;
	int r = poll_one(e, cq, &wc);

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
