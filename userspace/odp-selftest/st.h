/* odp-selftest: shared declarations (framework, verbs helpers, system probes). */
#ifndef ODP_SELFTEST_H
#define ODP_SELFTEST_H

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "counters.h"
#include "loopback.h"

enum { T_PASS = 0, T_FAIL = 1, T_SKIP = 2 };

/* Per-test environment: each test runs in its own forked process and gets a
 * freshly opened device and PD. */
struct env {
	const char *dev_name;
	int gid_opt;           /* --gid: GID index, -1 = the IPv4-mapped GID */
	struct lb_dev dev;     /* opened device (port 1), PD and the GID in use */
	struct ibv_device_attr_ex attr;
	long page;
	int poll_ms;           /* give up waiting for one completion after this */
	int verbose;
	char reason[256];      /* skip reason */
};

struct test {
	const char *name;
	int (*fn)(struct env *e);
	const char *desc;
};

extern const struct test tests[];
extern const size_t n_tests;

/* perm.c: permanent vs transient fault failures */
int t_perm_truncate_remote(struct env *e);
int t_perm_truncate_local(struct env *e);
int t_perm_truncate_pinned(struct env *e);
int t_perm_hwpoison(struct env *e);
int t_perm_prot(struct env *e);
int t_perm_punch_hole(struct env *e);
int t_perm_race(struct env *e);
int t_perm_transient(struct env *e);

/* prefetch.c: advise_mr (prefetch) of ODP MRs */
int t_prefetch_sync(struct env *e);
int t_prefetch_sges(struct env *e);
int t_prefetch_no_fault(struct env *e);
int t_prefetch_write_cow(struct env *e);
int t_prefetch_async(struct env *e);
int t_prefetch_race(struct env *e);
int t_prefetch_errors(struct env *e);

/* Diagnostics go to stdout as "# ..." lines (TAP comments). */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			diag("%s:%d: check failed: %s", __FILE__, __LINE__, #cond); \
			diag(__VA_ARGS__);                                      \
			return T_FAIL;                                          \
		}                                                               \
	} while (0)

#define SKIP(e, ...)                                                            \
	do {                                                                    \
		snprintf((e)->reason, sizeof((e)->reason), __VA_ARGS__);        \
		return T_SKIP;                                                  \
	} while (0)

/* Propagate a helper's non-pass result. */
#define TRY(expr)                                                               \
	do {                                                                    \
		int _r = (expr);                                                \
		if (_r != T_PASS)                                               \
			return _r;                                              \
	} while (0)

/* ---- verbs helpers (verbs.c) ---- */
static inline uint64_t va(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

/* ibv_reg_mr on the test's PD (ODP if acc has it); NULL after a diag line */
struct ibv_mr *reg(struct env *e, void *buf, size_t len, int acc);
int env_open(struct env *e);
void env_close(struct env *e);
int has_odp(const struct env *e);
int odp_rc_caps(const struct env *e, uint32_t need);
int odp_ud_caps(const struct env *e, uint32_t need);
int need_odp_rc(struct env *e, uint32_t need);

/* A loopback RC pair (a = requester side, b = responder side, receiving
 * from srq_b if not NULL), each with its own CQ; lb_pair_destroy() frees it. */
int rc_pair_create(struct env *e, struct lb_pair *p, struct ibv_srq *srq_b);
int qp_state(struct ibv_qp *qp);
int wait_qp_err(struct env *e, struct ibv_qp *qp);

int post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t laddr, uint32_t len,
	      uint32_t lkey, uint64_t raddr, uint32_t rkey, uint64_t wr_id);
int post_atomic(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t laddr, uint32_t lkey,
		uint64_t raddr, uint32_t rkey, uint64_t cmp_add, uint64_t swap);
int post_send_ud(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t rqpn, uint64_t laddr,
		 uint32_t len, uint32_t lkey);
int post_recv(struct ibv_qp *qp, uint64_t addr, uint32_t len, uint32_t lkey, uint64_t wr_id);
int post_srq_recv(struct ibv_srq *srq, uint64_t addr, uint32_t len, uint32_t lkey,
		  uint64_t wr_id);
/* 1 = got one completion in *wc, 0 = none within e->poll_ms, -1 = poll error */
int poll_one(struct env *e, struct ibv_cq *cq, struct ibv_wc *wc);
/* The same within ms (counted 1 ms sleeps, not a clock) */
int poll_ms(struct ibv_cq *cq, struct ibv_wc *wc, int ms);
/* Wait for one completion and check its status. */
int expect_wc(struct env *e, struct ibv_cq *cq, enum ibv_wc_status st, const char *what);
/* No completion at all shows up on cq within ms. */
int expect_no_wc(struct ibv_cq *cq, int ms, const char *what);

/* ---- system probes (sys.c) ---- */
long hw_counter(struct env *e, const char *name); /* -1 if absent */

/* The ODP counters rxe-odp's driver exports (-1 each on other drivers). */
struct odpc {
	long faults, pages_faulted, invalidations, pages_invalidated, errors;
	long rnr_naks, retries;		/* odp_rnr_naks, odp_fault_retries */
	long prefetched;		/* odp_pages_prefetched */
};

void odpc_read(struct env *e, struct odpc *c);	/* current values, not the core's cache */
int odpc_present(const struct odpc *c);
int mr_count(const char *dev);                   /* rdma resource show; -1 on error */
long resident_pages(void *addr, size_t len);     /* via mincore; -1 on error */
uint64_t pfn_of(void *addr);                     /* /proc/self/pagemap; 0 = not present/unknown */
int pfn_range(void *addr, size_t n, uint64_t *out);     /* one pagemap read; -1 on error */
long swap_total_kb(void);
int is_thp(void *addr);
void *map_anon(size_t len, size_t align);         /* MAP_PRIVATE|ANON, aligned */
void fill(void *buf, size_t len, unsigned seed);
/* offset of first byte that differs from the pattern, or -1 if all match */
long check_fill(const void *buf, size_t len, unsigned seed);
long check_byte(const void *buf, size_t len, unsigned char v);
const char *wc_str(enum ibv_wc_status s);

#define ODP_ACC (IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define PIN_ACC (ODP_ACC & ~IBV_ACCESS_ON_DEMAND)

#endif
