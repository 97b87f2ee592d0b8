/* odp-selftest: prefetch (advise_mr) of ODP MRs.  librxe 44 has no
 * advise_mr, so these reach the kernel through uverbs' ioctl() ABI
 * (uv_advise_mr(), ../lib/uverbs.c); they skip on a driver without the
 * verb.  Per-MR counters come from RDMA netlink (the drv_odp_* of
 * "rdma resource show mr -dd"). */
#include "nldev.h"
#include "st.h"
#include "uverbs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PF_READ IBV_ADVISE_MR_ADVICE_PREFETCH
#define PF_WRITE IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE
#define PF_NOFAULT IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT
#define SYNC IBV_ADVISE_MR_FLAG_FLUSH

static int adv(struct ibv_mr *mr, uint32_t advice, uint32_t flags, void *addr, size_t len)
{
	struct ibv_sge sg = { .addr = va(addr), .length = (uint32_t)len, .lkey = mr->lkey };

	return uv_advise_mr(mr->pd, advice, flags, &sg, 1);
}

/* One per-MR counter now, or -1 if the MR or the counter is missing. */
static long long mrattr(struct env *e, struct ibv_mr *mr, const char *name)
{
	struct nldev_attr a[32];
	int n = nldev_mr_attrs(e->dev_name, mr->lkey, a, 32, NULL, 0);

	return n < 0 ? -1 : nldev_attr_get(a, n < 32 ? n : 32, name);
}

/* ODP caps and the advise_mr verb, or a skip; the per-MR counters, or a
 * failure (a device with advise_mr is rxe-odp's: it must have them). */
static int need_prefetch(struct env *e)
{
	char *p;
	struct ibv_mr *mr;
	int r;

	TRY(need_odp_rc(e, IBV_ODP_SUPPORT_WRITE | IBV_ODP_SUPPORT_READ));
	p = map_anon(e->page, e->page);
	CHECK(p, "mmap");
	mr = reg(e, p, e->page, ODP_ACC);
	CHECK(mr, "ODP registration");
	r = adv(mr, PF_NOFAULT, SYNC, p, e->page);
	if (r == EOPNOTSUPP || r == ENOTTY || r == EPROTONOSUPPORT) {
		ibv_dereg_mr(mr);
		ST_SKIP(e, "%s has no advise_mr (%s)", e->dev_name, strerror(r));
	}
	CHECK(!r, "advise_mr NO_FAULT of a fresh ODP MR: %s", strerror(r));
	{
		struct mrc c;
		int r2 = mrc_read(e, mr, &c);

		ibv_dereg_mr(mr);
		if (r2 != T_PASS)
			return r2;
	}
	munmap(p, e->page);
	return T_PASS;
}

/* One RDMA op from a pinned local buffer against the ODP MR (remote side). */
struct pf_world {
	struct lb_pair p;
	char *loc, *buf;
	size_t len;
	struct ibv_mr *lmr, *mr;
};

static int pfw_make(struct env *e, struct pf_world *w, size_t len, char *buf)
{
	memset(w, 0, sizeof(*w));
	w->len = len;
	w->loc = map_anon(len, e->page);
	w->buf = buf ? buf : map_anon(len, e->page);
	CHECK(w->loc && w->buf, "mmap %zu: %s", len, strerror(errno));
	w->lmr = reg(e, w->loc, len, PIN_ACC);
	w->mr = reg(e, w->buf, len, ODP_ACC);
	CHECK(w->lmr && w->mr, "registration failed");
	return rc_pair_create(e, &w->p, NULL);
}

static void pfw_free(struct pf_world *w, int unmap_buf)
{
	if (w->lmr)
		ibv_dereg_mr(w->lmr);
	if (w->mr)
		ibv_dereg_mr(w->mr);
	lb_pair_destroy(&w->p);
	if (w->loc)
		munmap(w->loc, w->len);
	if (w->buf && unmap_buf)
		munmap(w->buf, w->len);
}

static int pfw_rdma(struct env *e, struct pf_world *w, enum ibv_wr_opcode op, const char *what)
{
	CHECK(!post_rdma(w->p.a.qp, op, va(w->loc), w->len, w->lmr->lkey, va(w->buf), w->mr->rkey,
			 1), "%s: post failed", what);
	return expect_wc(e, w->p.a.cq, IBV_WC_SUCCESS, what);
}

/* Sync PREFETCH / PREFETCH_WRITE map every page of the range (per-MR and
 * device counters), nothing is faulted on the next access; a read prefetch
 * maps read-only (a WRITE then faults). */
int t_prefetch_sync(struct env *e)
{
	struct pf_world w;
	size_t n = 64, len = n * e->page;
	struct odpc c0, c1;
	long long mp, pf, f0, f1;
	int r;

	TRY(need_prefetch(e));
	TRY(pfw_make(e, &w, len, NULL));
	fill(w.buf, len, 3);
	CHECK(mrattr(e, w.mr, "odp_mapped_pages") == 0, "a fresh ODP MR has pages mapped");
	TRY(odpc_read(e, &c0));
	r = adv(w.mr, PF_READ, SYNC, w.buf, len);
	CHECK(!r, "sync PREFETCH: %s", strerror(r));
	mp = mrattr(e, w.mr, "odp_mapped_pages");
	pf = mrattr(e, w.mr, "odp_pages_prefetched");
	TRY(odpc_read(e, &c1));
	diag("sync PREFETCH of %zu pages: mapped %lld, prefetched %lld (device +%ld), faults %lld",
	     n, mp, pf, c1.prefetched - c0.prefetched, mrattr(e, w.mr, "odp_faults"));
	CHECK(mp == (long long)n && pf == (long long)n, "not every page was prefetched");
	CHECK(c1.prefetched - c0.prefetched >= (long)n, "device odp_pages_prefetched did not grow");
	CHECK(c1.faults == c0.faults, "a prefetch counted as a data-path fault");
	/* RDMA READ of the prefetched pages: no fault, right data */
	f0 = mrattr(e, w.mr, "odp_faults");
	TRY(pfw_rdma(e, &w, IBV_WR_RDMA_READ, "RDMA READ of prefetched pages"));
	f1 = mrattr(e, w.mr, "odp_faults");
	CHECK(f1 == f0, "RDMA READ after PREFETCH faulted %lld times", f1 - f0);
	CHECK(check_fill(w.loc, len, 3) < 0, "RDMA READ returned wrong data");
	/* read-only mapping: the WRITE must fault to make the pages writable */
	fill(w.loc, len, 4);
	TRY(pfw_rdma(e, &w, IBV_WR_RDMA_WRITE, "RDMA WRITE after a read prefetch"));
	f1 = mrattr(e, w.mr, "odp_faults");
	CHECK(f1 > f0, "RDMA WRITE after a read-only prefetch did not fault");
	CHECK(check_fill(w.buf, len, 4) < 0, "RDMA WRITE data wrong");
	/* PREFETCH_WRITE of fresh memory: the next WRITE faults nothing */
	CHECK(!madvise(w.buf, len, MADV_DONTNEED), "madvise");
	CHECK(mrattr(e, w.mr, "odp_mapped_pages") == 0, "MADV_DONTNEED left pages mapped");
	r = adv(w.mr, PF_WRITE, SYNC, w.buf, len);
	CHECK(!r, "sync PREFETCH_WRITE: %s", strerror(r));
	CHECK(mrattr(e, w.mr, "odp_mapped_pages") == (long long)n, "PREFETCH_WRITE mapped %lld",
	      mrattr(e, w.mr, "odp_mapped_pages"));
	CHECK(resident_pages(w.buf, len) == (long)n, "PREFETCH_WRITE did not fault the pages in");
	f0 = mrattr(e, w.mr, "odp_faults");
	fill(w.loc, len, 5);
	TRY(pfw_rdma(e, &w, IBV_WR_RDMA_WRITE, "RDMA WRITE of write-prefetched pages"));
	f1 = mrattr(e, w.mr, "odp_faults");
	CHECK(f1 == f0, "RDMA WRITE after PREFETCH_WRITE faulted %lld times", f1 - f0);
	CHECK(check_fill(w.buf, len, 5) < 0, "RDMA WRITE data wrong");
	pfw_free(&w, 1);
	return T_PASS;
}

/* Several SGEs over several MRs in one call; a bad SGE fails the whole
 * call before anything is mapped. */
int t_prefetch_sges(struct env *e)
{
	enum { K = 3, N = 8 };
	struct ibv_mr *mr[K];
	struct ibv_sge sg[K + 1];
	char *p[K];
	int i, r;

	TRY(need_prefetch(e));
	for (i = 0; i < K; i++) {
		p[i] = map_anon(N * e->page, e->page);
		CHECK(p[i], "mmap");
		mr[i] = reg(e, p[i], N * e->page, ODP_ACC);
		CHECK(mr[i], "reg");
		/* the middle 4 pages of each MR */
		sg[i].addr = va(p[i] + 2 * e->page);
		sg[i].length = 4 * e->page;
		sg[i].lkey = mr[i]->lkey;
	}
	sg[K] = sg[0];
	sg[K].lkey = mr[0]->lkey ^ 0xff;		/* wrong key byte */
	r = uv_advise_mr(e->dev.pd, PF_WRITE, SYNC, sg, K + 1);
	CHECK(r == ENOENT, "a bad lkey in the last SGE: %s, expected ENOENT", strerror(r));
	for (i = 0; i < K; i++)
		CHECK(mrattr(e, mr[i], "odp_mapped_pages") == 0,
		      "a call failed on its last SGE mapped MR %d", i);
	r = uv_advise_mr(e->dev.pd, PF_WRITE, SYNC, sg, K);
	CHECK(!r, "sync PREFETCH_WRITE of %d SGEs: %s", K, strerror(r));
	for (i = 0; i < K; i++) {
		long long mp = mrattr(e, mr[i], "odp_mapped_pages");

		/* 4 pages, plus up to the MR's end by fault-ahead */
		CHECK(mp >= 4 && mp <= 6, "MR %d: %lld pages mapped for 4 asked", i, mp);
		CHECK(resident_pages(p[i], 2 * e->page) == 0, "MR %d: pages before the range faulted", i);
		ibv_dereg_mr(mr[i]);
		munmap(p[i], N * e->page);
	}
	return T_PASS;
}

/* NO_FAULT maps what the page tables map and faults nothing. */
int t_prefetch_no_fault(struct env *e)
{
	struct pf_world w;
	size_t n = 64, half = 16, len = n * e->page;
	long long mp, pf, f0;
	int r;

	TRY(need_prefetch(e));
	TRY(pfw_make(e, &w, len, NULL));
	r = adv(w.mr, PF_NOFAULT, SYNC, w.buf, len);
	CHECK(!r, "NO_FAULT of untouched memory: %s", strerror(r));
	CHECK(mrattr(e, w.mr, "odp_mapped_pages") == 0 &&
	      mrattr(e, w.mr, "odp_pages_prefetched") == 0, "NO_FAULT mapped absent pages");
	CHECK(resident_pages(w.buf, len) == 0, "NO_FAULT faulted pages in");
	fill(w.buf, half * e->page, 6);		/* the process writes the first 16 */
	r = adv(w.mr, PF_NOFAULT, SYNC, w.buf, len);
	CHECK(!r, "NO_FAULT: %s", strerror(r));
	mp = mrattr(e, w.mr, "odp_mapped_pages");
	pf = mrattr(e, w.mr, "odp_pages_prefetched");
	diag("NO_FAULT with %zu of %zu pages present: mapped %lld, prefetched %lld, resident %ld",
	     half, n, mp, pf, resident_pages(w.buf, len));
	CHECK(mp == (long long)half && pf == (long long)half, "NO_FAULT did not map exactly the present pages");
	CHECK(resident_pages(w.buf, len) == (long)half, "NO_FAULT faulted pages in");
	/* present, written pages are mapped writable: a WRITE faults nothing */
	f0 = mrattr(e, w.mr, "odp_faults");
	fill(w.loc, len, 7);
	CHECK(!post_rdma(w.p.a.qp, IBV_WR_RDMA_WRITE, va(w.loc), half * e->page, w.lmr->lkey,
			 va(w.buf), w.mr->rkey, 1), "post");
	TRY(expect_wc(e, w.p.a.cq, IBV_WC_SUCCESS, "RDMA WRITE into NO_FAULT-mapped pages"));
	CHECK(mrattr(e, w.mr, "odp_faults") == f0, "WRITE into NO_FAULT-mapped pages faulted");
	CHECK(check_fill(w.buf, half * e->page, 7) < 0, "WRITE data wrong");
	pfw_free(&w, 1);
	return T_PASS;
}

/* pagemap bit 61: file page or shared anonymous page */
static int pm_file(void *addr, long page)
{
	uint64_t ent = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return -1;
	if (pread(fd, &ent, sizeof(ent), ((uintptr_t)addr / page) * sizeof(ent)) != sizeof(ent))
		ent = 0;
	close(fd);
	if (!(ent & (1ULL << 63)))
		return -1;
	return !!(ent & (1ULL << 61));
}

/* PREFETCH_WRITE breaks COW: on a MAP_PRIVATE file mapping the MR (and the
 * process) then use a private copy, the file keeps its data; after fork the
 * parent gets its own page and the child keeps the old data.  A read
 * PREFETCH breaks nothing. */
int t_prefetch_write_cow(struct env *e)
{
	char path[] = "/tmp/odp-prefetch-XXXXXX";
	size_t n = 8, len = n * e->page;
	struct pf_world w;
	char *buf, *chk;
	int fd, r, pfd[2], cfd[2];
	pid_t pid;
	uint64_t pfn0, pfn1;
	char res = 0;

	TRY(need_prefetch(e));
	fd = mkstemp(path);
	CHECK(fd >= 0, "mkstemp: %s", strerror(errno));
	unlink(path);
	chk = malloc(len);
	CHECK(chk, "malloc");
	fill(chk, len, 8);
	CHECK(pwrite(fd, chk, len, 0) == (ssize_t)len, "pwrite");
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	CHECK(buf != MAP_FAILED, "mmap: %s", strerror(errno));
	CHECK(check_fill(buf, len, 8) < 0, "file contents");	/* maps the file pages */
	TRY(pfw_make(e, &w, len, buf));
	CHECK(pm_file(buf, e->page) == 1, "the private mapping does not show the file page");
	r = adv(w.mr, PF_READ, SYNC, buf, len);
	CHECK(!r, "PREFETCH: %s", strerror(r));
	CHECK(pm_file(buf, e->page) == 1, "a read PREFETCH broke COW");
	r = adv(w.mr, PF_WRITE, SYNC, buf, len);
	CHECK(!r, "PREFETCH_WRITE: %s", strerror(r));
	CHECK(pm_file(buf, e->page) == 0, "PREFETCH_WRITE did not give the process a private copy");
	fill(w.loc, len, 9);
	TRY(pfw_rdma(e, &w, IBV_WR_RDMA_WRITE, "RDMA WRITE after PREFETCH_WRITE"));
	CHECK(mrattr(e, w.mr, "odp_faults") == 0, "the WRITE faulted after PREFETCH_WRITE");
	CHECK(check_fill(buf, len, 9) < 0, "the process does not see the MR's private copy");
	CHECK(pread(fd, chk, len, 0) == (ssize_t)len && check_fill(chk, len, 8) < 0,
	      "the file changed under a MAP_PRIVATE mapping");

	/* fork: parent and child share the pages until PREFETCH_WRITE */
	CHECK(!pipe(pfd) && !pipe(cfd), "pipe");
	pfn0 = pfn_of(buf);
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (!pid) {
		char go;

		if (read(pfd[0], &go, 1) != 1)
			_exit(2);
		go = check_fill(buf, len, 9) < 0 ? 'k' : 'x';
		_exit(write(cfd[1], &go, 1) == 1 ? 0 : 2);
	}
	r = adv(w.mr, PF_WRITE, SYNC, buf, len);
	pfn1 = pfn_of(buf);
	fill(w.loc, len, 10);
	if (!r)
		r = pfw_rdma(e, &w, IBV_WR_RDMA_WRITE, "RDMA WRITE after fork + PREFETCH_WRITE");
	else
		r = -r;
	if (write(pfd[1], "g", 1) != 1 || read(cfd[0], &res, 1) != 1)
		res = '?';
	waitpid(pid, NULL, 0);
	CHECK(r == 0, "PREFETCH_WRITE or WRITE after fork failed (%d)", r);
	diag("after fork: parent pfn %#llx -> %#llx", (unsigned long long)pfn0,
	     (unsigned long long)pfn1);
	CHECK(!pfn0 || pfn1 != pfn0, "PREFETCH_WRITE after fork kept the shared page");
	CHECK(check_fill(buf, len, 10) < 0, "the parent does not see the WRITE");
	CHECK(res == 'k', "the child's memory changed (%c)", res);
	pfw_free(&w, 0);
	munmap(buf, len);
	close(fd);
	free(chk);
	return T_PASS;
}

/* Without FLUSH the call returns at once and the pages get mapped later. */
int t_prefetch_async(struct env *e)
{
	struct pf_world w;
	size_t n = 256, len = n * e->page;
	long long mp = 0, f0;
	int r, ms;

	TRY(need_prefetch(e));
	TRY(pfw_make(e, &w, len, NULL));
	r = adv(w.mr, PF_WRITE, 0, w.buf, len);
	CHECK(!r, "async PREFETCH_WRITE: %s", strerror(r));
	/* bound: 30 s of counted 10 ms sleeps (a slow guest), not a speed check */
	for (ms = 0; ms < 30000; ms += 10) {
		mp = mrattr(e, w.mr, "odp_mapped_pages");
		if (mp == (long long)n)
			break;
		usleep(10000);
	}
	diag("async PREFETCH_WRITE of %zu pages: %lld mapped after ~%d ms", n, mp, ms);
	CHECK(mp == (long long)n, "async prefetch did not complete within 30 s");
	CHECK(mrattr(e, w.mr, "odp_pages_prefetched") == (long long)n, "prefetched %lld",
	      mrattr(e, w.mr, "odp_pages_prefetched"));
	f0 = mrattr(e, w.mr, "odp_faults");
	fill(w.loc, len, 11);
	TRY(pfw_rdma(e, &w, IBV_WR_RDMA_WRITE, "RDMA WRITE after async prefetch"));
	CHECK(mrattr(e, w.mr, "odp_faults") == f0, "the WRITE faulted after async prefetch");
	CHECK(check_fill(w.buf, len, 11) < 0, "WRITE data wrong");
	pfw_free(&w, 1);
	return T_PASS;
}

/* Races: a thread prefetches (async and sync) while another munmaps,
 * remaps and deregisters; a child queues async prefetches and is killed. */
struct race {
	struct env *e;
	struct ibv_pd *pd;
	volatile uint32_t lkey;
	volatile uint64_t addr;
	size_t len;
	volatile int stop;
	long ok, errs, bad;
	int bad_err;
};

static void *race_prefetcher(void *arg)
{
	struct race *ra = arg;
	unsigned i = 0;

	while (!ra->stop) {
		struct ibv_sge sg = { .addr = ra->addr, .length = (uint32_t)ra->len,
				      .lkey = ra->lkey };
		int r = uv_advise_mr(ra->pd, i % 3, i & 1 ? SYNC : 0, &sg, 1);

		i++;
		if (!r)
			ra->ok++;
		else if (r == ENOENT || r == EFAULT || r == EAGAIN)
			ra->errs++;
		else {
			ra->bad++;
			ra->bad_err = r;
		}
	}
	return NULL;
}

int t_prefetch_race(struct env *e)
{
	size_t len = 512 * e->page;
	struct race ra = { .e = e, .pd = e->dev.pd, .len = len };
	pthread_t th;
	int i, base, r, st;
	pid_t pid;

	TRY(need_prefetch(e));
	base = mr_count(e->dev_name);
	for (i = 0; i < 40; i++) {
		char *p = map_anon(len, e->page);
		struct ibv_mr *mr;

		CHECK(p, "mmap");
		mr = reg(e, p, len, ODP_ACC);
		CHECK(mr, "reg");
		ra.addr = va(p);
		ra.lkey = mr->lkey;
		ra.stop = 0;
		CHECK(!pthread_create(&th, NULL, race_prefetcher, &ra), "pthread_create");
		usleep(1000 * (i % 5));
		if (i & 1) {
			/* munmap the second half under the prefetches, then dereg */
			munmap(p + len / 2, len / 2);
			usleep(1000);
			CHECK(!ibv_dereg_mr(mr), "dereg");
			munmap(p, len / 2);
		} else {
			CHECK(!ibv_dereg_mr(mr), "dereg during prefetches");
			munmap(p, len);
		}
		ra.stop = 1;
		pthread_join(th, NULL);
	}
	diag("racing prefetches: %ld ok, %ld failed as expected, %ld with another error (%s)",
	     ra.ok, ra.errs, ra.bad, ra.bad ? strerror(ra.bad_err) : "-");
	CHECK(!ra.bad, "a racing prefetch failed with %s", strerror(ra.bad_err));
	/* a process exits with big async prefetches queued */
	for (i = 0; i < 5; i++) {
		pid = fork();
		CHECK(pid >= 0, "fork");
		if (!pid) {
			struct lb_dev d;
			size_t big = 32UL << 20;
			char *p = map_anon(big, e->page);
			struct ibv_mr *mr;
			int k;

			if (!p || lb_dev_open(&d, e->dev_name, 1))
				_exit(2);
			mr = lb_reg_mr(&d, p, big, ODP_ACC);
			if (!mr)
				_exit(2);
			for (k = 0; k < 4; k++) {
				struct ibv_sge sg = { .addr = va(p), .length = (uint32_t)big,
						      .lkey = mr->lkey };

				if (uv_advise_mr(d.pd, PF_WRITE, 0, &sg, 1))
					_exit(3);
			}
			if (i & 1)
				raise(SIGKILL);
			_exit(0);
		}
		CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
		CHECK((WIFEXITED(st) && !WEXITSTATUS(st)) || (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL),
		      "child with queued prefetches: status %#x", st);
	}
	r = mr_count(e->dev_name);
	CHECK(r == base, "MR count %d after the races, %d before: leak", r, base);
	return T_PASS;
}

/* Errors, as mlx5 gives them; nothing is mapped by a failed call. */
int t_prefetch_errors(struct env *e)
{
	size_t n = 16, len = n * e->page;
	char *p = NULL, *q = NULL;
	struct ibv_mr *mr, *pin, *ro, *other;
	struct ibv_pd *pd2;
	struct ibv_sge sg;
	int r;

	TRY(need_prefetch(e));
	p = map_anon(len, e->page);
	q = map_anon(len, e->page);
	CHECK(p && q, "mmap");
	mr = reg(e, p, len, ODP_ACC);
	pin = reg(e, q, len, PIN_ACC);
	ro = reg(e, q, len, IBV_ACCESS_ON_DEMAND | IBV_ACCESS_REMOTE_READ);
	pd2 = ibv_alloc_pd(e->dev.ctx);
	CHECK(mr && pin && ro && pd2, "setup");
	other = ibv_reg_mr(pd2, q, len, ODP_ACC);
	CHECK(other, "reg on a second PD");

#define EXPECT(want, what, ...)                                                             \
	do {                                                                                \
		r = (__VA_ARGS__);                                                          \
		diag("%-44s -> %s", what, r ? strerror(r) : "0");                          \
		CHECK(r == (want), "%s: %s, expected %s", what, strerror(r), strerror(want)); \
	} while (0)

	sg = (struct ibv_sge){ .addr = va(p), .length = len, .lkey = mr->lkey ^ 0x1 };
	EXPECT(ENOENT, "lkey with a wrong key byte", uv_advise_mr(e->dev.pd, PF_READ, SYNC, &sg, 1));
	sg.lkey = 0xfffff00;
	EXPECT(ENOENT, "lkey of no MR", uv_advise_mr(e->dev.pd, PF_READ, SYNC, &sg, 1));
	EXPECT(ENOENT, "lkey of no MR, async", uv_advise_mr(e->dev.pd, PF_READ, 0, &sg, 1));
	EXPECT(EOPNOTSUPP, "pinned MR", adv(pin, PF_READ, SYNC, q, len));
	EXPECT(EPERM, "MR of another PD", uv_advise_mr(e->dev.pd, PF_READ, SYNC,
			&(struct ibv_sge){ .addr = va(q), .length = len, .lkey = other->lkey }, 1));
	EXPECT(EPERM, "PREFETCH_WRITE of a read-only MR", adv(ro, PF_WRITE, SYNC, q, len));
	EXPECT(0, "PREFETCH of a read-only MR", adv(ro, PF_READ, SYNC, q, len));
	EXPECT(EFAULT, "range starting before the MR", adv(mr, PF_READ, SYNC, p - e->page, 2 * e->page));
	EXPECT(EFAULT, "range ending after the MR", adv(mr, PF_READ, SYNC, p + e->page, len));
	EXPECT(EFAULT, "range past the MR, async", adv(mr, PF_READ, 0, p + len, e->page));
	sg = (struct ibv_sge){ .addr = UINT64_MAX - 100, .length = 4096, .lkey = mr->lkey };
	EXPECT(EFAULT, "addr + length wrapping 2^64", uv_advise_mr(e->dev.pd, PF_WRITE, SYNC, &sg, 1));
	sg = (struct ibv_sge){ .addr = va(p) + e->page, .length = UINT32_MAX, .lkey = mr->lkey };
	EXPECT(EFAULT, "length 4 GiB - 1", uv_advise_mr(e->dev.pd, PF_WRITE, SYNC, &sg, 1));
	EXPECT(EOPNOTSUPP, "unknown advice 3", adv(mr, 3, SYNC, p, len));
	EXPECT(EOPNOTSUPP, "unknown advice 255", adv(mr, 255, SYNC, p, len));
	EXPECT(EINVAL, "unknown flag 1 << 1", adv(mr, PF_READ, 1u << 1, p, len));
	EXPECT(0, "zero-length range", adv(mr, PF_WRITE, SYNC, p, 0));
	EXPECT(0, "zero-length range at the MR's end", adv(mr, PF_WRITE, SYNC, p + len, 0));
	CHECK(mrattr(e, mr, "odp_mapped_pages") == 0 && resident_pages(p, len) == 0,
	      "a failed or empty prefetch mapped pages");
	/* a range the process has no VMA for: sync EFAULT, async accepted */
	CHECK(!munmap(p + 8 * e->page, 8 * e->page), "munmap");
	EXPECT(EFAULT, "sync PREFETCH of a munmapped range", adv(mr, PF_READ, SYNC, p, len));
	EXPECT(0, "async PREFETCH of a munmapped range", adv(mr, PF_READ, 0, p, len));
	EXPECT(0, "NO_FAULT of a munmapped range", adv(mr, PF_NOFAULT, SYNC, p, len));
#undef EXPECT
	ibv_dereg_mr(other);
	ibv_dereg_mr(ro);
	ibv_dereg_mr(pin);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd2);
	munmap(p, 8 * e->page);
	munmap(q, len);
	return T_PASS;
}
