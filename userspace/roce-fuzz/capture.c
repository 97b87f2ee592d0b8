// SPDX-License-Identifier: GPL-2.0
/*
 * --capture: check the fuzzer's ICRC against packets rxe itself sends.  On
 * a device whose netdev is a real link (not lo, where rxe loops packets
 * back inside itself), send a UD SEND and RC WRITE, READ, SEND and atomic
 * requests to a peer address that has no RDMA, capture them with an
 * AF_PACKET socket and recompute every ICRC.
 */
#include "capture.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "loopback.h"
#include "pkt.h"

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, const char *what)
{
	if (ibv_modify_qp(qp, a, mask)) {
		fprintf(stderr, "roce-fuzz: capture: modify QP to %s: %s\n", what, strerror(errno));
		return -1;
	}
	return 0;
}

static int post(struct ibv_qp *qp, enum ibv_wr_opcode op, struct ibv_mr *mr, uint32_t len,
		struct ibv_ah *ah)
{
	struct ibv_sge sge = { (uintptr_t)mr->addr, len, mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op }, *bad;

	wr.wr.rdma.remote_addr = 0x100000;
	wr.wr.rdma.rkey = 0x4242;
	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		wr.wr.atomic.remote_addr = 0x100000;
		wr.wr.atomic.rkey = 0x4242;
		wr.wr.atomic.compare_add = 1;
	}
	if (ah) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = 0x77;
		wr.wr.ud.remote_qkey = 0x1234;
	}
	if (ibv_post_send(qp, &wr, &bad)) {
		fprintf(stderr, "roce-fuzz: capture: post: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int fz_capture(const char *devname, const char *ifname, const char *peer, int dump)
{
	static uint8_t buf[4096] __attribute__((aligned(8)));
	struct lb_dev d;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *ud = NULL, *rc = NULL;
	struct ibv_ah *ah = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_qp_attr a;
	struct ibv_ah_attr aa;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };
	union ibv_gid dgid;
	int s = -1, rc_ = 2, good = 0, bad = 0, ops = 0, dumped = 0;
	unsigned int seen[256] = { 0 };
	time_t end;

	if (lb_gid_ipv4(peer, &dgid)) {
		fprintf(stderr, "roce-fuzz: capture: bad peer address %s\n", peer);
		return 2;
	}
	if (lb_dev_open(&d, devname, 1) || lb_dev_gid(&d, -1)) {
		fprintf(stderr, "roce-fuzz: capture: %s\n", d.err);
		goto out;
	}
	/* outgoing packets reach only ETH_P_ALL taps */
	s = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (s < 0 || !sll.sll_ifindex || bind(s, (struct sockaddr *)&sll, sizeof(sll)) ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		fprintf(stderr, "roce-fuzz: capture: AF_PACKET socket on %s: %s\n", ifname,
			strerror(errno));
		goto out;
	}
	static uint8_t mem[8192];
	mr = ibv_reg_mr(d.pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	cq = ibv_create_cq(d.ctx, 16, NULL, NULL, 0);
	if (!mr || !cq) {
		fprintf(stderr, "roce-fuzz: capture: MR/CQ: %s\n", strerror(errno));
		goto out;
	}
	{
		struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
					       .cap = { 4, 4, 1, 1, 0 } };

		ud = ibv_create_qp(d.pd, &ia);
		ia.qp_type = IBV_QPT_RC;
		rc = ibv_create_qp(d.pd, &ia);
		if (!ud || !rc) {
			fprintf(stderr, "roce-fuzz: capture: create QP: %s\n", strerror(errno));
			goto out;
		}
	}
	memset(&aa, 0, sizeof(aa));
	aa.is_global = 1;
	aa.grh.dgid = dgid;
	aa.grh.sgid_index = (uint8_t)d.gid_index;
	aa.grh.hop_limit = 64;
	aa.port_num = 1;
	ah = ibv_create_ah(d.pd, &aa);
	if (!ah) {
		fprintf(stderr, "roce-fuzz: capture: create AH to %s: %s\n", peer, strerror(errno));
		goto out;
	}
	if (lb_ud_ready(&d, ud, 0x1234, 0)) {
		fprintf(stderr, "roce-fuzz: capture: %s\n", d.err);
		goto out;
	}
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (modify(rc, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS,
		   "INIT"))
		goto out;
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = 0x88;
	a.rq_psn = 0xfffffe;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr = aa;
	if (modify(rc, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR"))
		goto out;
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 12;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0xfffffe;	/* the first packets wrap the PSN */
	a.max_rd_atomic = 1;
	if (modify(rc, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
		   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC, "RTS"))
		goto out;
	memset(mem, 0xa5, sizeof(mem));
	if (post(ud, IBV_WR_SEND, mr, 64, ah) || post(ud, IBV_WR_SEND, mr, 3, ah) ||
	    post(rc, IBV_WR_RDMA_WRITE, mr, 2500, NULL) || post(rc, IBV_WR_SEND, mr, 13, NULL) ||
	    post(rc, IBV_WR_RDMA_READ, mr, 100, NULL) ||
	    post(rc, IBV_WR_ATOMIC_FETCH_AND_ADD, mr, 8, NULL))
		goto out;
	end = time(NULL) + 5;
	while (time(NULL) < end) {
		struct roce_parsed p;
		ssize_t n = recv(s, buf, sizeof(buf), 0);
		size_t i;

		if (n <= 0)
			continue;
		if (roce_parse(buf, (size_t)n, &p))
			continue;
		if (p.icrc == p.icrc_calc)
			good++;
		else
			bad++;
		if (!seen[p.opcode]++)
			ops++;
		printf("captured %-18s qpn %#08x psn %#08x %4zu bytes: ICRC %08x, computed %08x %s\n",
		       roce_ops[p.opcode].name, p.dqpn, p.psn, (size_t)n, p.icrc, p.icrc_calc,
		       p.icrc == p.icrc_calc ? "ok" : "MISMATCH");
		if (dump && dumped < 2 && (size_t)n <= 200) {
			dumped++;
			for (i = 0; i < (size_t)n; i++)
				printf("%02x%s", buf[i], i % 16 == 15 ? "\n" : " ");
			printf("\n");
		}
		if (good + bad >= 40)
			break;
	}
	printf("capture: %d packets with the ICRC rxe computed, %d mismatches, %d opcodes\n",
	       good, bad, ops);
	rc_ = bad || good < 5 || ops < 5 ? 1 : 0;
out:
	if (ah)
		ibv_destroy_ah(ah);
	if (rc)
		ibv_destroy_qp(rc);
	if (ud)
		ibv_destroy_qp(ud);
	if (cq)
		ibv_destroy_cq(cq);
	if (mr)
		ibv_dereg_mr(mr);
	lb_dev_close(&d);
	if (s >= 0)
		close(s);
	return rc_;
}
