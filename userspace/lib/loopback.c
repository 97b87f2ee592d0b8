/* loopback: one RDMA device, its PD and GID, connected RC QP pairs and ready
 * UD QPs on it. */
#include "loopback.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Say in d->err what failed and why (err: an errno value, 0 for no errno
 * text); errno is err afterwards.  Returns -1 for the caller to return. */
__attribute__((format(printf, 3, 4)))
static int lb_fail(struct lb_dev *d, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(d->err, sizeof(d->err), fmt, ap);
	va_end(ap);
	if (err && n >= 0 && (size_t)n < sizeof(d->err))
		snprintf(d->err + n, sizeof(d->err) - n, ": %s", strerror(err));
	errno = err ? err : EINVAL;
	return -1;
}

/* errno after a failed verbs call that should have set it */
static int verr(void)
{
	return errno ? errno : EIO;
}

/* The error of a verbs call that returns an errno value or -1 with errno. */
static int rerr(int r)
{
	return r > 0 ? r : verr();
}

int lb_dev_open(struct lb_dev *d, const char *name, uint8_t port)
{
	struct ibv_device **list;
	int i, n, err;

	memset(d, 0, sizeof(*d));
	d->port = port;
	d->gid_index = -1;
	list = ibv_get_device_list(&n);
	if (!list)
		return lb_fail(d, verr(), "ibv_get_device_list");
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			break;
	if (i == n) {
		ibv_free_device_list(list);
		return lb_fail(d, 0, "no RDMA device named %s (%d device%s found)", name, n,
			       n == 1 ? "" : "s");
	}
	d->ctx = ibv_open_device(list[i]);
	err = verr();
	ibv_free_device_list(list);
	if (!d->ctx)
		return lb_fail(d, err, "ibv_open_device(%s)", name);
	err = ibv_query_port(d->ctx, port, &d->port_attr);
	if (err)
		return lb_fail(d, rerr(err), "ibv_query_port(%s port %u)", name, port);
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		return lb_fail(d, verr(), "ibv_alloc_pd(%s)", name);
	return 0;
}

static int ipv4_mapped(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

int lb_dev_gid(struct lb_dev *d, int index)
{
	const char *name = ibv_get_device_name(d->ctx->device);
	union ibv_gid g;
	int i, err;

	if (index >= 0) {
		err = ibv_query_gid(d->ctx, d->port, index, &g);
		if (err)
			return lb_fail(d, rerr(err), "ibv_query_gid(%s port %u index %d)",
				       name, d->port, index);
		d->gid_index = index;
		d->gid = g;
		return 0;
	}
	for (i = 0; i < d->port_attr.gid_tbl_len; i++) {
		if (ibv_query_gid(d->ctx, d->port, i, &g) || !ipv4_mapped(&g))
			continue;
		d->gid_index = i;
		d->gid = g;
		return 0;
	}
	return lb_fail(d, 0, "no usable GID on %s port %u (want an IPv4-mapped one)", name,
		       d->port);
}

int lb_gid_ipv4(const char *addr, union ibv_gid *gid)
{
	struct in_addr a;

	if (inet_pton(AF_INET, addr, &a) != 1)
		return -1;
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = gid->raw[11] = 0xff;
	memcpy(gid->raw + 12, &a, sizeof(a));
	return 0;
}

void lb_dev_close(struct lb_dev *d)
{
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	d->pd = NULL;
	d->ctx = NULL;
}

static struct ibv_cq *cq_create(struct lb_dev *d, int cqe, struct ibv_comp_channel *ch)
{
	struct ibv_cq *cq = ibv_create_cq(d->ctx, cqe, NULL, ch, 0);

	if (!cq)
		lb_fail(d, verr(), "ibv_create_cq(%d entries)", cqe);
	return cq;
}

static int qp_create(struct lb_dev *d, struct lb_end *x, const struct lb_pair_attr *at,
		     struct ibv_srq *srq)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_RC,
		.send_cq = x->cq,
		.recv_cq = x->cq,
		.srq = srq,
		.cap = at->cap,
		.sq_sig_all = at->sq_sig_all,
	};

	if (srq)
		ia.cap.max_recv_wr = 0;
	x->qp = ibv_create_qp(d->pd, &ia);
	if (!x->qp)
		return lb_fail(d, verr(), "ibv_create_qp(RC, %u send WRs, %u recv WRs)",
			       ia.cap.max_send_wr, ia.cap.max_recv_wr);
	return 0;
}

/* RESET -> INIT -> RTR -> RTS, the remote end being QP number dqpn on the
 * same GID. */
int lb_qp_connect(struct lb_dev *d, struct ibv_qp *qp, uint32_t dqpn,
		  const struct lb_pair_attr *at, const struct lb_qp_tune *tune)
{
	static const struct lb_qp_tune dflt = { .retry_cnt = 7, .rnr_retry = 7,
						.min_rnr_timer = 12 };
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = d->port,
		.qp_access_flags = at->access,
	};
	int err;

	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_ACCESS_FLAGS);
	if (err)
		return lb_fail(d, rerr(err), "modify_qp INIT (QP %u)", qp->qp_num);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = at->mtu ? at->mtu : d->port_attr.active_mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = at->psn;
	if (!tune) {
		tune = &dflt;
		a.max_dest_rd_atomic = at->max_rd_atomic;
	} else {
		a.max_dest_rd_atomic = tune->max_dest_rd_atomic;
	}
	a.min_rnr_timer = tune->min_rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = at->dgid ? *at->dgid : d->gid;
	a.ah_attr.grh.sgid_index = (uint8_t)d->gid_index;
	a.ah_attr.grh.hop_limit = at->hop_limit;
	a.ah_attr.port_num = d->port;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
	if (err)
		return lb_fail(d, rerr(err), "modify_qp RTR (QP %u to %u, GID index %d)", qp->qp_num,
			       dqpn, d->gid_index);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = at->timeout;
	a.retry_cnt = tune->retry_cnt;
	a.rnr_retry = tune->rnr_retry;
	a.sq_psn = at->psn;
	a.max_rd_atomic = at->max_rd_atomic;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
	if (err)
		return lb_fail(d, rerr(err), "modify_qp RTS (QP %u)", qp->qp_num);
	return 0;
}

/* RESET -> INIT (port, pkey index, Q_Key) -> RTR -> RTS (send PSN). */
int lb_ud_ready(struct lb_dev *d, struct ibv_qp *qp, uint32_t qkey, uint32_t psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = d->port,
		.qkey = qkey,
	};
	int err;

	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	if (err)
		return lb_fail(d, rerr(err), "modify_qp INIT (UD QP %u, port %u, Q_Key 0x%x)",
			       qp->qp_num, d->port, qkey);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (err)
		return lb_fail(d, rerr(err), "modify_qp RTR (UD QP %u)", qp->qp_num);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = psn;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
	if (err)
		return lb_fail(d, rerr(err), "modify_qp RTS (UD QP %u, SQ PSN %u)", qp->qp_num, psn);
	return 0;
}

int lb_cq_poll_wait(struct ibv_comp_channel *ch, struct ibv_cq *cq, int nwc,
		    struct ibv_wc *wc, int timeout_ms)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n;

	for (;;) {
		n = ibv_poll_cq(cq, nwc, wc);
		if (n)
			return n;
		if (ibv_req_notify_cq(cq, 0))
			return -1;
		/* one that came in before the request raised no event */
		n = ibv_poll_cq(cq, nwc, wc);
		if (n)
			return n;
		n = poll(&pfd, 1, timeout_ms);
		if (n <= 0)
			return n;
		if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx))
			return -1;
		ibv_ack_cq_events(ev_cq, 1);
	}
}

int lb_end_create(struct lb_dev *d, struct lb_end *x, const struct lb_pair_attr *at)
{
	memset(x, 0, sizeof(*x));
	x->cq = cq_create(d, at->cqe_a, at->channel_a);
	if (!x->cq)
		return -1;
	return qp_create(d, x, at, NULL);
}

void lb_end_destroy(struct lb_end *x)
{
	if (x->qp)
		ibv_destroy_qp(x->qp);
	if (x->cq)
		ibv_destroy_cq(x->cq);
	memset(x, 0, sizeof(*x));
}

int lb_pair_create(struct lb_dev *d, struct lb_pair *p, const struct lb_pair_attr *at)
{
	memset(p, 0, sizeof(*p));
	if (d->gid_index < 0)
		return lb_fail(d, 0, "lb_pair_create: no GID chosen yet (lb_dev_gid)");
	if (lb_end_create(d, &p->a, at))
		return -1;
	p->b.cq = at->cqe_b ? cq_create(d, at->cqe_b, NULL) : p->a.cq;
	if (!p->b.cq || qp_create(d, &p->b, at, at->srq_b))
		return -1;
	if (lb_qp_connect(d, p->a.qp, p->b.qp->qp_num, at, at->tune) ||
	    lb_qp_connect(d, p->b.qp, p->a.qp->qp_num, at, at->tune))
		return -1;
	return 0;
}

void lb_pair_destroy(struct lb_pair *p)
{
	if (p->a.qp)
		ibv_destroy_qp(p->a.qp);
	if (p->b.qp)
		ibv_destroy_qp(p->b.qp);
	if (p->b.cq && p->b.cq != p->a.cq)
		ibv_destroy_cq(p->b.cq);
	if (p->a.cq)
		ibv_destroy_cq(p->a.cq);
	memset(p, 0, sizeof(*p));
}

struct ibv_mr *lb_reg_mr(struct lb_dev *d, void *addr, size_t len, int access)
{
	struct ibv_mr *mr = ibv_reg_mr(d->pd, addr, len, access);

	if (!mr)
		lb_fail(d, verr(), "ibv_reg_mr(%p, %zu, %s, access 0x%x)", addr, len,
			access & IBV_ACCESS_ON_DEMAND ? "ODP" : "pinned", access);
	return mr;
}

int lb_buf_new(struct lb_dev *d, struct lb_buf *b, size_t len, int fill, int access)
{
	size_t page = 4096;

	memset(b, 0, sizeof(*b));
	b->addr = aligned_alloc(page, (len + page - 1) / page * page);
	if (!b->addr)
		return lb_fail(d, errno, "aligned_alloc(%zu)", len);
	b->len = len;
	memset(b->addr, fill, len);
	b->mr = lb_reg_mr(d, b->addr, len, access);
	return b->mr ? 0 : -1;
}

void lb_buf_free(struct lb_buf *b)
{
	if (b->mr)
		ibv_dereg_mr(b->mr);
	free(b->addr);
	memset(b, 0, sizeof(*b));
}
