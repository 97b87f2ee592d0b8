// SPDX-License-Identifier: GPL-2.0
/*
 * --regress: the minimal packet sequences of the bugs roce-fuzz found, each
 * with its own oracle, independent of how the generator evolves.
 */
#include "regress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pkt.h"

static uint8_t buf[9000];
static uint8_t data[4096];

static int send_built(struct fz_world *w, struct roce_pkt *p)
{
	size_t len;

	p->ip_id = ++w->ip_id ? w->ip_id : ++w->ip_id;
	len = roce_build(p, buf, sizeof(buf));
	return len ? fz_send(w, buf, len) : -1;
}

static uint32_t expected_psn(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	return ibv_query_qp(qp, &a, IBV_QP_RQ_PSN, &ia) ? 0 : a.rq_psn;
}

/*
 * An RDMA WRITE ONLY with DMA length 0 that carries 64 bytes, at the
 * responder's expected PSN (patch 0016): rxe_mr_copy() was called with no
 * MR and warned.  Now a length error; nothing may be written.
 */
static int zero_len_write_data(struct fz_world *w, struct rng *r)
{
	struct fz_pair pr;
	struct roce_pkt p;
	struct fz_mr *m = &w->mr[MR_PINNED];
	int err;

	if (fz_pair_new(w, &pr, r, ROLE_RESP_A, ROLE_RESP_B))
		return -1;
	memset(data, 0xee, sizeof(data));
	roce_pkt_init(&p);
	p.opcode = OP_WRITE_ONLY;
	p.dqpn = pr.p.b.qp->qp_num;
	p.psn = expected_psn(pr.p.b.qp);
	p.reth_va = m->iova + 128;
	p.reth_rkey = m->rkey;
	p.reth_len = 0;
	p.payload = data;
	p.payload_len = 64;
	err = send_built(w, &p) || fz_sentinel(w);
	usleep(20000);
	fz_pair_free(w, &pr);	/* waits for the responder */
	return err;
}

/*
 * A READ RESPONSE MIDDLE where the requester waits for the first response
 * of its READ (patch 0017): the completer failed the QP with the WQE
 * still IB_WC_SUCCESS (WARN_ON) and completed the READ as successful
 * though no data arrived.  Now IB_WC_BAD_RESP_ERR.
 */
static int unexpected_read_response(struct fz_world *w, struct rng *r)
{
	struct fz_mr *lm = &w->mr[MR_LOCAL_PINNED];
	struct ibv_sge sge = { (uintptr_t)(lm->map + lm->off), 100, lm->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct fz_pair pr;
	struct roce_pkt p;
	struct ibv_wc wc;
	int err = -1;

	if (fz_pair_new(w, &pr, r, ROLE_COMP_C, ROLE_COMP_D))
		return -1;
	if (!pr.at.max_rd_atomic) {
		snprintf(w->finding, sizeof(w->finding), "(pair without READ credits)");
		goto out;
	}
	wr.wr.rdma.remote_addr = 0x10000;
	wr.wr.rdma.rkey = 0x1234;
	fz_permit(w, MR_LOCAL_PINNED, 0, 100);
	if (fz_qp_to_init(w, pr.p.b.qp, pr.at.access) || ibv_post_send(pr.p.a.qp, &wr, &bad) ||
	    fz_wait_sq_psn(w, pr.p.a.qp, (pr.at.psn + 1) & PSN_MASK, 5000))
		goto out;
	roce_pkt_init(&p);
	p.opcode = OP_READ_RESP_MIDDLE;
	p.dqpn = pr.p.a.qp->qp_num;
	p.psn = pr.at.psn;
	p.payload = data;
	p.payload_len = 100;
	p.pad = 0;
	if (send_built(w, &p))
		goto out;
	if (fz_poll(pr.p.a.cq, &wc, 1, 5000) != 1) {
		snprintf(w->finding, sizeof(w->finding),
			 "unexpected READ response: the READ did not complete in 5 s");
		goto out;
	}
	if (wc.status != IBV_WC_BAD_RESP_ERR) {
		snprintf(w->finding, sizeof(w->finding),
			 "unexpected READ response: the READ completed with %s, want %s",
			 ibv_wc_status_str(wc.status), ibv_wc_status_str(IBV_WC_BAD_RESP_ERR));
		goto out;
	}
	err = 0;
out:
	if (err && !w->finding[0])
		snprintf(w->finding, sizeof(w->finding), "%s", w->err);
	fz_pair_free(w, &pr);
	return err;
}

/* An RDMA READ REQUEST of 100 bytes of m at offset 128 */
static int send_read100(struct fz_world *w, uint32_t dqpn, uint32_t psn, const struct fz_mr *m)
{
	struct roce_pkt p;

	roce_pkt_init(&p);
	p.opcode = OP_READ_REQ;
	p.dqpn = dqpn;
	p.psn = psn;
	p.reth_va = m->iova + 128;
	p.reth_rkey = m->rkey;
	p.reth_len = 100;
	return send_built(w, &p);
}

/*
 * An RDMA READ of 100 bytes, a zero-length RDMA WRITE, then the READ
 * again at its old PSN (a retransmission), all to the responder (patch
 * 0023): read_reply() took the MR of the resent READ from qp->resp.mr
 * because the newest request (the WRITE) had length 0, passed NULL to
 * rxe_mr_copy() and warned.  Now the R_Key is looked up again and the
 * READ is answered; nothing may be written.
 */
static int resent_read_after_empty(struct fz_world *w, struct rng *r)
{
	struct fz_mr *m = &w->mr[MR_PINNED];
	struct fz_pair pr;
	struct roce_pkt p;
	uint32_t psn;
	int err;

	if (fz_pair_new(w, &pr, r, ROLE_RESP_A, ROLE_RESP_B))
		return -1;
	if (!pr.at.max_rd_atomic || !(pr.at.access & IBV_ACCESS_REMOTE_READ)) {
		snprintf(w->finding, sizeof(w->finding), "(pair without READ access or resources)");
		fz_pair_free(w, &pr);
		return -1;
	}
	psn = expected_psn(pr.p.b.qp);
	err = send_read100(w, pr.p.b.qp->qp_num, psn, m);
	usleep(20000);
	roce_pkt_init(&p);
	p.opcode = OP_WRITE_ONLY;
	p.dqpn = pr.p.b.qp->qp_num;
	p.psn = (psn + 1) & PSN_MASK;
	p.reth_len = 0;
	err = err || send_built(w, &p);
	usleep(20000);
	err = err || send_read100(w, pr.p.b.qp->qp_num, psn, m) || fz_sentinel(w);
	usleep(20000);
	fz_pair_free(w, &pr);	/* waits for the responder */
	return err;
}

/* One UD SEND ONLY of n bytes of byte b to u */
static int send_ud(struct fz_world *w, const struct fz_ud *u, const uint8_t *d, size_t n)
{
	struct roce_pkt p;

	roce_pkt_init(&p);
	p.opcode = OP_UD | OP_SEND_ONLY;
	p.dqpn = u->qp->qp_num;
	p.deth_qkey = u->qkey;
	p.deth_sqpn = 0x77;
	p.payload = d;
	p.payload_len = n;
	p.pad = (uint8_t)(-n & 3);
	return send_built(w, &p);
}

/*
 * A UD SEND longer than the port's active MTU, then one of exactly the
 * MTU (the largest an unmodified rxe sends), then an 8-byte marker, to a
 * UD QP whose receive buffers hold all of them (patch 0029): rxe
 * delivered the long one, which a UD responder must drop silently.  Only
 * the MTU-sized packet and the marker may arrive, in that order.
 */
static int ud_over_mtu(struct fz_world *w, struct rng *r)
{
	static uint8_t big[8192];
	struct fz_ud *u = &w->ud[0];
	size_t mtu = 128u << w->dev.port_attr.active_mtu;
	static const uint8_t mark[8] = "UDMTU!!";
	const size_t want[2] = { mtu, sizeof(mark) };
	struct ibv_wc wc;
	int got = 0;

	(void)r;
	if (mtu + 4 + GRH_BYTES > u->sge_len || mtu + 4 > sizeof(big)) {
		snprintf(w->finding, sizeof(w->finding),
			 "(the UD receive buffers cannot hold MTU %zu + 4 bytes)", mtu);
		return -1;
	}
	memset(big, 0xa1, mtu + 4);
	if (send_ud(w, u, big, mtu + 4))
		goto err;
	memset(big, 0xb2, mtu);
	if (send_ud(w, u, big, mtu) || send_ud(w, u, mark, sizeof(mark)))
		goto err;
	while (got < 2) {
		const uint8_t *d;

		if (fz_poll(u->cq, &wc, 1, 5000) != 1) {
			snprintf(w->finding, sizeof(w->finding),
				 "ud-over-mtu: %s (%zu bytes) not received in 5 s",
				 got ? "the marker" : "the UD SEND of exactly the MTU", want[got]);
			return -1;
		}
		d = fz_slot_sge(w, (int)wc.wr_id) + GRH_BYTES;
		if (wc.status != IBV_WC_SUCCESS || wc.byte_len != GRH_BYTES + want[got] ||
		    d[0] != (got ? mark[0] : 0xb2)) {
			snprintf(w->finding, sizeof(w->finding),
				 "ud-over-mtu: received %s, %u bytes (first byte %#x), expected the %zu-byte %s; a UD SEND of %zu bytes with a %zu-byte active MTU must be dropped",
				 ibv_wc_status_str(wc.status), wc.byte_len - GRH_BYTES, d[0],
				 want[got], got ? "marker" : "MTU-sized SEND", mtu + 4, mtu);
			fz_post_recv_slot(w, u->qp, (int)wc.wr_id, u->sge_len);
			return -1;
		}
		if (fz_post_recv_slot(w, u->qp, (int)wc.wr_id, u->sge_len))
			goto err;
		got++;
	}
	return 0;
err:
	snprintf(w->finding, sizeof(w->finding), "%s", w->err);
	return -1;
}

static const struct {
	const char *name;
	int (*fn)(struct fz_world *w, struct rng *r);
} cases[] = {
	{ "zero-len-write-data", zero_len_write_data },
	{ "unexpected-read-response", unexpected_read_response },
	{ "resent-read-after-empty", resent_read_after_empty },
	{ "ud-over-mtu", ud_over_mtu },
};

int fz_regress(struct fz_world *w, const char *which)
{
	struct rng r;
	size_t i;
	int bad = 0, ran = 0, err;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (strcmp(which, "all") && strcmp(which, cases[i].name))
			continue;
		ran++;
		/* seed 3: a pair with every remote access and READ credits */
		rng_seed(&r, 3, i);
		w->finding[0] = 0;
		err = cases[i].fn(w, &r);
		if (!err && fz_check_kmsg(w))
			err = -1;
		if (!err && fz_check_memory(w))
			err = -1;
		printf("regress %-26s %s%s%s\n", cases[i].name, err ? "FAIL" : "ok",
		       err ? ": " : "", err ? w->finding : "");
		bad += !!err;
	}
	if (!ran) {
		fprintf(stderr, "roce-fuzz: no regression case called %s\n", which);
		return 2;
	}
	return bad ? 1 : 0;
}
