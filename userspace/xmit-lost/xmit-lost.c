// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xmit-lost: what rxe does with a packet its own IP stack refuses.
 *
 * rxe hands each packet to ip_local_out(); a qdisc whose queue is full
 * (netem at its limit, pfifo_fast at txqueuelen) refuses it with
 * NET_XMIT_DROP.  That packet is lost before the wire, and the transport
 * should recover as from any loss: a UD message is gone and its WQE
 * completes successfully, an RC WQE stays and is retransmitted when the
 * local ACK timer fires.  Stock 6.12 rxe instead completes the WQE with
 * IBV_WC_LOC_QP_OP_ERR and moves the QP to the error state.
 *
 * Run on a device whose netdev has a qdisc that holds packets back and
 * refuses more than a few (tests/guest/53-xmit-lost.sh: netem delay 200ms
 * limit 8 on a veth whose peer address has no RDMA): a burst of UD SENDs,
 * then an RC WRITE of many packets to a QP that does not exist.  Expected:
 * every UD SEND completes successfully; the WRITE ends with
 * IBV_WC_RETRY_EXC_ERR (it was resent until retry_cnt ran out, no peer
 * answered); send_err grew (the qdisc did refuse packets).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters.h"
#include "loopback.h"
#include "opts.h"
#include "tool.h"

#define UD_MSG 256
#define UD_MAX 64

struct opts {
	const char *dev;
	const char *peer;
	unsigned int ud;		/* UD SENDs in one burst */
	unsigned int rc_kib;		/* the RC WRITE's size */
	unsigned int timeout;		/* the RC QP's local ACK timeout */
	unsigned int retry;		/* and retry_cnt */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: xmit-lost --dev DEV --peer IPV4 [--ud N] [--rc-kib K] [--timeout T]\n"
		"                 [--retry R]\n"
		"\n"
		"Sends a burst of UD SENDs and one RC WRITE (MTU 1024) from DEV to IPV4, an\n"
		"address without RDMA, through a qdisc that refuses part of them.  A packet\n"
		"the local stack refused must count as lost: the UD SENDs complete\n"
		"successfully, the WRITE is retransmitted until retry_cnt runs out\n"
		"(IBV_WC_RETRY_EXC_ERR), never IBV_WC_LOC_QP_OP_ERR.\n"
		"\n"
		"  --ud N       UD SENDs of %d bytes posted at once (default 32, at most %d)\n"
		"  --rc-kib K   the RC WRITE's size in KiB (default 32: 32 packets)\n"
		"  --timeout T  the RC QP's local ACK timeout, 4.096 us << T (default 16:\n"
		"               268 ms, past the 200 ms the test's netem holds packets)\n"
		"  --retry R    its retry_cnt (default 2)\n"
		"\n"
		"exit status: 0 as expected; 1 a WQE failed with another status, or the\n"
		"qdisc refused nothing (send_err did not grow); 2 usage or setup error\n",
		UD_MSG, UD_MAX);
}

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "peer", required_argument, NULL, 'p' },
		{ "ud", required_argument, NULL, 'u' },
		{ "rc-kib", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "retry", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .ud = 32, .rc_kib = 32, .timeout = 16, .retry = 2 };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->dev = optarg;
			break;
		case 'p':
			o->peer = optarg;
			break;
		case 'u':
			if (opt_uint(optarg, 1, UD_MAX, &o->ud))
				goto bad;
			break;
		case 'r':
			if (opt_uint(optarg, 1, 1024, &o->rc_kib))
				goto bad;
			break;
		case 't':
			if (opt_uint(optarg, 1, 31, &o->timeout))
				goto bad;
			break;
		case 'R':
			if (opt_uint(optarg, 0, 6, &o->retry))
				goto bad;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			goto bad;
		}
	}
	if (optind == argc && o->dev && o->peer)
		return 0;
bad:
	usage(stderr);
	return -1;
}

/* Wait up to secs for n completions on cq: how many had each status (the
 * first three that failed are printed). */
static int reap(struct ibv_cq *cq, int n, int secs, unsigned int *status, int nstatus)
{
	double end = tool_now_us() + secs * 1e6;
	struct ibv_wc wc[16];
	int got = 0, shown = 0, k, i;

	while (got < n && tool_now_us() < end) {
		k = ibv_poll_cq(cq, 16, wc);
		if (k < 0)
			return -1;
		for (i = 0; i < k; i++) {
			if ((int)wc[i].status < nstatus)
				status[wc[i].status]++;
			if (wc[i].status != IBV_WC_SUCCESS && shown++ < 3)
				printf("xmit-lost: WR %llu: %s (%d)\n",
				       (unsigned long long)wc[i].wr_id,
				       ibv_wc_status_str(wc[i].status), wc[i].status);
		}
		got += k;
		if (!k)
			usleep(1000);
	}
	return got;
}

static int ud_burst(struct lb_dev *d, const union ibv_gid *dgid, unsigned int n)
{
	static char mem[UD_MSG] __attribute__((aligned(64)));
	struct ibv_send_wr wr[UD_MAX], *bad;
	struct ibv_sge sge;
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = d->port };
	struct ibv_ah *ah = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq;
	struct ibv_mr *mr = NULL;
	unsigned int st[IBV_WC_GENERAL_ERR + 1] = { 0 }, i;
	int got, ret = 2;

	cq = ibv_create_cq(d->ctx, (int)n, NULL, NULL, 0);
	if (cq) {
		struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq,
					       .qp_type = IBV_QPT_UD, .sq_sig_all = 1,
					       .cap = { .max_send_wr = n, .max_recv_wr = 1,
							.max_send_sge = 1, .max_recv_sge = 1 } };

		qp = ibv_create_qp(d->pd, &ia);
	}
	mr = lb_reg_mr(d, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	aa.grh.dgid = *dgid;
	aa.grh.sgid_index = (uint8_t)d->gid_index;
	aa.grh.hop_limit = 64;
	if (qp)
		ah = ibv_create_ah(d->pd, &aa);
	if (!cq || !qp || !mr || !ah) {
		fprintf(stderr, "xmit-lost: UD setup (CQ, QP, MR, AH): %s\n", strerror(errno));
		goto out;
	}
	if (lb_ud_ready(d, qp, 0x1234, 0)) {
		fprintf(stderr, "xmit-lost: %s\n", d->err);
		goto out;
	}
	sge = (struct ibv_sge){ (uintptr_t)mem, sizeof(mem), mr->lkey };
	for (i = 0; i < n; i++) {
		wr[i] = (struct ibv_send_wr){ .wr_id = i, .sg_list = &sge, .num_sge = 1,
					      .opcode = IBV_WR_SEND,
					      .next = i + 1 < n ? &wr[i + 1] : NULL };
		wr[i].wr.ud.ah = ah;
		wr[i].wr.ud.remote_qpn = 0x77;
		wr[i].wr.ud.remote_qkey = 0x1234;
	}
	if (ibv_post_send(qp, wr, &bad)) {
		fprintf(stderr, "xmit-lost: post %u UD SENDs: %s\n", n, strerror(errno));
		goto out;
	}
	got = reap(cq, (int)n, 20, st, IBV_WC_GENERAL_ERR + 1);
	printf("UD: %u SENDs posted, %d completed: %u successfully, %u local QP operation "
	       "errors\n", n, got, st[IBV_WC_SUCCESS], st[IBV_WC_LOC_QP_OP_ERR]);
	ret = got == (int)n && st[IBV_WC_SUCCESS] == n ? 0 : 1;
	if (ret)
		printf("FAIL: a UD SEND the qdisc refused must complete successfully, as a lost "
		       "datagram\n");
out:
	if (ah)
		ibv_destroy_ah(ah);
	if (qp)
		ibv_destroy_qp(qp);
	if (mr)
		ibv_dereg_mr(mr);
	if (cq)
		ibv_destroy_cq(cq);
	return ret;
}

static int rc_write(struct lb_dev *d, const union ibv_gid *dgid, const struct opts *o)
{
	struct lb_pair_attr at = { .cqe_a = 4, .mtu = IBV_MTU_1024, .psn = 0x10,
				   .hop_limit = 64, .timeout = (uint8_t)o->timeout, .dgid = dgid,
				   .cap = { .max_send_wr = 4, .max_recv_wr = 1,
					    .max_send_sge = 1, .max_recv_sge = 1 } };
	struct lb_qp_tune tune = { .retry_cnt = (uint8_t)o->retry, .rnr_retry = 0,
				   .min_rnr_timer = 12 };
	struct ibv_send_wr wr = { .wr_id = 1, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	unsigned int st[IBV_WC_GENERAL_ERR + 1] = { 0 };
	struct ibv_sge sge;
	struct lb_buf b = { 0 };
	struct lb_end x;
	double t0;
	int got, ret = 2;

	if (lb_end_create(d, &x, &at) ||
	    lb_buf_new(d, &b, (size_t)o->rc_kib << 10, 0x5a, IBV_ACCESS_LOCAL_WRITE) ||
	    lb_qp_connect(d, x.qp, 0x99, &at, &tune)) {
		fprintf(stderr, "xmit-lost: %s\n", d->err);
		goto out;
	}
	sge = (struct ibv_sge){ (uintptr_t)b.addr, (uint32_t)b.len, b.mr->lkey };
	wr.sg_list = &sge;
	wr.wr.rdma.remote_addr = 0x100000;
	wr.wr.rdma.rkey = 0x4242;
	t0 = tool_now_us();
	if (ibv_post_send(x.qp, &wr, &bad)) {
		fprintf(stderr, "xmit-lost: post the RC WRITE: %s\n", strerror(errno));
		goto out;
	}
	got = reap(x.cq, 1, 60, st, IBV_WC_GENERAL_ERR + 1);
	printf("RC: WRITE of %u KiB (timeout %u, retry_cnt %u): %s after %.0f ms\n", o->rc_kib,
	       o->timeout, o->retry,
	       got != 1 ? "no completion" :
	       st[IBV_WC_RETRY_EXC_ERR] ? "retry count exceeded (resent, no peer)" :
	       st[IBV_WC_LOC_QP_OP_ERR] ? "local QP operation error" : "another status",
	       (tool_now_us() - t0) / 1e3);
	ret = got == 1 && st[IBV_WC_RETRY_EXC_ERR] == 1 ? 0 : 1;
	if (ret)
		printf("FAIL: an RC WRITE whose packets the qdisc refused must be retransmitted "
		       "until retry_cnt runs out, not fail locally\n");
out:
	lb_end_destroy(&x);
	lb_buf_free(&b);
	return ret;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "send_err", "sent_pkts" };
	long long c0[2], c1[2];
	union ibv_gid dgid;
	struct lb_dev d;
	struct opts o;
	int ud, rc;

	if (parse(argc, argv, &o))
		return 2;
	if (lb_gid_ipv4(o.peer, &dgid)) {
		fprintf(stderr, "xmit-lost: bad peer address %s\n", o.peer);
		return 2;
	}
	if (lb_dev_open(&d, o.dev, 1) || lb_dev_gid(&d, -1)) {
		fprintf(stderr, "xmit-lost: %s\n", d.err);
		lb_dev_close(&d);
		return 2;
	}
	if (hw_counters_read(o.dev, 1, names, c0, 2) < 0 || c0[0] < 0) {
		fprintf(stderr, "xmit-lost: cannot read %s's send_err\n", o.dev);
		lb_dev_close(&d);
		return 2;
	}
	ud = ud_burst(&d, &dgid, o.ud);
	rc = ud == 2 ? 2 : rc_write(&d, &dgid, &o);
	lb_dev_close(&d);
	if (ud == 2 || rc == 2)
		return 2;
	hw_counters_read(o.dev, 1, names, c1, 2);
	printf("%s: send_err +%lld, sent_pkts +%lld\n", o.dev, c1[0] - c0[0], c1[1] - c0[1]);
	if (c1[0] <= c0[0]) {
		printf("FAIL: send_err did not grow: the qdisc refused no packet, nothing was "
		       "tested\n");
		return 1;
	}
	if (ud || rc)
		return 1;
	printf("xmit-lost: ok\n");
	return 0;
}
