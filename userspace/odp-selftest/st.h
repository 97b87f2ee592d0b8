/* odp-selftest: what the cases share: the test's environment, the checks
 * of the case functions, verbs helpers and system probes (counters). */
#ifndef ODP_SELFTEST_H
#define ODP_SELFTEST_H

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "counters.h"
#include "loopback.h"
#include "ring.h"

enum { T_PASS = 0, T_FAIL = 1, T_SKIP = 2 };

/* Per-test environment: each test runs in its own forked process and gets a
 * freshly opened device and PD (FIXTURE(odp) in main.c: self->e). */
struct env {
	const char *dev_name;
	int gid_opt;           /* --gid: GID index, -1 = the IPv4-mapped GID */
	struct lb_dev dev;     /* opened device (port 1), PD and the GID in use */
	struct ibv_device_attr_ex attr;
	long page;
	int poll_ms;           /* give up waiting for one completion after this */
	int verbose;
	const char *need_counter; /* --need-counter: one more per-MR counter to require */
	char reason[256];      /* skip reason */
};

/* tests.c: registration, pinning, traffic, invalidation, coherence, fork,
 * errors, teardown races, THP and migration */

int t_caps(struct env *e);
int t_reg_refused_no_caps(struct env *e);
int t_reg_iova(struct env *e);
int t_reg_overflow_refused(struct env *e);
int t_rereg_odp_toggle_refused(struct env *e);
int t_reg_hugetlb(struct env *e);
int t_reg_hugetlb_on_small_pages(struct env *e);
int t_nopin_odp(struct env *e);
int t_pin_control(struct env *e);
int t_rdma_write(struct env *e);
int t_rdma_read(struct env *e);
int t_rdma_read_untouched(struct env *e);
int t_send_recv(struct env *e);
int t_atomic_cmp_swp(struct env *e);
int t_atomic_fetch_add(struct env *e);
int t_srq_recv(struct env *e);
int t_ud_send_recv(struct env *e);
int t_invalidate_dontneed(struct env *e);
int t_invalidate_pageout_swap(struct env *e);
int t_pageout_pinned_control(struct env *e);
int t_coherence_dontneed_odp(struct env *e);
int t_coherence_dontneed_pinned(struct env *e);
int t_coherence_remap_odp(struct env *e);
int t_coherence_remap_pinned(struct env *e);
int t_fork_parent_odp(struct env *e);
int t_fork_implicit(struct env *e);
int t_err_outside_mr(struct env *e);
int t_err_munmapped(struct env *e);
int t_err_recv_munmapped(struct env *e);
int t_err_prot_none(struct env *e);
int t_err_readonly_mapping(struct env *e);
int t_err_readonly_registration(struct env *e);
int t_err_iova_wrap(struct env *e);
int t_err_local_prot_status(struct env *e);
int t_access_next_to_hole(struct env *e);
int t_write_after_read_untouched(struct env *e);
int t_dereg_inflight(struct env *e);
int t_munmap_inflight(struct env *e);
int t_exit_inflight(struct env *e);
int t_exit_implicit(struct env *e);
int t_thp_split(struct env *e);
int t_thp_collapse(struct env *e);
int t_compaction(struct env *e);

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

/* implicit.c: lazy translation in children, implicit ODP */
int t_reg_size(struct env *e);
int t_implicit_rdma(struct env *e);
int t_implicit_local_err(struct env *e);
int t_implicit_edges(struct env *e);

/* children.c: children freed when their chunk is unmapped */
int t_children_unmap_implicit(struct env *e);
int t_children_unmap_explicit(struct env *e);
int t_children_reclaim_keeps(struct env *e);
int t_children_remap_race(struct env *e);
int t_children_dereg_pending(struct env *e);
int t_children_bounded_explicit(struct env *e);
int t_children_bounded_implicit(struct env *e);
int t_children_bound_default(struct env *e);
/* Size of the chunk one child translates (odp_child_shift), or 0 */
size_t chunk_size(void);

/* flush.c: RDMA FLUSH of a whole ODP MR */
int t_flush_mr_implicit(struct env *e);
int t_flush_mr_explicit_big(struct env *e);

/* Case functions return T_PASS, T_FAIL (after "# ..." lines saying why) or
 * T_SKIP (with the reason in e->reason); cases.c hands that to the harness.
 * Diagnostics go to stdout as "# ..." lines (TAP comments). */
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			diag("%s:%d: check failed: %s", __FILE__, __LINE__, #cond); \
			diag(__VA_ARGS__);                                      \
			return T_FAIL;                                          \
		}                                                               \
	} while (0)

#define ST_SKIP(e, ...)                                                            \
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
/* The same with tune's retry counts (NULL: 7, "forever" in rxe) and a local
 * ACK timeout of 4.096 us << timeout (0: rc_pair_create()'s 14, ~67 ms). */
int rc_pair_create_tuned(struct env *e, struct lb_pair *p, struct ibv_srq *srq_b,
			 const struct lb_qp_tune *tune, uint8_t timeout);
int qp_state(struct ibv_qp *qp);
int wait_qp_err(struct env *e, struct ibv_qp *qp);

int post_rdma(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t laddr, uint32_t len,
	      uint32_t lkey, uint64_t raddr, uint32_t rkey, uint64_t wr_id);
int post_atomic(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t laddr, uint32_t lkey,
		uint64_t raddr, uint32_t rkey, uint64_t cmp_add, uint64_t swap);
int post_send_ud(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t rqpn, uint64_t laddr,
		 uint32_t len, uint32_t lkey);
/* An RDMA FLUSH (type RING_FLUSH_GLOBAL/_PERSISTENT, level RING_FLUSH_RANGE
 * or _MR, ../lib/ring.h) written into qp's send ring: librxe 44 cannot post
 * one.  0, or -1 / an errno value after a diag line. */
int post_flush(struct ibv_qp *qp, uint64_t raddr, uint32_t len, uint32_t rkey, uint8_t type,
	       uint8_t level, uint64_t wr_id);
/* Bind a new type-2 window over [addr, addr + len) of mr with access, from
 * x's QP (the one that may use it as responder), and wait for it on x's CQ. */
int bind_mw2(struct env *e, struct lb_end *x, struct ibv_mr *mr, uint64_t addr, uint64_t len,
	     unsigned int access, struct ibv_mw **mw);
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
/* The device's hw counters names[0..n-1] in one reading, fresh from the
 * driver (over RDMA netlink, not sysfs's cached hw_counters files, see
 * ../lib/counters.h): vals[i] is -1 for one it lacks. */
void hw_counters(struct env *e, const char *const names[], long long vals[], unsigned int n);

/* The ODP counters rxe-odp's driver exports (-1 each on other drivers). */
struct odpc {
	long faults, pages_faulted, invalidations, pages_invalidated, errors;
	long rnr_naks, retries;		/* odp_rnr_naks, odp_fault_retries */
	long prefetched;		/* odp_pages_prefetched */
};

/* The current values, not the core's cache: T_PASS, or T_FAIL (after a
 * "# ..." line) when the device advertises ODP but lacks one of them: on
 * rxe-odp's module that is a bug, not a reason to skip a check. */
int odpc_read(struct env *e, struct odpc *c);

/* The per-MR counters rxe-odp's driver puts into restrack (the drv_odp_*
 * attributes of "rdma resource show mr -dd"), read over RDMA netlink. */
struct mrc {
	long long mapped;		/* odp_mapped_pages: a state, not a counter */
	long long faults, pages_faulted, invalidations, pages_invalidated, errors;
	long long prefetched;		/* odp_pages_prefetched */
};

/* mr's counters now: T_PASS, or T_FAIL (after a "# ..." line) when the MR
 * is not found or lacks one of them (or e->need_counter). */
int mrc_read(struct env *e, struct ibv_mr *mr, struct mrc *c);
/* "# what: faults +N, pages_faulted +N, ..." from a to b */
void mrc_diag(const char *what, const struct mrc *a, const struct mrc *b);
/* /sys/module/rdma_rxe/parameters/NAME, or -1 */
long long rxe_param(const char *name);
int rxe_param_set(const char *name, long long v);
/* children of the driver that [p, p + len) overlaps (1 without children) */
long chunks_spanned(const void *p, size_t len);
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
