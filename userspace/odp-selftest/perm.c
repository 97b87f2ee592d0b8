/* odp-selftest: permanent and transient fault failures of ODP MRs.
 *
 * A fault that can never succeed (a file page past EOF after a truncate, a
 * hardware-poisoned page, PROT_NONE, a mapping hmm cannot map) must fail
 * the access within seconds with the completion verbs prescribe:
 * IBV_WC_REM_ACCESS_ERR at the requester for a remote fault,
 * IBV_WC_LOC_PROT_ERR for a local one.  Only memory pressure is answered
 * with RNR NAK (remote) or retried (local): odp_rnr_naks and
 * odp_fault_retries must not move for a permanent fault, odp_fault_errors
 * must.  A hole punched in a file is not a fault at all: it reads zeros.
 * tests/guest/25-odp-permanent-faults.sh runs these ('perm_*'). */
#include "st.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_HWPOISON
#define MADV_HWPOISON 100
#endif

/* A fault that can never succeed must end its access within this many ms
 * (counted 1 ms sleeps, see poll_ms()).  Before rxe told permanent faults
 * from transient ones, the responder answered such a fault with RNR NAK
 * forever (the pairs use rnr_retry 7) and the requester retried a local
 * one for 30 s.  (Build with -DPERM_BOUND_MS=N to see how long a driver
 * without the fix takes.) */
#ifndef PERM_BOUND_MS
#define PERM_BOUND_MS 10000
#endif

#define FAIL_FAULTS "/sys/module/rdma_rxe/parameters/odp_fail_faults"

/* Whose ODP fault a work request hits */
enum { NO_FAULT, REMOTE, LOCAL };

/* One work request on a fresh QP pair, and how it must end. */
struct pcase {
	const char *what;
	enum ibv_wr_opcode op;
	char *laddr;			/* local SGE (an atomic's result: 8 bytes) */
	uint32_t len;
	struct ibv_mr *lmr;
	char *raddr;			/* RDMA/atomic target; SEND: the receive buffer */
	struct ibv_mr *rmr;
	enum ibv_wc_status want;	/* the requester's completion */
	int side;			/* NO_FAULT, REMOTE, LOCAL */
	int fails;			/* a permanent fault: odp_fault_errors moves */
	int inject;			/* transient failures injected first */
};

static int fail_faults_set(unsigned int n)
{
	return rxe_param_set("odp_fail_faults", n);
}


static const char *qps_str(int s)
{
	return s == IBV_QPS_RTS ? "RTS" : s == IBV_QPS_ERR ? "ERR" : "other";
}

/*
 * Run c on a fresh pair and check everything about how it ended: the
 * requester's status within PERM_BOUND_MS, for a SEND the receiver's, both
 * QPs' states (requester in ERR after an error; responder in ERR after a
 * remote fault, as a class C NAK takes it there, else still RTS), and the
 * fault counters: RNR NAKs / local retries exactly for the injected
 * transient failures, odp_fault_errors only for a permanent fault.
 */
static int run_case(struct env *e, const struct pcase *c)
{
	int resp_err = c->side == REMOTE && c->fails, r, qa, qb;
	long rnr, retries, errors, left = 0;
	struct timespec t0, t1;
	struct odpc c0, c1;
	struct lb_pair p;
	struct ibv_wc wc;
	double ms;

	TRY(rc_pair_create(e, &p, NULL));
	TRY(odpc_read(e, &c0));
	if (c->op == IBV_WR_SEND)
		CHECK(!post_recv(p.b.qp, va(c->raddr), c->len, c->rmr->lkey, 2), "%s: recv", c->what);
	if (c->inject)
		CHECK(!fail_faults_set(c->inject), "%s: cannot write %s: %s", c->what, FAIL_FAULTS,
		      strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (c->op == IBV_WR_ATOMIC_FETCH_AND_ADD || c->op == IBV_WR_ATOMIC_CMP_AND_SWP)
		r = post_atomic(p.a.qp, c->op, va(c->laddr), c->lmr->lkey, va(c->raddr),
				c->rmr->rkey, 1, 2);
	else
		r = post_rdma(p.a.qp, c->op, va(c->laddr), c->len, c->lmr->lkey,
			      c->op == IBV_WR_SEND ? 0 : va(c->raddr),
			      c->op == IBV_WR_SEND ? 0 : c->rmr->rkey, 1);
	CHECK(!r, "%s: post failed", c->what);
	r = poll_ms(p.a.cq, &wc, PERM_BOUND_MS);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	CHECK(r == 1, "%s: no completion within %d ms (poll rc %d): the fault is retried as if it were transient",
	      c->what, PERM_BOUND_MS, r);
	CHECK(wc.status == c->want, "%s: completion %s after %.0f ms, expected %s", c->what,
	      wc_str(wc.status), ms, wc_str(c->want));
	if (c->op == IBV_WR_SEND && c->side != LOCAL) {
		enum ibv_wc_status rs = resp_err ? IBV_WC_LOC_PROT_ERR : IBV_WC_SUCCESS;

		r = poll_ms(p.b.cq, &wc, PERM_BOUND_MS);
		CHECK(r == 1, "%s: no receive completion within %d ms", c->what, PERM_BOUND_MS);
		CHECK(wc.status == rs, "%s: receive completion %s, expected %s", c->what,
		      wc_str(wc.status), wc_str(rs));
	}
	qa = c->want == IBV_WC_SUCCESS ? qp_state(p.a.qp) : wait_qp_err(e, p.a.qp);
	qb = resp_err ? wait_qp_err(e, p.b.qp) : qp_state(p.b.qp);
	if (c->inject) {
		left = file_number(FAIL_FAULTS);
		fail_faults_set(0);
	}
	TRY(odpc_read(e, &c1));
	rnr = c1.rnr_naks - c0.rnr_naks;
	retries = c1.retries - c0.retries;
	errors = c1.errors - c0.errors;
	diag("%s -> %s in %.0f ms; QPs %s/%s; odp_fault_errors +%ld, odp_rnr_naks +%ld, odp_fault_retries +%ld",
	     c->what, wc_str(c->want), ms, qps_str(qa), qps_str(qb), errors, rnr, retries);
	CHECK(qa == (c->want == IBV_WC_SUCCESS ? IBV_QPS_RTS : IBV_QPS_ERR),
	      "%s: requester QP in state %d", c->what, qa);
	CHECK(qb == (resp_err ? IBV_QPS_ERR : IBV_QPS_RTS), "%s: responder QP in state %d", c->what,
	      qb);
	CHECK(left == 0, "%s: %ld of %d injected failures were not hit", c->what, left, c->inject);
	CHECK(rnr == (c->side == REMOTE ? c->inject : 0),
	      "%s: odp_rnr_naks +%ld, expected +%d (one per injected transient failure)", c->what,
	      rnr, c->side == REMOTE ? c->inject : 0);
	CHECK(retries == (c->side == LOCAL ? c->inject : 0),
	      "%s: odp_fault_retries +%ld, expected +%d (one per injected transient failure)",
	      c->what, retries, c->side == LOCAL ? c->inject : 0);
	if (c->fails)
		CHECK(errors > 0, "%s: odp_fault_errors did not move", c->what);
	else
		CHECK(errors == 0, "%s: odp_fault_errors +%ld for an access that must work", c->what,
		      errors);
	lb_pair_destroy(&p);
	return T_PASS;
}

static int run_cases(struct env *e, const struct pcase *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		TRY(run_case(e, &c[i]));
	return T_PASS;
}

/* The MR under test (over f: a memfd's MAP_SHARED mapping or anonymous
 * memory) and the buffer of the other end (o: anonymous), both len bytes. */
struct fix {
	int fd;
	size_t len;
	char *f, *o;
	struct ibv_mr *fmr, *omr;
};

static int fix_make(struct env *e, struct fix *x, size_t len, int file, int facc, int oacc)
{
	memset(x, 0, sizeof(*x));
	x->fd = -1;
	x->len = len;
	if (file) {
		x->fd = memfd_create("odp-selftest", MFD_CLOEXEC);
		CHECK(x->fd >= 0, "memfd_create: %s", strerror(errno));
		CHECK(!ftruncate(x->fd, len), "ftruncate: %s", strerror(errno));
		x->f = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, x->fd, 0);
		CHECK(x->f != MAP_FAILED, "mmap of the memfd: %s", strerror(errno));
	} else {
		x->f = map_anon(len, e->page);
		CHECK(x->f, "mmap: %s", strerror(errno));
		/* 4 KiB pages: a poisoned page is one page, not a THP */
		madvise(x->f, len, MADV_NOHUGEPAGE);
	}
	x->o = map_anon(len, e->page);
	CHECK(x->o, "mmap: %s", strerror(errno));
	fill(x->f, len, 1);
	fill(x->o, len, 2);
	x->fmr = reg(e, x->f, len, facc);
	x->omr = reg(e, x->o, len, oacc);
	CHECK(x->fmr && x->omr, "registration failed");
	return T_PASS;
}

static void fix_free(struct fix *x)
{
	if (x->fmr)
		ibv_dereg_mr(x->fmr);
	if (x->omr)
		ibv_dereg_mr(x->omr);
	munmap(x->f, x->len);
	munmap(x->o, x->len);
	if (x->fd >= 0)
		close(x->fd);
}

/* The whole of f written by RDMA first, so the MR maps all of it before
 * anything is taken away (as an application's earlier traffic would). */
static int fix_map_all(struct env *e, struct fix *x)
{
	const struct pcase c = {
		"remote WRITE over all of the MR", IBV_WR_RDMA_WRITE, x->o, x->len, x->omr,
		x->f, x->fmr, IBV_WC_SUCCESS, NO_FAULT, 0, 0,
	};

	TRY(run_case(e, &c));
	CHECK(!memcmp(x->f, x->o, x->len), "first WRITE data");
	return T_PASS;
}

/* f's file: len bytes from off, read through the file, not the mapping */
static int file_is(struct fix *x, size_t off, size_t len, const void *want, const char *what)
{
	char *b = malloc(len);
	int same;

	CHECK(b, "malloc");
	CHECK(pread(x->fd, b, len, off) == (ssize_t)len, "%s: pread: %s", what, strerror(errno));
	same = !memcmp(b, want, len);
	free(b);
	CHECK(same, "%s", what);
	return T_PASS;
}

#define WR IBV_WR_RDMA_WRITE
#define RD IBV_WR_RDMA_READ
#define FADD IBV_WR_ATOMIC_FETCH_AND_ADD
#define CSWP IBV_WR_ATOMIC_CMP_AND_SWP
#define SEND IBV_WR_SEND
#define OK IBV_WC_SUCCESS
#define REM IBV_WC_REM_ACCESS_ERR
#define LOC IBV_WC_LOC_PROT_ERR

#define CASES(e, c) run_cases(e, c, sizeof(c) / sizeof((c)[0]))

/* ------------------------------------------------------------ truncation */

/* An ODP MR over a MAP_SHARED file mapping; the file is truncated to half
 * the MR: remote accesses past EOF (SIGBUS) fail at once. */
int t_perm_truncate_remote(struct env *e)
{
	size_t pg = e->page, len = 8 * pg;
	struct stat st;
	struct fix x;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC));
	TRY(fix_make(e, &x, len, 1, ODP_ACC, ODP_ACC));
	TRY(fix_map_all(e, &x));
	CHECK(!ftruncate(x.fd, 4 * pg), "ftruncate: %s", strerror(errno));
	{
		const struct pcase c[] = {
			{ "remote WRITE past EOF", WR, x.o, 64, x.omr, x.f + 5 * pg, x.fmr, REM,
			  REMOTE, 1, 0 },
			{ "remote WRITE running from the file past EOF", WR, x.o, 2 * pg, x.omr,
			  x.f + 3 * pg, x.fmr, REM, REMOTE, 1, 0 },
			{ "remote READ past EOF", RD, x.o, 64, x.omr, x.f + 6 * pg, x.fmr, REM,
			  REMOTE, 1, 0 },
			{ "remote READ running from the file past EOF", RD, x.o, 2 * pg, x.omr,
			  x.f + 3 * pg, x.fmr, REM, REMOTE, 1, 0 },
			{ "atomic FETCH_ADD past EOF", FADD, x.o, 8, x.omr, x.f + 5 * pg + 8, x.fmr,
			  REM, REMOTE, 1, 0 },
			{ "atomic CMP_SWP past EOF", CSWP, x.o, 8, x.omr, x.f + 7 * pg, x.fmr, REM,
			  REMOTE, 1, 0 },
			{ "remote WRITE below EOF (still works)", WR, x.o + pg, pg, x.omr,
			  x.f + pg, x.fmr, OK, NO_FAULT, 0, 0 },
		};

		TRY(CASES(e, c));
	}
	TRY(file_is(&x, pg, pg, x.o + pg, "the WRITE below EOF is not in the file"));
	CHECK(!fstat(x.fd, &st) && st.st_size == (off_t)(4 * pg),
	      "file size %lld after the failed accesses, expected %zu", (long long)st.st_size,
	      4 * pg);
	fix_free(&x);
	return T_PASS;
}

/* The same with the truncated file under local SGEs: the source of a WRITE
 * and of a SEND, the destination of a READ and of an atomic's result, and a
 * receive buffer (the receiver's fault; the sender sees REM_OP_ERR). */
int t_perm_truncate_local(struct env *e)
{
	size_t pg = e->page, len = 8 * pg;
	struct fix x;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC |
			   IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV));
	TRY(fix_make(e, &x, len, 1, ODP_ACC, ODP_ACC));
	TRY(fix_map_all(e, &x));
	CHECK(!ftruncate(x.fd, 4 * pg), "ftruncate: %s", strerror(errno));
	{
		const struct pcase c[] = {
			{ "local WRITE source past EOF", WR, x.f + 5 * pg, 64, x.fmr, x.o, x.omr,
			  LOC, LOCAL, 1, 0 },
			{ "local SEND payload past EOF", SEND, x.f + 5 * pg, 64, x.fmr, x.o, x.omr,
			  LOC, LOCAL, 1, 0 },
			{ "local READ destination past EOF", RD, x.f + 6 * pg, 64, x.fmr, x.o,
			  x.omr, LOC, LOCAL, 1, 0 },
			{ "atomic result destination past EOF", FADD, x.f + 7 * pg, 8, x.fmr,
			  x.o + 8, x.omr, LOC, LOCAL, 1, 0 },
			{ "receive buffer past EOF", SEND, x.o, 64, x.omr, x.f + 5 * pg, x.fmr,
			  IBV_WC_REM_OP_ERR, REMOTE, 1, 0 },
			{ "local WRITE source below EOF (still works)", WR, x.f + pg, pg, x.fmr,
			  x.o + pg, x.omr, OK, NO_FAULT, 0, 0 },
		};

		TRY(CASES(e, c));
	}
	CHECK(!memcmp(x.o + pg, x.f + pg, pg), "WRITE from below EOF: data");
	fix_free(&x);
	return T_PASS;
}

/* Control: a pinned MR over the same file keeps the pages it pinned, so
 * RDMA into the truncated part completes successfully, but its data lands
 * in pages the file no longer has: once the file grows back it reads zeros
 * there, while a READ through the MR still returns the orphaned data. */
int t_perm_truncate_pinned(struct env *e)
{
	size_t pg = e->page, len = 8 * pg;
	char *zero;
	struct fix x;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	TRY(fix_make(e, &x, len, 1, PIN_ACC, ODP_ACC));
	CHECK(!ftruncate(x.fd, 4 * pg), "ftruncate: %s", strerror(errno));
	fill(x.o, len, 3);
	{
		const struct pcase c[] = {
			{ "pinned: remote WRITE past EOF", WR, x.o, pg, x.omr, x.f + 5 * pg, x.fmr,
			  OK, NO_FAULT, 0, 0 },
			{ "pinned: atomic past EOF", FADD, x.o + 2 * pg, 8, x.omr, x.f + 6 * pg,
			  x.fmr, OK, NO_FAULT, 0, 0 },
			{ "pinned: remote READ past EOF", RD, x.o + 4 * pg, pg, x.omr,
			  x.f + 5 * pg, x.fmr, OK, NO_FAULT, 0, 0 },
			{ "pinned: local WRITE source past EOF", WR, x.f + 5 * pg, pg, x.fmr,
			  x.o + 5 * pg, x.omr, OK, NO_FAULT, 0, 0 },
		};

		TRY(CASES(e, c));
	}
	CHECK(!memcmp(x.o + 4 * pg, x.o, pg), "pinned: READ past EOF did not return the WRITE's data");
	CHECK(!ftruncate(x.fd, len), "ftruncate back: %s", strerror(errno));
	zero = calloc(1, pg);
	CHECK(zero, "calloc");
	TRY(file_is(&x, 5 * pg, pg, zero,
		    "pinned: the file has data past the old EOF (expected the WRITE lost)"));
	free(zero);
	diag("pinned: RDMA past EOF completed successfully; its data went to pages the file dropped (lost)");
	fix_free(&x);
	return T_PASS;
}

/* ------------------------------------------------------------- poison */

static volatile sig_atomic_t sigbus_code = -1;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	sigbus_code = si->si_code;
}

/* A hardware-poisoned page (MADV_HWPOISON: root, CONFIG_MEMORY_FAILURE)
 * under an ODP MR: remote and local accesses to it fail at once, its
 * neighbours still work.  The kernel sends this process SIGBUS for the
 * poisoned page it mapped; the handler only notes it. */
int t_perm_hwpoison(struct env *e)
{
	struct sigaction sa = { .sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO };
	size_t pg = e->page, len = 8 * pg;
	char *bad;
	struct fix x;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC));
	TRY(fix_make(e, &x, len, 0, ODP_ACC, ODP_ACC));
	TRY(fix_map_all(e, &x));
	bad = x.f + 3 * pg;
	CHECK(!sigaction(SIGBUS, &sa, NULL), "sigaction");
	if (madvise(bad, pg, MADV_HWPOISON)) {
		if (errno == EPERM)
			ST_SKIP(e, "MADV_HWPOISON needs CAP_SYS_ADMIN");
		if (errno == EINVAL)
			ST_SKIP(e, "MADV_HWPOISON refused (kernel without CONFIG_MEMORY_FAILURE?)");
		CHECK(0, "MADV_HWPOISON: %s", strerror(errno));
	}
	diag("page at %p poisoned; SIGBUS si_code %d", (void *)bad, (int)sigbus_code);
	{
		const struct pcase c[] = {
			{ "remote WRITE into a poisoned page", WR, x.o, 64, x.omr, bad, x.fmr, REM,
			  REMOTE, 1, 0 },
			{ "remote READ of a poisoned page", RD, x.o, 64, x.omr, bad + 100, x.fmr, REM,
			  REMOTE, 1, 0 },
			{ "atomic on a poisoned page", FADD, x.o, 8, x.omr, bad + 8, x.fmr, REM,
			  REMOTE, 1, 0 },
			{ "local WRITE source in a poisoned page", WR, bad, 64, x.fmr, x.o, x.omr,
			  LOC, LOCAL, 1, 0 },
			{ "local READ destination in a poisoned page", RD, bad, 64, x.fmr, x.o, x.omr,
			  LOC, LOCAL, 1, 0 },
			{ "remote WRITE into the page before (still works)", WR, x.o, pg, x.omr,
			  bad - pg, x.fmr, OK, NO_FAULT, 0, 0 },
			{ "remote READ of the page after (still works)", RD, x.o + pg, pg, x.omr,
			  bad + pg, x.fmr, OK, NO_FAULT, 0, 0 },
		};

		TRY(CASES(e, c));
	}
	CHECK(!memcmp(bad - pg, x.o, pg), "WRITE next to the poisoned page: data");
	CHECK(!memcmp(x.o + pg, bad + pg, pg), "READ next to the poisoned page: data");
	fix_free(&x);
	return T_PASS;
}

/* ---------------------------------------------------------- protection */

/* PROT_NONE pages, and a write-only mapping (PROT_WRITE without PROT_READ,
 * which hmm refuses to map), under an ODP MR: accesses fail at once. */
int t_perm_prot(struct env *e)
{
	size_t pg = e->page, len = 8 * pg;
	struct fix x;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC));
	TRY(fix_make(e, &x, len, 0, ODP_ACC, ODP_ACC));
	TRY(fix_map_all(e, &x));
	CHECK(!mprotect(x.f + 2 * pg, pg, PROT_NONE), "mprotect: %s", strerror(errno));
	CHECK(!mprotect(x.f + 5 * pg, pg, PROT_WRITE), "mprotect: %s", strerror(errno));
	{
		const struct pcase c[] = {
			{ "remote WRITE into PROT_NONE", WR, x.o, 64, x.omr, x.f + 2 * pg, x.fmr, REM,
			  REMOTE, 1, 0 },
			{ "remote READ of PROT_NONE", RD, x.o, 64, x.omr, x.f + 2 * pg, x.fmr, REM,
			  REMOTE, 1, 0 },
			{ "atomic on PROT_NONE", CSWP, x.o, 8, x.omr, x.f + 2 * pg + 8, x.fmr, REM,
			  REMOTE, 1, 0 },
			{ "local WRITE source PROT_NONE", WR, x.f + 2 * pg, 64, x.fmr, x.o, x.omr,
			  LOC, LOCAL, 1, 0 },
			{ "local READ destination PROT_NONE", RD, x.f + 2 * pg, 64, x.fmr, x.o,
			  x.omr, LOC, LOCAL, 1, 0 },
			{ "remote WRITE into a write-only mapping", WR, x.o, 64, x.omr, x.f + 5 * pg,
			  x.fmr, REM, REMOTE, 1, 0 },
			{ "local READ destination in a write-only mapping", RD, x.f + 5 * pg, 64,
			  x.fmr, x.o, x.omr, LOC, LOCAL, 1, 0 },
		};

		TRY(CASES(e, c));
	}
	CHECK(!mprotect(x.f, len, PROT_READ | PROT_WRITE), "mprotect back");
	/* nothing succeeded: f still holds the copy of o that fix_map_all made */
	CHECK(!memcmp(x.f + 2 * pg, x.o + 2 * pg, pg), "PROT_NONE page changed by refused accesses");
	CHECK(!memcmp(x.f + 5 * pg, x.o + 5 * pg, pg), "write-only page changed by a refused WRITE");
	fix_free(&x);
	return T_PASS;
}

/* ------------------------------------------------------------ hole punch */

/* fallocate(PUNCH_HOLE) frees file pages under an ODP MR: not a fault
 * error.  The hole reads back as zeros through RDMA READ, SEND and atomics,
 * and an RDMA WRITE into it lands in the file. */
int t_perm_punch_hole(struct env *e)
{
	size_t pg = e->page, len = 8 * pg;
	struct fix x;
	char *want;
	uint64_t v;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ | IBV_ODP_SUPPORT_ATOMIC |
			   IBV_ODP_SUPPORT_SEND | IBV_ODP_SUPPORT_RECV));
	TRY(fix_make(e, &x, len, 1, ODP_ACC, ODP_ACC));
	TRY(fix_map_all(e, &x));
	CHECK(!fallocate(x.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2 * pg, 4 * pg),
	      "fallocate(PUNCH_HOLE): %s", strerror(errno));
	memset(x.o, 0xa5, len);
	{
		const struct pcase c[] = {
			{ "remote READ of the hole", RD, x.o, 2 * pg, x.omr, x.f + 2 * pg, x.fmr, OK,
			  NO_FAULT, 0, 0 },
			{ "local SEND payload from the hole", SEND, x.f + 4 * pg, 100, x.fmr,
			  x.o + 3 * pg, x.omr, OK, NO_FAULT, 0, 0 },
			{ "atomic FETCH_ADD in the hole", FADD, x.o + 4 * pg, 8, x.omr,
			  x.f + 5 * pg, x.fmr, OK, NO_FAULT, 0, 0 },
		};

		TRY(CASES(e, c));
	}
	CHECK(check_byte(x.o, 2 * pg, 0) < 0, "READ of the hole is not zeros");
	CHECK(check_byte(x.o + 3 * pg, 100, 0) < 0, "SEND from the hole did not carry zeros");
	memcpy(&v, x.o + 4 * pg, 8);
	CHECK(v == 0, "FETCH_ADD in the hole returned %llu, not 0", (unsigned long long)v);
	want = calloc(1, pg);
	CHECK(want, "calloc");
	v = 1;
	memcpy(want, &v, 8);
	TRY(file_is(&x, 5 * pg, pg, want, "the FETCH_ADD in the hole is not in the file"));
	free(want);
	fill(x.o, len, 4);
	{
		const struct pcase w = { "remote WRITE into the hole", WR, x.o, pg, x.omr,
					 x.f + 3 * pg, x.fmr, OK, NO_FAULT, 0, 0 };

		TRY(run_case(e, &w));
	}
	TRY(file_is(&x, 3 * pg, pg, x.o, "the WRITE into the hole is not in the file"));
	fix_free(&x);
	return T_PASS;
}

/* ----------------------------------------------------- invalidation race */

struct zapper {
	char *p;
	size_t len;
	volatile int stop;
	long rounds;
};

static void *zap_loop(void *arg)
{
	struct zapper *z = arg;

	while (!z->stop) {
		madvise(z->p, z->len, MADV_DONTNEED);
		z->rounds++;
		sched_yield();
	}
	return NULL;
}

/* The last page below EOF of a truncated file's ODP MR, zapped in a loop by
 * another thread while RDMA WRITEs and READs hit it: every fault's
 * fault-ahead fails (the next page is past EOF), and the access's own page
 * may be invalidated after each fault that worked.  That must end in
 * success (at worst after RNR NAKs), never in an access error: the failed
 * fault-ahead's error is not the access's. */
int t_perm_race(struct env *e)
{
	size_t pg = e->page, len = 8 * pg, s = 0;
	struct zapper z = { 0 };
	struct odpc c0, c1;
	struct lb_pair p;
	struct ibv_wc wc;
	int i, n = 200, r = 0;
	char *last;
	pthread_t th;
	struct fix x;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	TRY(fix_make(e, &x, len, 1, ODP_ACC, PIN_ACC));
	TRY(fix_map_all(e, &x));
	CHECK(!ftruncate(x.fd, 4 * pg), "ftruncate: %s", strerror(errno));
	last = x.f + 3 * pg;
	TRY(rc_pair_create(e, &p, NULL));
	TRY(odpc_read(e, &c0));
	z.p = last;
	z.len = pg;
	CHECK(!pthread_create(&th, NULL, zap_loop, &z), "pthread_create");
	for (i = 0; i < n; i++) {
		/* even: WRITE o's slot s into the page; odd: READ it back */
		if (!(i & 1))
			s = (i / 2 * 64) % pg;
		r = post_rdma(p.a.qp, i & 1 ? IBV_WR_RDMA_READ : IBV_WR_RDMA_WRITE,
			      va(x.o + (i & 1 ? pg : 0) + s), 64, x.omr->lkey, va(last + s),
			      x.fmr->rkey, i);
		if (r)
			break;
		r = poll_ms(p.a.cq, &wc, PERM_BOUND_MS);
		if (r != 1 || wc.status != IBV_WC_SUCCESS)
			break;
		if ((i & 1) && memcmp(x.o + pg + s, x.o + s, 64))
			break;
	}
	z.stop = 1;
	pthread_join(th, NULL);
	CHECK(i == n, "access %d of %d while the page was zapped: %s", i + 1, n,
	      r != 1 ? "no completion within the bound" :
	      wc.status != IBV_WC_SUCCESS ? wc_str(wc.status) : "READ did not return the WRITE's data");
	TRY(odpc_read(e, &c1));
	diag("%d WRITEs/READs of the last page below EOF, zapped %ld times meanwhile: odp_faults +%ld, odp_rnr_naks +%ld, odp_fault_errors +%ld",
	     n, z.rounds, c1.faults - c0.faults, c1.rnr_naks - c0.rnr_naks, c1.errors - c0.errors);
	CHECK(c1.faults - c0.faults > 1, "the page was not refaulted: the zapping did not race the accesses");
	CHECK(c1.errors == c0.errors, "odp_fault_errors moved for accesses that all worked");
	lb_pair_destroy(&p);
	fix_free(&x);
	return T_PASS;
}

/* ------------------------------------------------------------ transient */

/* Transient failures (odp_fail_faults, as under memory pressure) on the
 * truncated file's MR are still answered with RNR NAK / retried, one per
 * failure, and the access then ends by its real outcome: success below
 * EOF, the permanent error past it. */
static int perm_transient(struct env *e)
{
	size_t pg = e->page, len = 8 * pg;
	struct fix x;

	/* o pinned: only f's faults can take the injected failures */
	TRY(fix_make(e, &x, len, 1, ODP_ACC, PIN_ACC));
	TRY(fix_map_all(e, &x));
	CHECK(!ftruncate(x.fd, 4 * pg), "ftruncate: %s", strerror(errno));
	{
		const struct pcase c[] = {
			{ "remote WRITE below EOF, 3 transient failures", WR, x.o, 64, x.omr,
			  x.f + pg, x.fmr, OK, REMOTE, 0, 3 },
			{ "remote WRITE past EOF, 3 transient failures", WR, x.o, 64, x.omr,
			  x.f + 5 * pg, x.fmr, REM, REMOTE, 1, 3 },
			{ "local WRITE source past EOF, 3 transient failures", WR, x.f + 6 * pg, 64,
			  x.fmr, x.o, x.omr, LOC, LOCAL, 1, 3 },
			{ "local READ destination below EOF, 3 transient failures", RD, x.f + 2 * pg,
			  64, x.fmr, x.o, x.omr, OK, LOCAL, 0, 3 },
		};
		size_t i;

		for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
			/* the access must fault, or nothing takes the failures */
			CHECK(!madvise(x.f, 4 * pg, MADV_DONTNEED), "MADV_DONTNEED: %s",
			      strerror(errno));
			TRY(run_case(e, &c[i]));
		}
	}
	fix_free(&x);
	return T_PASS;
}

int t_perm_transient(struct env *e)
{
	int r;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	if (access(FAIL_FAULTS, W_OK))
		ST_SKIP(e, "%s not writable (needs root and rxe-odp's rdma_rxe): %s", FAIL_FAULTS,
		     strerror(errno));
	r = perm_transient(e);
	/* never leave failures armed for the next test */
	fail_faults_set(0);
	return r;
}
