// SPDX-License-Identifier: GPL-2.0
#include "world.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PG 4096ul
#define RW_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define SENTINEL_QKEY 0x5e171e1u

__attribute__((format(printf, 2, 3)))
static int werr(struct fz_world *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->err, sizeof(w->err), fmt, ap);
	va_end(ap);
	return -1;
}

__attribute__((format(printf, 2, 3)))
static int wfind(struct fz_world *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(w->finding, sizeof(w->finding), fmt, ap);
	va_end(ap);
	return -1;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int fz_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms)
{
	long long end = now_ms() + ms;
	int got = 0, k;

	while (got < n) {
		k = ibv_poll_cq(cq, n - got, wc + got);
		if (k < 0)
			return -1;
		got += k;
		if (got < n && now_ms() > end)
			break;
		if (!k)
			usleep(50);
	}
	return got;
}

/* ---- memory regions ---- */

static uint8_t canary(size_t i, int id)
{
	return (uint8_t)(i * 131 + (size_t)id * 17 + 0x5a);
}

/*
 * Map a window of len bytes starting off_in_page bytes into a page, with a
 * whole canary page on each side, and register it (unless access < 0).
 */
static int mk_mr(struct fz_world *w, int id, const char *name, size_t len, size_t off_in_page,
		 int iova_mode, uint64_t iova, int access)
{
	struct fz_mr *m = &w->mr[id];
	size_t i;

	m->name = name;
	m->off = PG + off_in_page;
	m->len = len;
	m->map_len = PG + ((off_in_page + len + PG - 1) & ~(PG - 1)) + PG;
	m->map = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		return werr(w, "mmap %zu bytes for MR %s: %s", m->map_len, name, strerror(errno));
	}
	m->shadow = malloc(m->map_len);
	if (!m->shadow)
		return werr(w, "out of memory");
	for (i = 0; i < m->map_len; i++)
		m->map[i] = m->shadow[i] = canary(i, id);
	if (w->no_odp)
		access &= ~IBV_ACCESS_ON_DEMAND;
	m->access = access;
	m->odp = !!(access & IBV_ACCESS_ON_DEMAND);
	if (iova_mode)
		m->mr = ibv_reg_mr_iova(w->dev.pd, m->map + m->off, len, iova, access);
	else
		m->mr = ibv_reg_mr(w->dev.pd, m->map + m->off, len, access);
	if (!m->mr)
		return werr(w, "ibv_reg_mr %s (%zu bytes, access %#x): %s", name, len, access,
			    strerror(errno));
	m->iova = iova_mode ? iova : (uint64_t)(uintptr_t)(m->map + m->off);
	m->rkey = m->mr->rkey;
	m->lkey = m->mr->lkey;
	return 0;
}

static int mk_stale(struct fz_world *w, int id, const char *name, int access)
{
	struct fz_mr *m = &w->mr[id];

	if (mk_mr(w, id, name, 2 * PG, 0, 0, 0, access))
		return -1;
	if (ibv_dereg_mr(m->mr))
		return werr(w, "ibv_dereg_mr %s failed", name);
	m->mr = NULL;
	m->stale = 1;
	return 0;
}

int fz_mr_by_rkey(const struct fz_world *w, uint32_t rkey)
{
	int i;

	for (i = 0; i < FZ_NMR; i++)
		if (w->mr[i].mr && !w->mr[i].stale && w->mr[i].rkey == rkey)
			return i;
	return -1;
}

void fz_permit(struct fz_world *w, int mr, size_t start, size_t end)
{
	if (start >= end)
		return;
	if (w->npermit == FZ_MAX_PERMIT) {
		/* a coarser permit, never a missing one */
		w->permit_overflow = 1;
		return;
	}
	w->permit[w->npermit++] = (struct fz_permit){ mr, start, end };
}

void fz_permit_remote(struct fz_world *w, uint32_t rkey, uint64_t va, uint64_t len, int access)
{
	int i = fz_mr_by_rkey(w, rkey);
	const struct fz_mr *m;
	uint64_t start;

	if (i < 0 || !len)
		return;
	m = &w->mr[i];
	if (!(m->access & access) || va < m->iova)
		return;
	start = va - m->iova;
	if (start > m->len || len > m->len - start)
		return;
	fz_permit(w, i, (size_t)start, (size_t)(start + len));
}

static int permitted(const struct fz_world *w, int mr, size_t pos)
{
	int i;

	if (w->permit_overflow)
		return 1;
	/* a posted receive may complete in any later batch */
	if (mr == MR_RECV) {
		size_t slot = pos / FZ_SLOT_SIZE, in = pos % FZ_SLOT_SIZE;

		if (slot < FZ_NSLOTS && in >= FZ_SLOT_GAP && in < FZ_SLOT_GAP + w->slot_len[slot])
			return 1;
	}
	for (i = 0; i < w->npermit; i++)
		if (w->permit[i].mr == mr && pos >= w->permit[i].start && pos < w->permit[i].end)
			return 1;
	return 0;
}

/* Why a change at map offset pos is not allowed, or NULL if it is. */
static const char *violation(const struct fz_world *w, int id, size_t pos)
{
	const struct fz_mr *m = &w->mr[id];
	size_t wp;

	if (pos < m->off || pos >= m->off + m->len)
		return "canary outside the MR window";
	wp = pos - m->off;
	if (m->ro_len && wp >= m->ro_off && wp < m->ro_off + m->ro_len)
		return "PROT_READ page inside the window";
	if (m->stale)
		return "deregistered MR";
	if (!permitted(w, id, wp))
		return "window bytes outside every aimed range";
	return NULL;
}

int fz_check_memory(struct fz_world *w)
{
	int id, bad = 0;
	size_t n = 0;

	w->finding[0] = 0;
	for (id = 0; id < FZ_NMR; id++) {
		struct fz_mr *m = &w->mr[id];
		size_t i, j;

		if (!m->map || !memcmp(m->map, m->shadow, m->map_len))
			continue;
		for (i = 0; i < m->map_len; i++) {
			const char *why;

			if (m->map[i] == m->shadow[i])
				continue;
			why = violation(w, id, i);
			if (why) {
				/* one line per run of bytes with the same reason */
				for (j = i; j + 1 < m->map_len && m->map[j + 1] != m->shadow[j + 1] &&
					    violation(w, id, j + 1) == why; j++)
					;
				if (!bad)
					n = strlen(w->finding);
				if (n < sizeof(w->finding) - 160)
					n += (size_t)snprintf(w->finding + n, sizeof(w->finding) - n,
						"%sMR %s (iova %#llx, %zu bytes): %zu byte(s) at window offset %lld changed: %s",
						bad ? "; " : "", m->name,
						(unsigned long long)m->iova, m->len, j - i + 1,
						(long long)i - (long long)m->off, why);
				bad++;
				memcpy(m->shadow + i, m->map + i, j - i + 1);
				i = j;
				continue;
			}
			m->shadow[i] = m->map[i];
		}
	}
	w->npermit = 0;
	w->permit_overflow = 0;
	return bad;
}

void fz_odp_churn(struct fz_world *w, struct rng *r)
{
	static const int odp[] = { MR_ODP, MR_ODP_SUBPAGE, MR_ODP_IOVA_HIGH, MR_ODP_IOVA_ZERO,
				   MR_ODP_RO, MR_LOCAL_ODP };
	struct fz_mr *m = &w->mr[odp[rng_below(r, 6)]];
	size_t first = m->off & ~(PG - 1);
	size_t end = (m->off + m->len + PG - 1) & ~(PG - 1);
	size_t a = first + (size_t)rng_below(r, (end - first) / PG) * PG;
	size_t n = (1 + (size_t)rng_below(r, 4)) * PG;

	if (!m->odp || !m->mr)
		return;
	if (a + n > end)
		n = end - a;
	/* the pages go; rxe must fault in zero pages, and sees invalidations */
	if (!madvise(m->map + a, n, MADV_DONTNEED))
		memset(m->shadow + a, 0, n);
}

/* ---- /dev/kmsg ---- */

int fz_check_kmsg(struct fz_world *w)
{
	static const char *const bad[] = {
		"WARNING:", "BUG:", "Oops", "general protection", "KASAN", "UBSAN",
		"refcount_t", "list_add corruption", "list_del corruption", "lockdep",
		"possible circular locking", "soft lockup", "hung task", "Call Trace",
	};
	char rec[2048];
	ssize_t k;
	size_t i;
	int found = 0;

	if (w->kmsg < 0)
		return 0;
	for (;;) {
		k = read(w->kmsg, rec, sizeof(rec) - 1);
		if (k < 0 && errno == EPIPE)
			continue;	/* records were overwritten; go on */
		if (k <= 0)
			break;
		rec[k] = 0;
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			if (!strstr(rec, bad[i]))
				continue;
			if (!found) {
				char *msg = strchr(rec, ';');

				msg = msg ? msg + 1 : rec;
				msg[strcspn(msg, "\n")] = 0;
				wfind(w, "kernel report: %s", msg);
			}
			found = 1;
		}
	}
	return found;
}

/* ---- QP registry and the acceptance model ---- */

int fz_qp_add(struct fz_world *w, uint32_t qpn, enum fz_role role, enum ibv_qp_type type,
	      int state, uint32_t qkey)
{
	if (w->nqp == FZ_MAX_QPREF)
		return werr(w, "too many QPs in the registry");
	w->qp[w->nqp++] = (struct fz_qpref){ qpn, role, type, state, qkey, 0 };
	return 0;
}

void fz_qp_del(struct fz_world *w, uint32_t qpn)
{
	int i;

	for (i = 0; i < w->nqp; i++) {
		if (w->qp[i].qpn != qpn)
			continue;
		w->qp[i] = w->qp[--w->nqp];
		if (w->ndead < FZ_MAX_DEAD)
			w->dead_qpn[w->ndead++] = qpn;
		else
			w->dead_qpn[qpn % FZ_MAX_DEAD] = qpn;
		return;
	}
}

struct fz_qpref *fz_qp_find(struct fz_world *w, uint32_t qpn)
{
	int i;

	for (i = 0; i < w->nqp; i++)
		if (w->qp[i].qpn == qpn)
			return &w->qp[i];
	return NULL;
}

static int rxe_knows(uint8_t op)
{
	return roce_ops[op].name && op != 0x55 && op != OP_CNP;
}

/* RC opcodes a responder handles (the rest of RC are responses) */
static int rc_request(uint8_t op)
{
	return op < 0x20 && !(op >= OP_READ_RESP_FIRST && op <= OP_ATOMIC_ACK);
}

struct fz_qpref *fz_model_accepts(struct fz_world *w, const uint8_t *buf, size_t len,
				  struct roce_pkt *f, int *certain)
{
	struct fz_qpref *q;
	int icrc_ok, req;

	*certain = 1;
	if (roce_decode(buf, len, f, &icrc_ok) || f->truncate || !icrc_ok || f->tver ||
	    f->daddr != 0x7f000001 || f->dport != ROCE_UDP_PORT || !rxe_knows(f->opcode))
		return NULL;
	q = fz_qp_find(w, f->dqpn);
	if (!q || (f->pkey & 0x7fff) != 0x7fff)
		return NULL;
	if (q->type == IBV_QPT_RC) {
		if (f->opcode >= 0x20 || f->saddr != 0x7f000001)
			return NULL;
		req = rc_request(f->opcode);
	} else {
		if ((f->opcode & 0xe0) != OP_UD || f->deth_qkey != q->qkey)
			return NULL;
		/* a UD message is one packet of at most the port's active
		 * MTU: rxe_rcv() drops a longer one (patch 0029) */
		if (f->payload_len > (128u << w->dev.port_attr.active_mtu))
			return NULL;
		req = 1;
	}
	if (q->state < (req ? IBV_QPS_RTR : IBV_QPS_RTS))
		return NULL;
	/* a UDP checksum is checked by the UDP layer (whether a wrong one
	 * gets through on lo is not the fuzzer's business) */
	if (f->udp_csum)
		*certain = 0;
	return q;
}

/* ---- sending ---- */

int fz_send(struct fz_world *w, const uint8_t *buf, size_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	ssize_t k;

	memcpy(&to.sin_addr, buf + 16, 4);
	k = sendto(w->raw, buf, len, 0, (struct sockaddr *)&to, sizeof(to));
	if (k < 0 && errno != EINVAL && errno != EMSGSIZE)
		return werr(w, "sendto (%zu bytes): %s", len, strerror(errno));
	return 0;
}

/* ---- receive slots, UD QPs ---- */

uint8_t *fz_slot_sge(struct fz_world *w, int slot)
{
	struct fz_mr *m = &w->mr[MR_RECV];

	return m->map + m->off + (size_t)slot * FZ_SLOT_SIZE + FZ_SLOT_GAP;
}

int fz_post_recv_slot(struct fz_world *w, struct ibv_qp *qp, int slot, size_t sge_len)
{
	struct fz_mr *m = &w->mr[MR_RECV];
	struct ibv_sge sge = {
		.addr = (uintptr_t)fz_slot_sge(w, slot),
		.length = (uint32_t)sge_len,
		.lkey = m->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		return werr(w, "ibv_post_recv (slot %d): %s", slot, strerror(errno));
	if (w->slot_len[slot] < sge_len)
		w->slot_len[slot] = sge_len;
	return 0;
}

static int ud_create(struct fz_world *w, struct fz_ud *u, uint32_t qkey, int slot0, int nslots,
		     size_t sge_len)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 16, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	int i;

	u->qkey = qkey;
	u->slot0 = slot0;
	u->nslots = nslots;
	u->sge_len = sge_len;
	u->cq = ibv_create_cq(w->dev.ctx, 32, NULL, NULL, 0);
	if (!u->cq)
		return werr(w, "ibv_create_cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = u->cq;
	u->qp = ibv_create_qp(w->dev.pd, &ia);
	if (!u->qp)
		return werr(w, "ibv_create_qp(UD): %s", strerror(errno));
	if (lb_ud_ready(&w->dev, u->qp, qkey, 0))
		return werr(w, "%s", w->dev.err);
	for (i = 0; i < nslots; i++)
		if (fz_post_recv_slot(w, u->qp, slot0 + i, sge_len))
			return -1;
	return fz_qp_add(w, u->qp->qp_num, ROLE_UD, IBV_QPT_UD, IBV_QPS_RTS, qkey);
}

int fz_sentinel(struct fz_world *w)
{
	struct fz_ud *s = &w->sentinel;
	uint8_t buf[256], data[8];
	struct roce_pkt p;
	struct ibv_wc wc;
	size_t len;
	uint64_t seq = ++w->sentinel_seq;
	int slot, i;

	for (i = 0; i < 8; i++)
		data[i] = (uint8_t)(seq >> (8 * i));
	roce_pkt_init(&p);
	p.opcode = OP_UD | OP_SEND_ONLY;
	p.dqpn = s->qp->qp_num;
	p.deth_qkey = s->qkey;
	p.deth_sqpn = 0x5e;
	p.psn = (uint32_t)seq & PSN_MASK;
	p.payload = data;
	p.payload_len = sizeof(data);
	p.ip_id = ++w->ip_id ? w->ip_id : ++w->ip_id;
	len = roce_build(&p, buf, sizeof(buf));
	if (fz_send(w, buf, len))
		return wfind(w, "%s", w->err);
	if (fz_poll(s->cq, &wc, 1, 10000) != 1)
		return wfind(w, "the sentinel packet (a crafted UD SEND) was not received in 10 s: rxe stopped receiving");
	slot = (int)wc.wr_id;
	if (wc.status != IBV_WC_SUCCESS || wc.byte_len != GRH_BYTES + sizeof(data) ||
	    memcmp(fz_slot_sge(w, slot) + GRH_BYTES, data, sizeof(data)))
		return wfind(w, "the sentinel packet arrived wrong (status %s, %u bytes)",
			     ibv_wc_status_str(wc.status), wc.byte_len);
	if (fz_post_recv_slot(w, s->qp, slot, s->sge_len))
		return wfind(w, "%s", w->err);
	return 0;
}

int fz_calibrate(struct fz_world *w)
{
	struct fz_ud *s = &w->sentinel;
	uint8_t buf[256], data[8] = "badicrc";
	struct roce_pkt p;
	struct ibv_wc wc;
	size_t len;
	int k;

	if (fz_sentinel(w))
		return werr(w, "a crafted UD packet with a computed ICRC was not accepted (%s): the ICRC or the address model does not match this rxe",
			    w->finding);
	roce_pkt_init(&p);
	p.opcode = OP_UD | OP_SEND_ONLY;
	p.dqpn = s->qp->qp_num;
	p.deth_qkey = s->qkey;
	p.payload = data;
	p.payload_len = sizeof(data);
	p.icrc_xor = 1;
	p.ip_id = 7;
	len = roce_build(&p, buf, sizeof(buf));
	if (fz_send(w, buf, len))
		return -1;
	if (fz_sentinel(w))
		return werr(w, "after a packet with a wrong ICRC: %s", w->finding);
	k = ibv_poll_cq(s->cq, 1, &wc);
	if (k != 0)
		return werr(w, "rxe accepted a packet whose ICRC was wrong");
	fz_check_memory(w);
	return 0;
}

/* ---- RC pairs ---- */

int fz_qp_to_init(struct fz_world *w, struct ibv_qp *qp, unsigned int access)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return werr(w, "modify QP %u to RESET: %s", qp->qp_num, strerror(errno));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = w->dev.port;
	a.qp_access_flags = access;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return werr(w, "modify QP %u to INIT: %s", qp->qp_num, strerror(errno));
	return 0;
}

int fz_wait_sq_psn(struct fz_world *w, struct ibv_qp *qp, uint32_t psn, int ms)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	long long end = now_ms() + ms;

	for (;;) {
		if (ibv_query_qp(qp, &a, IBV_QP_SQ_PSN, &ia))
			return werr(w, "ibv_query_qp: %s", strerror(errno));
		if (psn_diff(a.sq_psn, psn) >= 0)
			return 0;
		if (now_ms() > end)
			return werr(w, "QP %u did not send its requests in %d ms (sq_psn %#x, want %#x)",
				    qp->qp_num, ms, a.sq_psn, psn);
		usleep(200);
	}
}

static const uint32_t psn_choices[] = { 0, 1, 0x7fffff, 0x800000, 0xfffffe, 0xffffff, 0xfffff0 };

int fz_pair_new(struct fz_world *w, struct fz_pair *pr, struct rng *r, enum fz_role ra,
		enum fz_role rb)
{
	static const unsigned int all = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
					IBV_ACCESS_REMOTE_ATOMIC;
	enum ibv_mtu mtu = (enum ibv_mtu)(rng_pct(r, 60) ? IBV_MTU_4096 : 1 + rng_below(r, 5));

	memset(pr, 0, sizeof(*pr));
	pr->at.cqe_a = 32;
	pr->at.cqe_b = 32;
	pr->at.cap = (struct ibv_qp_cap){ .max_send_wr = 16, .max_recv_wr = 16,
					  .max_send_sge = 2, .max_recv_sge = 2 };
	pr->at.access = rng_pct(r, 85) ? all : all & (unsigned int)~(1u << (1 + rng_below(r, 3)));
	pr->at.mtu = mtu;
	pr->at.psn = rng_pct(r, 50) ? psn_choices[rng_below(r, 7)] : (uint32_t)rng_u64(r) & PSN_MASK;
	pr->at.max_rd_atomic = rng_pct(r, 90) ? (uint8_t)(1 + rng_below(r, 16)) : 0;
	pr->at.hop_limit = 64;
	pr->at.timeout = 14;
	pr->mtu = 128u << mtu;
	if (lb_pair_create(&w->dev, &pr->p, &pr->at))
		return werr(w, "creating an RC pair: %s", w->dev.err);
	if (fz_qp_add(w, pr->p.a.qp->qp_num, ra, IBV_QPT_RC, IBV_QPS_RTS, 0) ||
	    fz_qp_add(w, pr->p.b.qp->qp_num, rb, IBV_QPT_RC, IBV_QPS_RTS, 0))
		return -1;
	return 0;
}

void fz_pair_free(struct fz_world *w, struct fz_pair *pr)
{
	if (pr->p.a.qp)
		fz_qp_del(w, pr->p.a.qp->qp_num);
	if (pr->p.b.qp)
		fz_qp_del(w, pr->p.b.qp->qp_num);
	lb_pair_destroy(&pr->p);
	memset(pr, 0, sizeof(*pr));
}

static int post_send(struct fz_world *w, struct ibv_qp *qp, enum ibv_wr_opcode op, void *addr,
		     uint32_t len, uint32_t lkey, uint64_t raddr, uint32_t rkey, uint64_t add)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len, .lkey = lkey };
	struct ibv_send_wr wr = {
		.wr_id = op, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (op == IBV_WR_ATOMIC_FETCH_AND_ADD || op == IBV_WR_ATOMIC_CMP_AND_SWP) {
		wr.wr.atomic.remote_addr = raddr;
		wr.wr.atomic.rkey = rkey;
		wr.wr.atomic.compare_add = add;
		wr.wr.atomic.swap = add;
	} else {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = rkey;
	}
	if (ibv_post_send(qp, &wr, &bad))
		return werr(w, "ibv_post_send: %s", strerror(errno));
	return 0;
}

/* Fill len bytes at p with a pattern of the batch's RNG. */
static void fill(struct rng *r, uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)rng_u64(r);
}

static int traffic_on(struct fz_world *w, struct lb_pair *lp, struct rng *r, int target,
		      int with_read_atomic, unsigned int access)
{
	struct fz_mr *src = &w->mr[MR_LOCAL_PINNED], *dst = &w->mr[target];
	uint8_t *s = src->map + src->off, *res = s + 2048;
	uint32_t len = 64 + (uint32_t)rng_below(r, 512);
	size_t off = rng_below(r, dst->len - len) & ~(size_t)7;
	uint8_t *d = dst->map + dst->off + off;
	struct ibv_wc wc[4];
	int n = 2, i, slot = SLOT_RC + (int)rng_below(r, SLOT_END - SLOT_RC);
	uint64_t before = 0;

	fill(r, s, len);
	fz_permit(w, MR_LOCAL_PINNED, 0, 4096);
	fz_permit(w, target, off, off + len);
	/* a pair made without remote write gets SENDs only */
	if (!(access & IBV_ACCESS_REMOTE_WRITE)) {
		n = 1;
		memcpy(d, s, len);
		memcpy(dst->shadow + dst->off + off, s, len);
	}
	if (fz_post_recv_slot(w, lp->b.qp, slot, 1024) ||
	    post_send(w, lp->a.qp, IBV_WR_SEND, s, 32, src->lkey, 0, 0, 0) ||
	    (n == 2 && post_send(w, lp->a.qp, IBV_WR_RDMA_WRITE, s, len, src->lkey,
				 dst->iova + off, dst->rkey, 0)))
		return wfind(w, "legitimate traffic could not be posted: %s", w->err);
	if (with_read_atomic) {
		fz_permit(w, MR_LOCAL_PINNED, 0, 4096);
		if (post_send(w, lp->a.qp, IBV_WR_RDMA_READ, res, len, src->lkey,
			      dst->iova + off, dst->rkey, 0) ||
		    post_send(w, lp->a.qp, IBV_WR_ATOMIC_FETCH_AND_ADD, res + 1024, 8, src->lkey,
			      dst->iova + off, dst->rkey, 5))
			return wfind(w, "legitimate traffic could not be posted: %s", w->err);
		n = 4;
	}
	if (fz_poll(lp->a.cq, wc, n, 10000) != n)
		return wfind(w, "legitimate traffic on QP %u -> %u: no completion in 10 s",
			     lp->a.qp->qp_num, lp->b.qp->qp_num);
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS)
			return wfind(w, "legitimate traffic on QP %u -> %u: %s",
				     lp->a.qp->qp_num, lp->b.qp->qp_num,
				     ibv_wc_status_str(wc[i].status));
	/* it lands in the first receive posted, maybe one of the batch's */
	if (fz_poll(lp->b.cq, wc, 1, 10000) != 1 || wc[0].status != IBV_WC_SUCCESS ||
	    wc[0].byte_len != 32 || memcmp(fz_slot_sge(w, (int)wc[0].wr_id), s, 32))
		return wfind(w, "legitimate SEND on QP %u -> %u: not received intact",
			     lp->a.qp->qp_num, lp->b.qp->qp_num);
	if (memcmp(d, s, len) && !with_read_atomic)
		return wfind(w, "legitimate WRITE of %u bytes into MR %s: data differs", len,
			     dst->name);
	if (with_read_atomic) {
		uint64_t got, now;

		/* in order: WRITE, READ of it, FETCH_ADD on its first 8 bytes */
		memcpy(&before, s, 8);
		memcpy(&got, res + 1024, 8);
		memcpy(&now, d, 8);
		if (memcmp(res, s, len) || got != before || now != before + 5 ||
		    memcmp(d + 8, s + 8, len - 8))
			return wfind(w, "legitimate WRITE/READ/FETCH_ADD on MR %s: data wrong",
				     dst->name);
	}
	return 0;
}

int fz_pair_traffic(struct fz_world *w, struct fz_pair *pr, struct rng *r)
{
	return traffic_on(w, &pr->p, r, rng_pct(r, 50) ? MR_PINNED : MR_ODP, 0, pr->at.access);
}

int fz_final_check(struct fz_world *w, struct rng *r)
{
	struct fz_pair pr;
	struct lb_pair_attr at;
	int t, err = 0;

	if (fz_pair_new(w, &pr, r, ROLE_NONE, ROLE_NONE))
		return wfind(w, "device check: %s", w->err);
	if (pr.at.access != (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			     IBV_ACCESS_REMOTE_ATOMIC) || !pr.at.max_rd_atomic) {
		at = pr.at;
		fz_pair_free(w, &pr);
		at.access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			    IBV_ACCESS_REMOTE_ATOMIC;
		at.max_rd_atomic = 4;
		if (lb_pair_create(&w->dev, &pr.p, &at))
			return wfind(w, "device check: %s", w->dev.err);
	}
	for (t = 0; t < 2 && !err; t++)
		err = traffic_on(w, &pr.p, r, t ? MR_ODP : MR_PINNED, 1, IBV_ACCESS_REMOTE_WRITE);
	lb_pair_destroy(&pr.p);
	return err;
}

/* ---- the world ---- */

int fz_world_init(struct fz_world *w, const char *dev, uint64_t seed, int no_odp)
{
	const int rw = RW_ACCESS, odp = IBV_ACCESS_ON_DEMAND;
	const uint64_t high = 0ull - 16 * PG;
	struct fz_mr *m;
	int i, one = 1;
	struct ibv_qp_init_attr ia = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 1, .max_recv_wr = 1,
						.max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_cq *cq;

	memset(w, 0, sizeof(*w));
	w->no_odp = no_odp;
	w->raw = -1;
	w->kmsg = -1;
	w->ip_id = (uint16_t)seed;
	if (lb_dev_open(&w->dev, dev, 1) || lb_dev_gid(&w->dev, -1))
		return werr(w, "%s", w->dev.err);
	w->raw = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (w->raw < 0)
		return werr(w, "raw IPv4 socket: %s (needs CAP_NET_RAW)", strerror(errno));
	if (setsockopt(w->raw, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one)))
		return werr(w, "IP_HDRINCL: %s", strerror(errno));
	w->kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (w->kmsg >= 0)
		lseek(w->kmsg, 0, SEEK_END);

	if (mk_mr(w, MR_PINNED, "pinned", 16 * PG, 0, 0, 0, rw) ||
	    mk_mr(w, MR_ODP, "odp", 16 * PG, 0, 0, 0, rw | odp) ||
	    mk_mr(w, MR_ODP_SUBPAGE, "odp-subpage", 5000, 100, 0, 0, rw | odp) ||
	    mk_mr(w, MR_PINNED_SUBPAGE, "pinned-subpage", 1500, 3000, 0, 0, rw) ||
	    mk_mr(w, MR_ODP_IOVA_HIGH, "odp-iova-high", 8 * PG, 0, 1, high, rw | odp) ||
	    mk_mr(w, MR_PINNED_IOVA_HIGH, "pinned-iova-high", 8 * PG, 0, 1, high, rw) ||
	    mk_mr(w, MR_ODP_IOVA_ZERO, "odp-iova-zero", 4 * PG, 0, 1, 0, rw | odp) ||
	    mk_mr(w, MR_PINNED_RO, "pinned-ro", 4 * PG, 0, 0, 0,
		  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_LOCAL_WRITE) ||
	    mk_mr(w, MR_ODP_RO, "odp-ro", 4 * PG, 0, 0, 0, IBV_ACCESS_REMOTE_READ | odp) ||
	    mk_mr(w, MR_ODP_ROPAGE, "odp-ropage", 3 * PG, 0, 0, 0, rw | odp) ||
	    mk_stale(w, MR_STALE_PINNED, "stale-pinned", rw) ||
	    mk_stale(w, MR_STALE_ODP, "stale-odp", rw | odp) ||
	    mk_mr(w, MR_LOCAL, "local-only", 4 * PG, 0, 0, 0, IBV_ACCESS_LOCAL_WRITE) ||
	    mk_mr(w, MR_RECV, "recv", (size_t)FZ_NSLOTS * FZ_SLOT_SIZE, 0, 0, 0,
		  IBV_ACCESS_LOCAL_WRITE) ||
	    mk_mr(w, MR_LOCAL_PINNED, "local-pinned", 4 * PG, 0, 0, 0, IBV_ACCESS_LOCAL_WRITE) ||
	    mk_mr(w, MR_LOCAL_ODP, "local-odp", 4 * PG, 0, 0, 0, IBV_ACCESS_LOCAL_WRITE | odp))
		return -1;
	m = &w->mr[MR_ODP_ROPAGE];
	/*
	 * Only ODP follows the process's page tables: a pinned MR (--no-odp)
	 * keeps writing the page it pinned writable, PROT_READ or not.
	 */
	if (m->odp) {
		m->ro_off = PG;
		m->ro_len = PG;
	}
	if (mprotect(m->map + m->off + PG, PG, PROT_READ))
		return werr(w, "mprotect: %s", strerror(errno));

	if (ud_create(w, &w->sentinel, SENTINEL_QKEY, SLOT_SENTINEL, 4, GRH_BYTES + 64) ||
	    ud_create(w, &w->ud[0], 0x11111111u, SLOT_UD0, 12, GRH_BYTES + 8192) ||
	    ud_create(w, &w->ud[1], 0x80000022u, SLOT_UD1, 12, GRH_BYTES + 32))
		return -1;
	/* QPNs that existed once: aimed at, they must be dropped */
	cq = ibv_create_cq(w->dev.ctx, 4, NULL, NULL, 0);
	if (!cq)
		return werr(w, "ibv_create_cq: %s", strerror(errno));
	ia.send_cq = ia.recv_cq = cq;
	for (i = 0; i < 3; i++) {
		struct ibv_qp *qp = ibv_create_qp(w->dev.pd, &ia);

		if (!qp)
			return werr(w, "ibv_create_qp: %s", strerror(errno));
		w->dead_qpn[w->ndead++] = qp->qp_num;
		ibv_destroy_qp(qp);
	}
	ibv_destroy_cq(cq);
	return fz_check_memory(w) ? werr(w, "memory changed during setup: %s", w->finding) : 0;
}

static void ud_destroy(struct fz_ud *u)
{
	if (u->qp)
		ibv_destroy_qp(u->qp);
	if (u->cq)
		ibv_destroy_cq(u->cq);
}

void fz_world_fini(struct fz_world *w)
{
	int i;

	ud_destroy(&w->sentinel);
	ud_destroy(&w->ud[0]);
	ud_destroy(&w->ud[1]);
	for (i = 0; i < FZ_NMR; i++) {
		if (w->mr[i].mr)
			ibv_dereg_mr(w->mr[i].mr);
		if (w->mr[i].map)
			munmap(w->mr[i].map, w->mr[i].map_len);
		free(w->mr[i].shadow);
	}
	lb_dev_close(&w->dev);
	if (w->raw >= 0)
		close(w->raw);
	if (w->kmsg >= 0)
		close(w->kmsg);
}
