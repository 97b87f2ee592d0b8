/* SPDX-License-Identifier: GPL-2.0 */
/* reclaim-verify: shared types.  Everything lives in struct rv_ctx (no globals). */
#ifndef RV_H
#define RV_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <rdma/rdma_cma.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "pattern.h"

#define RV_MAXQP 64
#define RV_MAXBUF (RV_MAXQP * 6)
#define RV_HUGE (2u << 20)
#define RV_MAGIC 0x52565631u	/* "RVV1" */

/* What a buffer is for; decides MR access and which reclaim events may hit it. */
enum rv_role {
	ROLE_TGT,	/* server: remote WRITE/READ target, slot n mod S per transaction */
	ROLE_RCV,	/* server: RECV buffers for the client's messages */
	ROLE_ACKSRC,	/* server: SEND source of acknowledgements (NIC reads only) */
	ROLE_ATOM,	/* server: atomic counters */
	ROLE_SRC,	/* client: WRITE and SEND source (NIC reads only) */
	ROLE_DST,	/* client: READ destination, atomic result, RECV of acks */
	RV_NROLES
};

enum { SLOT_FREE, SLOT_BUSY, SLOT_RECLAIM };

struct rv_ctx;

struct rv_buf {
	char name[32];
	struct rv_ctx *ctx;
	enum rv_role role;
	unsigned qp;
	uint8_t *base;
	size_t size, slot;
	unsigned nslots;
	bool pinned;
	bool nic_reads_only;	/* mprotect(PROT_READ) is legal while traffic runs */
	bool destructive_ok;	/* idle slots may be dropped or remapped */
	struct ibv_mr *mr;	/* its own, or (own_mr false) its side's implicit MR */
	bool own_mr;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint8_t *state;		/* per slot: SLOT_* */
	uint8_t *evmark;	/* per slot: 1 + last destructive event kind, 0 = none */
	uint8_t *dropped;	/* per slot: ever dropped/remapped (a pinned MR then
				 * keeps the old page for good) */
	uint8_t *used;		/* per slot: handed to the NIC before (for 'cgroup') */
	unsigned cursor;
	pthread_rwlock_t fill;	/* CPU writers (read side) vs mprotect (write side) */
	atomic_int inflight;	/* transfers in flight that touch this buffer */
};

/* Where a block was verified. */
enum rv_where { W_TGT, W_RCV, W_READ, W_ACK, RV_NWHERE };

/* Work-request kinds, for wr_id and error accounting. */
enum rv_wk { WK_WRITE = 1, WK_READ, WK_ATOMIC, WK_SEND, WK_RECV, WK_FINREAD, WK_FINSEND, RV_NWK };

struct rv_stats {
	atomic_ullong bytes, txns, ops[RV_NWK];
	atomic_ullong fadd, cas, atomics_ok, atomics_bad, atomics_stale, final_ok, final_bad, final_stale;
	atomic_ullong verified[RV_NWHERE], cls[RV_NWHERE][PAT_NCLASS];
	atomic_ullong bad_bytes, stale_explained, unexplained;
	atomic_ullong err[RV_NWK][32];	/* error completions: work kind x ibv_wc_status */
	atomic_ullong mismatches_printed;
};

struct rv_evstats {
	atomic_ullong n[RV_NKINDS];		/* events done */
	atomic_ullong inflight[RV_NKINDS];	/* ...with transfers in flight on the hit MR */
	atomic_ullong overlap[RV_NKINDS];	/* ...during which transfers completed */
	atomic_ullong fail[RV_NKINDS];		/* syscalls that failed (e.g. collapse busy) */
	atomic_ullong slots[RV_NKINDS];		/* slots dropped/remapped */
	atomic_ullong reaccess[RV_NKINDS];	/* ...that the NIC used again afterwards;
						 * cgroup: slots the NIC had used, found
						 * swapped out when it was to use them again */
	atomic_ullong us[RV_NKINDS];		/* time spent in the events, microseconds */
	atomic_ullong collapse_ok, collapse_fail, collapse_swapped, split_ok, split_fail, split_nodebugfs;
	atomic_ullong fork_pages, compactions, migrated, migrate_refused;
};

struct rv_hello {	/* client -> server, rdma_cm private data (<= 56 bytes) */
	uint32_t magic, qp_index, nqps, window, nslots, block, ops, pad;
};

struct rv_welcome {	/* server -> client */
	uint32_t magic, flags;	/* flags: bit per server role that is pinned */
	uint64_t tgt_addr, atom_addr;
	uint32_t tgt_rkey, atom_rkey;
};

/* Immediate data of the client's notice. */
#define IMM_FIN (1u << 31)
#define IMM_SRC_PINNED (1u << 30)
#define IMM_MSG_PINNED (1u << 29)
#define IMM_N_MASK ((1u << 29) - 1)
/* Immediate data of the server's acknowledgement: n:24, tgt class:4, msg class:4. */
#define ACK_N_MASK 0xffffffu
#define ACK_FIN 0xffffffffu

struct rv_sqp {
	struct rv_ctx *ctx;
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	unsigned q;
	struct rv_hello h;
	struct rv_buf *tgt, *rcv, *acksrc, *atom;
	uint64_t next_n;
	bool used, established, fin, dead, counted, err_seen;
};

struct rv_server {
	struct rv_ctx *ctx;
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_device_attr dattr;
	struct rv_sqp qp[RV_MAXQP];
	unsigned nqps, nfin;
	double t_first;		/* rv_now() of the first connection request */
	atomic_bool ready;
	int rc;
};

struct rv_txn {
	uint64_t n;
	int dst;
	bool active, src_pinned;
};

struct rv_cqp {
	struct rv_ctx *ctx;
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	unsigned q;
	struct rv_buf *src, *dst;
	uint64_t tgt_addr, atom_addr;
	uint32_t tgt_rkey, atom_rkey, srv_flags;
	unsigned nslots;
	struct rv_txn tx[64];
	uint64_t next_n, acked;
	uint64_t expect[64];
	int final_slot;
	bool dead, final_sent, final_done, fin_sent, fin_done, counted, err_seen;
};

struct rv_client {
	struct rv_ctx *ctx;
	struct rdma_event_channel *ec;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_device_attr dattr;
	struct rv_cqp qp[RV_MAXQP];
	unsigned ndone;
	int rc;
};

#define RV_NVM 14
#define RV_NHW 64

struct rv_snap {
	double t;
	unsigned long long vm[RV_NVM];
	unsigned nhw;
	char hwname[RV_NHW][48];
	unsigned long long hw[RV_NHW];
	unsigned long long cg_max_events, cg_oom, cg_oom_kill;
};

struct rv_ctx {
	struct rv_config cfg;
	const char *prog;
	struct rv_stats st;
	struct rv_evstats ev;
	pthread_mutex_t reg_lock;
	struct rv_buf *bufs[RV_MAXBUF];
	unsigned nbufs, buf_seq;
	/* --implicit: one implicit ODP MR per PD (a side has one PD), under
	 * reg_lock; the counts are what the report shows */
	struct { struct ibv_pd *pd; struct ibv_mr *mr; } imr[2];
	unsigned implicit_mrs, buffer_mrs;
	atomic_bool traffic_started, stop_traffic, stop_reclaim, client_done;
	atomic_ullong completions;	/* every successful completion, for overlap/stall */
	char dev[64];
	char fatal[256];
	atomic_int failed;
	/* cgroup */
	bool cg_active;
	char cg_root[128];	/* cgroup v2 mount; empty: /sys/fs/cgroup */
	char cg_path[256], cg_orig[128 + 200];	/* cg_root + a path of /proc/self/cgroup */
	size_t cg_limit, working_set;
	bool have_swap;
	unsigned numa_nodes;
	struct rv_snap s0, s1;
	struct rv_server *srv;
	struct rv_client *cli;
};

/* A thread main.c starts and waits for; started only once it exists. */
struct rv_thr {
	pthread_t th;
	void *(*fn)(void *);
	void *arg;
	atomic_bool done, started;
};

/*
 * Who calls whom (no circle; `nm -u` of each object shows it):
 *   main.c     calls every part below;
 *   server.c, client.c (one role each, never each other) call the traffic
 *              layers of traffic.h: xfer.c (posting, checking completions),
 *              conn.c (rdma_cm set-up) and buffers.c (pools and slots);
 *   xfer.c calls buffers.c; buffers.c, conn.c, reclaim.c and cgroup.c
 *              call only common.c;
 *   and any of them the pattern code (pattern.c) and config.c.
 * tests/host/30 checks these edges on the objects.
 */

/* common.c */
double rv_now(void);
void rv_fatal(struct rv_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* fn(arg) on a new thread (attr may be NULL): pthread_create's result;
 * t->started is set only when the thread was made, t->done when fn returned */
int rv_thr_start(struct rv_thr *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
/* join t if it was started (once) */
void rv_thr_join(struct rv_thr *t);

/* server.c */
int rv_server_start(struct rv_ctx *ctx, struct rv_server *s);
void *rv_server_main(void *arg);
void rv_server_cleanup(struct rv_server *s);
/* client.c */
int rv_client_setup(struct rv_ctx *ctx, struct rv_client *c);
void *rv_client_main(void *arg);
void rv_client_cleanup(struct rv_client *c);
/* buffers.c: bytes the buffers of one side (or both) take */
size_t rv_working_set(const struct rv_config *cfg, bool server, bool client);

/* reclaim.c */
void *rv_reclaim_main(void *arg);

/* cgroup.c: rv_cgroup_enter() fails (-1, rv_fatal) leaving no cgroup behind */
int rv_cgroup_enter(struct rv_ctx *ctx);
void rv_cgroup_leave(struct rv_ctx *ctx);
void rv_cgroup_read(struct rv_ctx *ctx, struct rv_snap *s);


#endif
