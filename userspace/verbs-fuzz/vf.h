/* verbs-fuzz: shared declarations (world, traffic, chaos, main). */
#ifndef VF_H
#define VF_H

#include <infiniband/verbs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "loopback.h"
#include "model.h"
#include "ring.h"
#include "rng.h"

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_HWPOISON
#define MADV_HWPOISON 100
#endif
#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif
#ifndef MADV_NOHUGEPAGE
#define MADV_NOHUGEPAGE 15
#endif

#define VF_NREG		10	/* memory regions, one MR each */
#define VF_NPAIR	6	/* RC QP pairs */
#define VF_NUD		2	/* UD QPs */
#define VF_SQ		32	/* send WRs per QP */
#define VF_RQ		32	/* receive WRs per QP (and per SRQ) */
#define VF_SGE		4	/* largest max_send_sge / max_recv_sge asked */
#define VF_BLK		64	/* bytes per block of in-flight accounting */
#define VF_DEAD_KEYS	32	/* keys of deregistered MRs kept for reuse */
#define VF_MAX_POISON	48	/* hardware-poisoned pages per run at most */
#define VF_GRH		40	/* what a UD receive gets before the data */
#define UD_QKEY		0x11111111u	/* the Q_Key of every UD QP */
#define VF_HUGE		(2ul << 20)

/* Fuzz classes (--classes): what the fuzzer may do */
enum {
	C_RC = 1 << 0,		/* RC traffic */
	C_UD = 1 << 1,		/* UD traffic */
	C_SRQ = 1 << 2,		/* SRQ-attached responders */
	C_RING = 1 << 3,	/* WQEs written into the ring (FLUSH, odd fields) */
	C_MEM = 1 << 4,		/* munmap/mmap, mprotect, MADV_DONTNEED/PAGEOUT */
	C_POISON = 1 << 5,	/* MADV_HWPOISON of pages no ODP MR covers */
	C_FORK = 1 << 6,	/* fork, the child scribbling on its copy */
	C_MR = 1 << 7,		/* dereg/re-register, rereg, registration probes */
	C_QP = 1 << 8,		/* destroy QPs, move them to ERR */
	C_INJECT = 1 << 9,	/* odp_fail_faults: transient fault failures */
	C_BADOP = 1 << 10,	/* opcodes a user QP must not run */
	C_HUGE = 1 << 11,	/* hugetlbfs regions (when hugepages exist) */
	C_HOSTILE = 1 << 12,	/* WQE fields that disagree with each other */
	C_POISON_ODP = 1 << 13,	/* MADV_HWPOISON of pages under ODP MRs */
	C_HUGE_SMALL = 1 << 14,	/* ODP + IBV_ACCESS_HUGETLB on small pages */
	C_HOSTILE_RACE = 1 << 15, /* hostile WQEs rewritten while rxe works on them */
	C_ALL = (1 << 16) - 1,
};

struct vf_opts {
	uint64_t seed;
	double time;		/* seconds, 0: no limit */
	uint64_t ops;		/* work requests, 0: no limit */
	unsigned int classes;	/* C_* set (the reproducer prints it in hex): ask vf_on() */
	const char *dev;
	int gid;
	const char *corpus;
	int serial;		/* chaos inline in the traffic thread */
	double hang;		/* seconds a signaled WR may take */
	int verbose;
	int progress;		/* seconds between progress lines */
	bool regress;		/* --regress: run the bug reproducers and exit */
	const char *regress_name;	/* ... only this one (NULL: all) */
};

/* One memory region: [guard][data][guard], the MR window inside data. */
struct region {
	int used;
	int huge;			/* hugetlbfs data */
	int nothp;			/* MADV_NOHUGEPAGE */
	char *resv;			/* the whole reservation */
	size_t resv_len;
	char *data;			/* data pages */
	size_t len;
	size_t gran;			/* chaos granularity: 4 KiB or 2 MiB */
	size_t woff, wlen;		/* the MR window in data */
	uint8_t *pst;			/* enum m_page per 4 KiB page */
	uint8_t *detached;		/* per 4 KiB page: a pinned MR kept the old page */
	uint8_t *nocanary;		/* per 4 KiB page: zeroed while not writable */
	uint8_t *shadow, *known;	/* expected CPU-visible bytes */
	uint16_t *pend;			/* in-flight RDMA accesses per VF_BLK */
	uint32_t canary;		/* its canary pattern's seed */
	int mr;				/* the MR slot (index) or -1 */
	int poisoned;
};

/* One MR slot (slot i serves region i). */
struct mrec {
	int live;
	struct ibv_mr *mr;
	struct m_mr m;
	unsigned int reg_access;	/* as registered: decides if the umem is writable */
	int hugeflag;
	uint64_t gen;
};

/* Memory an access reaches: bytes [off, off + len) of region g. */
struct span {
	struct region *g;
	uint64_t off, len;
	int dest;			/* written by the access */
};

/* Do two spans reach a VF_BLK block in common (the grain of the in-flight
 * accounting, struct region.pend)? */
static inline bool vf_spans_overlap(const struct span *a, const struct span *b)
{
	return a->g == b->g && a->off / VF_BLK <= (b->off + b->len - 1) / VF_BLK &&
	       b->off / VF_BLK <= (a->off + a->len - 1) / VF_BLK;
}

/*
 * Does a WR write memory it also reaches another way: a WRITE whose target
 * overlaps its own source, a READ into the range it reads, an atomic whose
 * result SGE overlaps its target?  Its packets read and write those bytes in
 * an order no one sets (how far the requester runs ahead of the responder):
 * a WRITE's target past the overlap gets old or new bytes.  pend_busy() at
 * post does not see it: the WR's own spans are not pending yet.
 */
static inline bool vf_spans_self_overlap(const struct span *s, int n)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if ((s[i].dest || s[j].dest) && vf_spans_overlap(&s[i], &s[j]))
				return true;
	return false;
}

/* Why a WR's (or a receive WQE's) data has no determined value: the
 * reasons its data check is left out for, as a report names them. */
enum {
	CF_OVERLAP = 1 << 0,	/* an access in flight that overlaps it */
	CF_TAINT = 1 << 1,	/* a region a hostile WQE may write (hostile_taint()) */
	CF_LATE = 1 << 2,	/* the target of a WR that failed while its responder
				 * lives: packets it sent may still be written */
	CF_RECV = 1 << 3,	/* a receive WQE posted over it while it was in flight,
				 * or over whose buffers it was posted */
	CF_SELF = 1 << 4,	/* it writes memory it also reads or writes by another
				 * SGE or its remote range (vf_spans_self_overlap()) */
};

/* One span a failed WR's responder may still write (struct pair.late) */
#define VF_LATE		VF_SQ

/* A posted receive WQE. */
struct rrec {
	uint64_t id;
	int srq;			/* on the SRQ */
	struct m_recv r;
	struct wrrec *cons;		/* the message it is for (plain RQ, when known) */
	struct span sp[M_MAX_SGE];	/* its buffers, as claimed at post */
	int nsp;
	int posted;
	unsigned int conflict;		/* CF_*: another access may write its buffers
					 * around the message's scatter: not checked */
};

/* A posted send WR. */
struct wrrec {
	uint64_t id;
	int pair;			/* pair index, or VF_NPAIR + UD index */
	struct m_req req;
	int signaled;
	struct m_out out;
	uint32_t allowed;		/* requester statuses allowed (union over states) */
	uint32_t recv_allowed;		/* receive WQE statuses allowed */
	int resp_may_err;		/* the responder may go to ERR (m_out.resp_err) */
	int raced;			/* a chaos event touched it: data not checked */
	uint32_t split_now;		/* m_out.req_split of its latest evaluation */
	unsigned int conflict;		/* CF_*: why its data is not checked */
	int rnr_possible;		/* no receive WQE may be there when it arrives */
	int transient;			/* injected transient fault failures may hit it */
	uint64_t post_tick;
	struct rrec *recv;		/* the receive WQE it takes (plain RQ) */
	uint8_t *data;			/* the message / READ data / value, if known */
	uint64_t tag;			/* UD: first 8 bytes of the message */
	uint32_t src_qpn;		/* UD: the QP it was posted on (its source QP) */
	uint64_t atomic_old;		/* remote value before an atomic, if known */
	int atomic_known;
	uint64_t cmp, swap;		/* CAS compare/swap, FADD add, ATOMIC_WRITE value */
	uint32_t imm;
	struct span sp[2 + M_MAX_SGE];	/* memory it reaches, as claimed at post */
	int nsp;
	int remote_sp;			/* the index of its remote range in sp, or -1 */
	int done;			/* its send completion was handled */
	int refs;			/* send queue, consumer list, UD memory */
	int hostile;			/* a WQE no library writes: any outcome */
};

/* One QP. */
struct vq {
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_cq *scq, *rcq;
	struct sq_ring ring;
	int have_ring;
	struct m_qp m;
	int srq;			/* attached to the SRQ */
	int rnr_retry, retry_cnt;
	unsigned int max_recv_sge;	/* as the QP reports it, at most M_MAX_SGE */
	int err_seen;			/* an error completion was polled on its SQ */
	int may_err;			/* may be in ERR (a responder error, chaos) */
	int read_may_fail;		/* a READ it answered may fail when resent: rxe's
					 * replay completes the receive WQE then in
					 * progress with REM_ACCESS_ERR */
	int chaos_err;			/* chaos moved it to ERR */
	int dead;			/* destroyed by chaos */
	struct wrrec *sq[VF_SQ];	/* outstanding send WRs, in post order */
	int sqn;
	struct rrec *rq[VF_RQ];		/* outstanding receive WQEs, in post order */
	int rqn;
	struct wrrec *cons[VF_SQ * 2];	/* messages that will take receive WQEs */
	int consn;
	uint64_t consumers, recvs;	/* counted since creation */
	uint64_t recvs_done;		/* receive WQEs completed */
	char hist[4][96];		/* its last completions, for a finding's report */
	unsigned int nhist;
};

struct pair {
	int live;
	int retiring;
	uint64_t retire_tick;
	int hostile;			/* got a hostile WQE: statuses unchecked */
	unsigned int taint;		/* regions its hostile WQEs may write (bit i: region i) */
	struct span late[VF_LATE];	/* targets of its failed WRs, until it is destroyed */
	int nlate;
	struct vq a, b;			/* a sends, b responds */
	int resp_dead;			/* b stopped answering (ERR, destroyed, SEND_INV) */
	uint64_t serial;
};

/* A delayed receive (posted a few steps after the send that needs it). */
struct delayed {
	int used;
	int pair;			/* -1: the SRQ */
	struct rrec *r;
	uint64_t due;			/* op count */
};

struct stats {
	uint64_t wrs, posted, post_err, cqe, cqe_err, recv_cqe, data_checked, data_bytes;
	uint64_t chaos, chaos_kind[32], raced, pairs_made, regions_made, regs, deregs;
	uint64_t canary_checks, ring_posts, qpex_posts, ud_delivered, ud_sent, hostile;
	uint64_t self_overlap;		/* WRs left unchecked for CF_SELF */
	uint64_t status[32];
};

/* The whole state; one lock covers it. */
struct world {
	pthread_mutex_t lock;
	struct vf_opts o;
	struct lb_dev dev;
	struct ibv_pd *pd[2];		/* the main PD and another one */
	struct ibv_ah *ah;		/* UD: to our own GID */
	struct ibv_srq *srq;
	struct rrec *srqq[VF_RQ];	/* outstanding SRQ WQEs */
	int srqn;
	uint64_t srq_consumers, srq_recvs;
	unsigned int port_mtu;
	int have_qpex, have_huge, have_inject, have_poison;
	struct region reg[VF_NREG];
	struct mrec mr[VF_NREG];
	int taint[VF_NREG];		/* live pairs whose hostile WQEs may write region i */
	uint32_t dead_keys[VF_DEAD_KEYS];
	int ndead;
	struct pair pair[VF_NPAIR];
	struct vq ud[VF_NUD];
	int ud_live[VF_NUD];
	struct delayed delayed[16];
	uint64_t next_id;
	uint64_t ops;			/* work requests generated */
	uint64_t chaos_n;		/* chaos events done */
	uint64_t inject_until;		/* transient failures may hit WRs posted before this op */
	int inject_pending;
	double tick;			/* the fuzz clock (s), see vf_now() */
	int stop;
	int finding;
	char finding_text[4096];
	struct stats st;
	long page;
	int kmsg_fd;
	FILE *log;
};

extern struct world W;

/* Is any class of cls (C_* ORed) selected by --classes? */
static inline bool vf_on(unsigned int cls)
{
	return W.o.classes & cls;
}

/* main.c */
double vf_now(void);
__attribute__((format(printf, 1, 2))) void vf_finding(const char *fmt, ...);
__attribute__((format(printf, 1, 2))) void vf_log(const char *fmt, ...);
void vf_kmsg_check(void);

/* world.c */
int world_init(char *err, size_t errlen);
void world_fini(void);
int region_make(int i, struct rng *r);
void region_free(int i);
int mr_register(int i, struct rng *r);
int mr_deregister(int i);
int pair_make(int p, struct rng *r);
void pair_destroy(int p);
int ud_make(int u, struct rng *r);
void ud_destroy(int u);
struct region *region_of(uint64_t va, uint64_t *off);
enum m_page page_state(const void *ctx, uint64_t va);
void world_view(struct m_view *v, struct m_mr *buf);
void canary_fill(struct region *g, size_t from, size_t to);
int canary_check(struct region *g);
int canary_check_all(void);
void shadow_set_unknown(struct region *g, size_t off, size_t len);
void key_dead(uint32_t key);
uint32_t pattern_byte(uint32_t seed, uint64_t i);

/* traffic.c */
void traffic_step(struct rng *r);
void traffic_poll(void);
void traffic_reevaluate(int region, int all);
void traffic_drain(double secs);
void traffic_retire_pair(int p, const char *why);
void traffic_untaint_pair(int p);
void traffic_late_release(int p);
int traffic_outstanding(void);
void traffic_hang_check(void);
void traffic_maintain(struct rng *r);
const char *status_name(int st);

/* chaos.c */
void chaos_step(struct rng *r);
void *chaos_thread(void *arg);
int chaos_inject_clear(void);

/* regress.c */
int regress_run(const char *only);
void regress_list(void);

#endif
