// SPDX-License-Identifier: GPL-2.0
/*
 * The reclaim thread: takes memory away from the live buffers while traffic
 * runs.  Content-preserving events (pageout, mprotect, fork, THP, compaction)
 * may hit any page, busy or not; content-destroying ones (dontneed, remap) only
 * hit slots no transaction owns, and every slot they hit is marked so the next
 * transaction that makes the NIC touch it is counted ("re-accessed").
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rv.h"

#define MPOL_MF_MOVE_FLAG (1 << 1)	/* MPOL_MF_MOVE, without needing numaif.h */

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

/*
 * How often each kind fires, in multiples of --interval: the global ones are
 * heavy.  Wall-clock, not rounds: with every kind on, one round takes over a
 * second in a slow guest, so "every 25 rounds" never came for fork in a 20 s
 * run.  A kind whose time has come fires in the next round, however long the
 * rounds are; 0 = every round.
 */
static const unsigned kind_period[RV_NKINDS] = {
	[RV_EV_PAGEOUT] = 0, [RV_EV_DONTNEED] = 0, [RV_EV_REMAP] = 0, [RV_EV_MPROTECT] = 2,
	[RV_EV_FORK] = 25, [RV_EV_THP] = 3, [RV_EV_COMPACT] = 2,
};

/*
 * Content-preserving events wait up to this long for a transfer in flight on
 * the memory they hit (then act anyway): an event on idle memory proves less,
 * and in a slow guest the traffic threads are often between transactions.
 */
#define BUSY_WAIT_MS 200

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

enum pickwhat { PICK_ANY, PICK_DESTRUCTIVE, PICK_READONLY, PICK_HUGE };

static struct rv_buf *pick(struct rv_ctx *ctx, uint64_t *rs, enum pickwhat what)
{
	struct rv_buf *cand[RV_MAXBUF], *b;
	unsigned i, n = 0;

	pthread_mutex_lock(&ctx->reg_lock);
	for (i = 0; i < ctx->nbufs; i++) {
		b = ctx->bufs[i];
		if ((what == PICK_DESTRUCTIVE && !b->destructive_ok) ||
		    (what == PICK_READONLY && !b->nic_reads_only) ||
		    (what == PICK_HUGE && b->size < RV_HUGE))
			continue;
		cand[n++] = b;
	}
	pthread_mutex_unlock(&ctx->reg_lock);
	return n ? cand[rnd(rs) % n] : NULL;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static bool may_wait(struct rv_ctx *ctx, unsigned *waited)
{
	if (*waited >= BUSY_WAIT_MS || atomic_load(&ctx->stop_reclaim))
		return false;
	sleep_ms(1);
	++*waited;
	return true;
}

/*
 * Like pick(), but prefers a buffer with transfers in flight, waiting for one
 * (the wait budget *waited is shared by the caller's retries).
 */
static struct rv_buf *pick_busy(struct rv_ctx *ctx, uint64_t *rs, enum pickwhat what,
				unsigned *waited)
{
	struct rv_buf *b;
	unsigned tries;

	do {
		/* a few draws per poll: with several candidates one is likely busy */
		for (tries = 0; tries < 4; tries++) {
			b = pick(ctx, rs, what);
			if (!b || atomic_load(&b->inflight) > 0)
				return b;
		}
	} while (may_wait(ctx, waited));
	return b;
}

static int total_inflight(struct rv_ctx *ctx)
{
	unsigned i;
	int t = 0;

	pthread_mutex_lock(&ctx->reg_lock);
	for (i = 0; i < ctx->nbufs; i++)
		t += atomic_load(&ctx->bufs[i]->inflight);
	pthread_mutex_unlock(&ctx->reg_lock);
	return t;
}

struct evrec {
	unsigned long long c0;
	double t0;
	int inflight;
};

static void ev_begin(struct rv_ctx *ctx, struct evrec *r, int inflight)
{
	r->c0 = atomic_load(&ctx->completions);
	r->inflight = inflight;
	r->t0 = rv_now();
}

static void ev_end(struct rv_ctx *ctx, enum rv_kind k, const struct evrec *r, bool ok)
{
	atomic_fetch_add(&ctx->ev.n[k], 1);
	if (r->inflight > 0)
		atomic_fetch_add(&ctx->ev.inflight[k], 1);
	if (atomic_load(&ctx->completions) != r->c0)
		atomic_fetch_add(&ctx->ev.overlap[k], 1);
	if (!ok)
		atomic_fetch_add(&ctx->ev.fail[k], 1);
	atomic_fetch_add(&ctx->ev.us[k], (unsigned long long)((rv_now() - r->t0) * 1e6));
}

static void ev_pageout(struct rv_ctx *ctx, uint64_t *rs)
{
	unsigned s, cnt, waited = 0;
	struct rv_buf *b = pick_busy(ctx, rs, PICK_ANY, &waited);
	struct evrec r;
	int rc;

	if (!b)
		return;
	s = (unsigned)(rnd(rs) % b->nslots);
	cnt = 1 + (unsigned)(rnd(rs) % 8);
	if (s + cnt > b->nslots)
		cnt = b->nslots - s;
	ev_begin(ctx, &r, atomic_load(&b->inflight));
	rc = madvise(b->base + (size_t)s * b->slot, (size_t)cnt * b->slot, MADV_PAGEOUT);
	ev_end(ctx, RV_EV_PAGEOUT, &r, rc == 0);
}

/* Claim a run of up to max FREE slots for a destructive event. */
static bool claim_run(struct rv_buf *b, uint64_t *rs, unsigned max, unsigned *first,
		      unsigned *cnt)
{
	unsigned i, s0 = (unsigned)(rnd(rs) % b->nslots), n = 0, start = 0;

	pthread_mutex_lock(&b->lock);
	for (i = 0; i < b->nslots && n < max; i++) {
		unsigned s = (s0 + i) % b->nslots;

		if (b->state[s] == SLOT_FREE && (n == 0 || s == start + n)) {
			if (!n)
				start = s;
			n++;
		} else if (n) {
			break;
		}
	}
	for (i = 0; i < n; i++)
		b->state[start + i] = SLOT_RECLAIM;
	pthread_mutex_unlock(&b->lock);
	*first = start;
	*cnt = n;
	return n > 0;
}

static void release_run(struct rv_buf *b, unsigned first, unsigned cnt, enum rv_kind k)
{
	unsigned i;

	pthread_mutex_lock(&b->lock);
	for (i = 0; i < cnt; i++) {
		b->state[first + i] = SLOT_FREE;
		b->evmark[first + i] = (uint8_t)(k + 1);
		b->dropped[first + i] = 1;
	}
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
	atomic_fetch_add(&b->ctx->ev.slots[k], cnt);
}

static void ev_destroy(struct rv_ctx *ctx, uint64_t *rs, enum rv_kind k)
{
	struct rv_buf *b = NULL;
	unsigned first = 0, cnt = 0, tries;
	struct evrec r;
	uint8_t *p;
	size_t len;
	bool ok = true;

	for (tries = 0; tries < 8; tries++) {
		b = pick(ctx, rs, PICK_DESTRUCTIVE);
		if (b && claim_run(b, rs, 4, &first, &cnt))
			break;
		b = NULL;
	}
	if (!b)
		return;
	p = b->base + (size_t)first * b->slot;
	len = (size_t)cnt * b->slot;
	ev_begin(ctx, &r, atomic_load(&b->inflight));
	if (k == RV_EV_DONTNEED) {
		ok = madvise(p, len, MADV_DONTNEED) == 0;
	} else {
		void *q;

		if (munmap(p, len)) {
			ok = false;
		} else {
			/* NOREPLACE: if anything else took the hole, fail loudly */
			q = mmap(p, len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (q != p) {
				rv_fatal(ctx, "remap: could not map %zu bytes back at %p: %s", len,
					 (void *)p, q == MAP_FAILED ? strerror(errno) : "moved");
				ok = false;
			}
		}
	}
	ev_end(ctx, k, &r, ok);
	release_run(b, first, cnt, k);
}

static void ev_mprotect(struct rv_ctx *ctx, uint64_t *rs)
{
	struct rv_buf *b;
	struct evrec r;
	unsigned waited = 0;
	bool ok;

	/*
	 * Holding 'fill' stops new transfers from this buffer (their source is
	 * filled under it first), so the ones in flight can only drain: choose a
	 * busy buffer, lock it, and if it drained meanwhile, let go and retry.
	 */
	for (;;) {
		b = pick_busy(ctx, rs, PICK_READONLY, &waited);
		if (!b)
			return;
		pthread_rwlock_wrlock(&b->fill);
		if (atomic_load(&b->inflight) > 0 || !may_wait(ctx, &waited))
			break;
		pthread_rwlock_unlock(&b->fill);
	}
	ev_begin(ctx, &r, atomic_load(&b->inflight));
	ok = mprotect(b->base, b->size, PROT_READ) == 0;
	/* stay read-only for a moment so the NIC reads through the RO mapping */
	usleep(2000);
	if (mprotect(b->base, b->size, PROT_READ | PROT_WRITE))
		ok = false;
	ev_end(ctx, RV_EV_MPROTECT, &r, ok);
	pthread_rwlock_unlock(&b->fill);
}

/*
 * Under a cgroup limit the child's COW copies are charged to the same cgroup:
 * a child writing the whole working set into a memory.max of half of it
 * swapped for seconds per fork in a slow guest, so the other kinds hardly ran.
 * There the child writes every step-th page (a different phase each fork), at
 * most a quarter of memory.max per fork.
 */
static unsigned long long fork_step(const struct rv_ctx *ctx, unsigned long long pages)
{
	unsigned long long budget;

	if (!ctx->cg_active || !ctx->cg_limit)
		return 1;
	budget = ctx->cg_limit / 4 / PAT_PAGE;
	if (!budget)
		budget = 1;
	return (pages + budget - 1) / budget;
}

static void ev_fork(struct rv_ctx *ctx, uint64_t *rs)
{
	struct evrec r;
	unsigned long long pages = 0, written = 0, step, phase, j;
	unsigned i, waited = 0;
	pid_t pid;
	int status = 0;
	bool ok;

	while (total_inflight(ctx) == 0 && may_wait(ctx, &waited))
		;
	pthread_mutex_lock(&ctx->reg_lock);
	for (i = 0; i < ctx->nbufs; i++)
		pages += ctx->bufs[i]->size / PAT_PAGE;
	pthread_mutex_unlock(&ctx->reg_lock);
	step = fork_step(ctx, pages);
	phase = rnd(rs) % step;
	for (i = 0; i < ctx->nbufs; i++)
		for (j = phase; j < ctx->bufs[i]->size / PAT_PAGE; j += step)
			written++;
	ev_begin(ctx, &r, total_inflight(ctx));
	pid = fork();
	if (pid == 0) {
		/* Child: only this thread exists; no locks, no allocation.  Write our
		 * marker into the pages so each one is copied (COW) for us, and the
		 * parent would see the marker if a copy went the wrong way. */
		for (i = 0; i < ctx->nbufs; i++)
			for (j = phase; j < ctx->bufs[i]->size / PAT_PAGE; j += step)
				pat_mark_pages(ctx->bufs[i]->base + j * PAT_PAGE, PAT_PAGE,
					       PAT_STREAM_CHILD | i, j * PAT_PAGE, 0);
		_exit(0);
	}
	ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	     WEXITSTATUS(status) == 0;
	if (ok)
		atomic_fetch_add(&ctx->ev.fork_pages, written);
	ev_end(ctx, RV_EV_FORK, &r, ok);
}

static bool split_thp(void *p, size_t len)
{
	char cmd[96];
	int fd = open("/sys/kernel/debug/split_huge_pages", O_WRONLY), n;
	bool ok;

	if (fd < 0)
		return false;
	n = snprintf(cmd, sizeof(cmd), "%d,%#lx,%#lx", (int)getpid(), (unsigned long)p,
		     (unsigned long)p + len);
	ok = write(fd, cmd, (size_t)n) == n;
	close(fd);
	return ok;
}

static bool all_resident(void *p, size_t len)
{
	unsigned char vec[RV_HUGE / PAT_PAGE];
	size_t i, n = len / PAT_PAGE;

	if (n > sizeof(vec) || mincore(p, len, vec))
		return false;
	for (i = 0; i < n; i++)
		if (!(vec[i] & 1))
			return false;
	return true;
}

static void ev_thp(struct rv_ctx *ctx, uint64_t *rs, unsigned round)
{
	unsigned waited = 0, tries;
	struct rv_buf *b = pick_busy(ctx, rs, PICK_HUGE, &waited);
	struct evrec r;
	uint8_t *p;
	bool ok;

	if (!b)
		return;
	p = b->base + (rnd(rs) % (b->size / RV_HUGE)) * RV_HUGE;
	/*
	 * MADV_COLLAPSE swaps in every page of the chunk first: under a cgroup
	 * limit with the working set half swapped out, one such collapse took
	 * 12 s in the guest and starved every other kind.  So collapse only a
	 * chunk that is fully resident, if a few draws find one.
	 */
	for (tries = 0; (round & 1) && tries < 8 && !all_resident(p, RV_HUGE); tries++)
		p = b->base + (rnd(rs) % (b->size / RV_HUGE)) * RV_HUGE;
	ev_begin(ctx, &r, atomic_load(&b->inflight));
	if (round & 1) {
		ok = madvise(p, RV_HUGE, MADV_HUGEPAGE) == 0;
		if (!all_resident(p, RV_HUGE)) {
			atomic_fetch_add(&ctx->ev.collapse_swapped, 1);
		} else {
			ok = ok && madvise(p, RV_HUGE, MADV_COLLAPSE) == 0;
			atomic_fetch_add(ok ? &ctx->ev.collapse_ok : &ctx->ev.collapse_fail, 1);
		}
	} else {
		ok = madvise(p, RV_HUGE, MADV_NOHUGEPAGE) == 0;
		if (access("/sys/kernel/debug/split_huge_pages", W_OK)) {
			atomic_fetch_add(&ctx->ev.split_nodebugfs, 1);
		} else {
			ok = split_thp(p, RV_HUGE) && ok;
			atomic_fetch_add(ok ? &ctx->ev.split_ok : &ctx->ev.split_fail, 1);
		}
	}
	/* a refused collapse (busy or pinned pages) is not an error of the test */
	ev_end(ctx, RV_EV_THP, &r, true);
}

#define MIGRATE_MAX 128

/*
 * Migrate a live range to the other NUMA node with move_pages(2): the
 * deterministic way to make the kernel move our pages (compaction only moves
 * what happens to sit where it scans).  Content-preserving, so any slot.
 */
static void ev_migrate(struct rv_ctx *ctx, uint64_t *rs)
{
	unsigned waited = 0;
	struct rv_buf *b = pick_busy(ctx, rs, PICK_ANY, &waited);
	void *pages[MIGRATE_MAX];
	int nodes[MIGRATE_MAX], status[MIGRATE_MAX];
	unsigned long i, cnt;
	size_t off;
	struct evrec r;
	long rc;

	if (!b)
		return;
	cnt = b->size / PAT_PAGE;
	if (cnt > MIGRATE_MAX)
		cnt = MIGRATE_MAX;
	off = (rnd(rs) % (b->size / PAT_PAGE - cnt + 1)) * PAT_PAGE;
	for (i = 0; i < cnt; i++)
		pages[i] = b->base + off + i * PAT_PAGE;
	/* where are they now? */
	if (syscall(SYS_move_pages, 0, cnt, pages, NULL, status, 0))
		return;
	for (i = 0; i < cnt; i++)
		nodes[i] = status[i] == 0 ? 1 : 0;
	ev_begin(ctx, &r, atomic_load(&b->inflight));
	rc = syscall(SYS_move_pages, 0, cnt, pages, nodes, status, MPOL_MF_MOVE_FLAG);
	for (i = 0; rc >= 0 && i < cnt; i++)
		if (status[i] == nodes[i])
			atomic_fetch_add(&ctx->ev.migrated, 1);
		else
			atomic_fetch_add(&ctx->ev.migrate_refused, 1);
	ev_end(ctx, RV_EV_COMPACT, &r, rc >= 0);
}

static void ev_compact(struct rv_ctx *ctx, uint64_t *rs, unsigned round)
{
	struct evrec r;
	int fd;
	bool ok;

	if (ctx->numa_nodes > 1)
		ev_migrate(ctx, rs);
	if (round % 25 != 1)
		return;
	fd = open("/proc/sys/vm/compact_memory", O_WRONLY);
	ev_begin(ctx, &r, total_inflight(ctx));
	ok = fd >= 0 && write(fd, "1", 1) == 1;
	if (fd >= 0)
		close(fd);
	ev_end(ctx, RV_EV_COMPACT, &r, ok);
	atomic_fetch_add(&ctx->ev.compactions, 1);
}

void *rv_reclaim_main(void *arg)
{
	struct rv_ctx *ctx = arg;
	uint64_t rs = 0x9e3779b97f4a7c15ull ^ ctx->cfg.seed;
	double due[RV_NKINDS], t;
	unsigned fired[RV_NKINDS] = { 0 }, k;

	{
		struct stat st;

		ctx->numa_nodes = stat("/sys/devices/system/node/node1", &st) ? 1 : 2;
	}
	while (!atomic_load(&ctx->traffic_started) && !atomic_load(&ctx->stop_reclaim))
		sleep_ms(10);
	t = rv_now();
	for (k = 0; k < RV_NKINDS; k++)
		due[k] = t + (double)kind_period[k] * ctx->cfg.interval_ms / 1e3;
	while (!atomic_load(&ctx->stop_reclaim)) {
		for (k = 0; k < RV_NKINDS && !atomic_load(&ctx->stop_reclaim); k++) {
			/* cgroup is not an event: the limit acts all the time */
			if (!ctx->cfg.kind[k] || k == RV_EV_CGROUP)
				continue;
			t = rv_now();
			if (t < due[k])
				continue;
			due[k] = t + (double)kind_period[k] * ctx->cfg.interval_ms / 1e3;
			fired[k]++;
			switch (k) {
			case RV_EV_PAGEOUT:
				ev_pageout(ctx, &rs);
				break;
			case RV_EV_DONTNEED:
			case RV_EV_REMAP:
				ev_destroy(ctx, &rs, k);
				break;
			case RV_EV_MPROTECT:
				ev_mprotect(ctx, &rs);
				break;
			case RV_EV_FORK:
				ev_fork(ctx, &rs);
				break;
			case RV_EV_THP:
				ev_thp(ctx, &rs, fired[k]);
				break;
			case RV_EV_COMPACT:
				ev_compact(ctx, &rs, fired[k]);
				break;
			default:
				break;
			}
		}
		sleep_ms(ctx->cfg.interval_ms);
	}
	return NULL;
}
