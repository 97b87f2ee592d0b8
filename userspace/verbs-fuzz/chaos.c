/* verbs-fuzz: chaos: what changes under the work requests in flight --
 * the memory (munmap, mmap over, mprotect, MADV_DONTNEED/PAGEOUT/HWPOISON),
 * the process (fork), the MRs (dereg, rereg, odd registrations), the QPs
 * (destroy, ERR) and the driver's transient fault path (odp_fail_faults).
 * Each change is made under the world lock and recorded in the model;
 * the WRs in flight that it may affect are evaluated again. */
#include "sysfile.h"
#include "uverbs.h"
#include "vf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define INJECT "/sys/module/rdma_rxe/parameters/odp_fail_faults"

enum kind {
	K_MUNMAP, K_REMAP, K_PROT_RO, K_PROT_NONE, K_PROT_RW, K_DONTNEED, K_PAGEOUT, K_POISON,
	K_FORK, K_DEREG, K_REREG, K_REGPROBE, K_DESTROY_QP, K_QP_ERR, K_INJECT, K_RECYCLE,
	K_NKINDS
};

static const char *const kind_name[K_NKINDS] = {
	"munmap", "mmap-over", "mprotect-ro", "mprotect-none", "mprotect-rw", "dontneed",
	"pageout", "hwpoison", "fork", "dereg", "rereg", "reg-probe", "destroy-qp", "qp-err",
	"inject", "recycle",
};

volatile sig_atomic_t vf_in_poison;
static pid_t children[8];
static int poisoned;		/* pages poisoned in this run */

/* ------------------------------------------------------------------ memory */

/* A range of whole chaos units (4 KiB, or 2 MiB on hugetlbfs) of region g
 * whose pages all satisfy ok(); 0 if none found. */
static int pick_range(struct rng *r, struct region *g, int (*ok)(uint8_t), size_t *off,
		      size_t *len)
{
	size_t units = g->len / g->gran, first, n, i, tries;

	for (tries = 0; tries < 8; tries++) {
		first = rng_below(r, units);
		n = rng_pct(r, 70) ? 1 : rng_range(r, 1, units - first);
		for (i = first * g->gran / 4096; i < (first + n) * g->gran / 4096; i++)
			if (!ok(g->pst[i]))
				break;
		if (i == (first + n) * g->gran / 4096) {
			*off = first * g->gran;
			*len = n * g->gran;
			return 1;
		}
	}
	return 0;
}

static int ok_mapped(uint8_t st)
{
	return st == MP_RW || st == MP_RO || st == MP_NONE;
}

static int ok_any(uint8_t st)
{
	(void)st;
	return 1;
}

static int ok_rw(uint8_t st)
{
	return st == MP_RW;
}

/* A pinned MR keeps the pages it pinned: they no longer show here. */
static void detach(struct region *g, size_t off, size_t len)
{
	struct mrec *m = g->mr >= 0 ? &W.mr[g->mr] : NULL;

	if (m && m->live && !m->m.odp)
		memset(g->detached + off / 4096, 1, len / 4096);
}

/* [off, off + len) of g reads back as zeros now: the model follows (a
 * pinned MR keeps the pages it had), the canary bytes there are written
 * again where the CPU can. */
static void zeroed(struct region *g, size_t off, size_t len)
{
	detach(g, off, len);
	memset(g->shadow + off, 0, len);
	memset(g->known + off, 1, len);
	canary_fill(g, off, off + len);
}

static int mem_op(struct rng *r, enum kind k, struct region *g)
{
	size_t off, len, i;
	int (*ok)(uint8_t) = k == K_REMAP ? ok_any : (k == K_POISON ? ok_rw : ok_mapped);
	char *p;
	int ret;

	if (!pick_range(r, g, ok, &off, &len))
		return 0;
	p = g->data + off;
	switch (k) {
	case K_MUNMAP:
		/*
		 * A hole must not stay open: the next mmap (a QP's ring, the
		 * heap) may land in it, and an ODP MR then reaches that
		 * memory, as ODP must.  So the hole lasts while this thread
		 * holds the world lock (nothing else maps then), long enough
		 * for WRs in flight to meet it, and is then filled with a
		 * PROT_NONE mapping.
		 */
		ret = munmap(p, len);
		if (!ret) {
			memset(g->pst + off / 4096, MP_HOLE, len / 4096);
			detach(g, off, len);
			shadow_set_unknown(g, off, len);
			traffic_reevaluate((int)(g - W.reg), 0);
			usleep((useconds_t)rng_range(r, 0, 5000));
			/*
			 * A hugetlbfs region stays hugetlbfs: 4 KiB pages
			 * under an ODP + HUGETLB MR fail every access (class
			 * huge-small), which the model does not expect of a
			 * huge region.  MAP_NORESERVE: nothing is taken from
			 * the pool until a page is touched.
			 */
			if (mmap(p, len, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
				 (g->huge ? MAP_HUGETLB | MAP_NORESERVE : 0), -1, 0) == MAP_FAILED) {
				fprintf(stderr, "verbs-fuzz: cannot fill a hole: %s\n", strerror(errno));
				exit(2);
			}
			memset(g->pst + off / 4096, MP_NONE, len / 4096);
			/*
			 * The filled hole reads back as zeros once made
			 * accessible: no canary there until it is written
			 * again (mprotect-rw does that).
			 */
			canary_fill(g, off, off + len);
		}
		break;
	case K_REMAP:
		p = mmap(p, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | (g->huge ? MAP_HUGETLB : 0), -1, 0);
		ret = p == MAP_FAILED ? -1 : 0;
		if (!ret) {
			if (!g->huge)
				madvise(p, len, MADV_NOHUGEPAGE);
			memset(g->pst + off / 4096, MP_RW, len / 4096);
			zeroed(g, off, len);
		}
		break;
	case K_PROT_RO:
	case K_PROT_NONE:
	case K_PROT_RW: {
		int prot = k == K_PROT_RO ? PROT_READ : k == K_PROT_NONE ? PROT_NONE :
			   PROT_READ | PROT_WRITE;

		ret = mprotect(p, len, prot);
		if (!ret) {
			memset(g->pst + off / 4096,
			       k == K_PROT_RO ? MP_RO : k == K_PROT_NONE ? MP_NONE : MP_RW, len / 4096);
			for (i = off; k == K_PROT_RW && i < off + len; i += 4096)
				if (g->nocanary[i / 4096])
					canary_fill(g, i, i + 4096);
		}
		break;
	}
	case K_DONTNEED:
		ret = madvise(p, len, MADV_DONTNEED);
		if (!ret)
			zeroed(g, off, len);	/* private anonymous memory */
		break;
	case K_PAGEOUT:
		/* the content stays; ODP MRs fault it back in */
		ret = madvise(p, len, MADV_PAGEOUT);
		if (ret && errno == EINVAL)
			ret = 0;	/* a kernel without MADV_PAGEOUT */
		return ret ? -1 : 1;
	case K_POISON:
		if (g->huge || !W.have_poison || poisoned >= VF_MAX_POISON)
			return 0;
		/* under an ODP MR only with that class */
		if (g->mr >= 0 && W.mr[g->mr].live && W.mr[g->mr].m.odp &&
		    !vf_on(C_POISON_ODP))
			return 0;
		len = 4096;
		/* a page of its own, not the shared zero page */
		{
			volatile char *c = p;

			*c = *c;
		}
		vf_in_poison = 1;
		ret = madvise(p, len, MADV_HWPOISON);
		vf_in_poison = 0;
		if (ret && (errno == EPERM || errno == EINVAL)) {
			W.have_poison = 0;	/* not root, or no CONFIG_MEMORY_FAILURE */
			return 0;
		}
		if (!ret) {
			poisoned++;
			g->poisoned++;
			g->pst[off / 4096] = MP_POISON;
			detach(g, off, len);
			shadow_set_unknown(g, off, len);
		}
		break;
	default:
		return 0;
	}
	if (ret) {
		vf_finding("chaos %s of region %d [%zu, +%zu) failed: %s", kind_name[k],
			   (int)(g - W.reg), off, len, strerror(errno));
		return -1;
	}
	traffic_reevaluate((int)(g - W.reg), 0);
	return 1;
}

/* fork: the child scribbles on its copy of every region and exits; the
 * parent must see none of it (pinned pages are copied for the child, ODP
 * follows the parent's COW breaks). */
static int fork_op(struct rng *r)
{
	unsigned int delay = (unsigned int)rng_range(r, 0, 50000);
	pid_t pid;
	int i, slot;

	for (slot = 0; slot < 8; slot++)
		if (!children[slot])
			break;
	if (slot == 8)
		return 0;
	pid = fork();
	if (pid < 0)
		return 0;
	if (!pid) {
		/* only raw memory and _exit: other threads held locks */
		usleep(delay);
		for (i = 0; i < VF_NREG; i++) {
			struct region *g = &W.reg[i];
			size_t o;

			if (!g->used)
				continue;
			for (o = 0; o < g->len; o++)
				if (g->pst[o / 4096] == MP_RW)
					g->data[o] = (char)(o * 7 + 1);
			for (o = 0; o < 4096; o++) {
				g->data[-4096 + (ssize_t)o] = 0x5a;
				g->data[g->len + o] = 0x5a;
			}
		}
		_exit(0);
	}
	children[slot] = pid;
	return 1;
}

static void reap(void)
{
	int i, st;

	for (i = 0; i < 8; i++)
		if (children[i] && waitpid(children[i], &st, WNOHANG) == children[i]) {
			if (!WIFEXITED(st) || WEXITSTATUS(st))
				vf_finding("fork child %d ended with status 0x%x (its copy of the "
					   "buffers broke it?)", children[i], st);
			children[i] = 0;
		}
}

void chaos_reap_all(void)
{
	int i, st;

	for (i = 0; i < 8; i++)
		if (children[i]) {
			waitpid(children[i], &st, 0);
			children[i] = 0;
		}
}

/* -------------------------------------------------------------------- MRs */

#define REREG_TRANS	1	/* IB_MR_REREG_TRANS */
#define REREG_PD	2	/* IB_MR_REREG_PD */
#define REREG_ACCESS	4	/* IB_MR_REREG_ACCESS */

#define MA_WRITABLE (MA_LOCAL_WRITE | MA_REMOTE_WRITE | MA_REMOTE_ATOMIC | MA_MW_BIND)

/* What the kernel's rereg must do (the uverbs core, then rxe): 0 or the
 * errno.  The umem stays the one registered: whether it may be written
 * was decided by the access at registration. */
static int rereg_errno(const struct mrec *m, uint32_t flags, unsigned int access)
{
	unsigned int changed = access ^ m->m.access;
	unsigned int rxe_ok = MA_LOCAL_WRITE | MA_REMOTE_WRITE | MA_REMOTE_READ |
			      MA_REMOTE_ATOMIC | MA_MW_BIND | MA_ON_DEMAND | MA_FLUSH_GLOBAL |
			      MA_FLUSH_PERSISTENT | (access & MA_ON_DEMAND ? MA_HUGETLB : 0);

	if (!flags)
		return EINVAL;
	if (flags & ~7u)
		return EOPNOTSUPP;
	if ((flags & REREG_ACCESS) && (access & (MA_REMOTE_WRITE | MA_REMOTE_ATOMIC)) &&
	    !(access & MA_LOCAL_WRITE))
		return EINVAL;
	if (flags & REREG_TRANS)
		return EOPNOTSUPP;	/* rxe: only PD and access */
	if (flags & REREG_ACCESS) {
		if ((access & MA_WRITABLE) && !(m->reg_access & MA_WRITABLE))
			return EACCES;
		if (access & ~rxe_ok)
			return EOPNOTSUPP;
		if ((changed & (MA_ON_DEMAND | MA_HUGETLB)) ||
		    (m->m.odp && (access & MA_FLUSH_PERSISTENT)))
			return EOPNOTSUPP;
	}
	return 0;
}

static int rereg_op(struct rng *r, int i)
{
	struct mrec *m = &W.mr[i];
	uint32_t flags, lkey = 0, rkey = 0;
	int access, want, err, ret, newpd;

	if (!m->live)
		return 0;
	if (rng_pct(r, 30)) {
		/* librxe has no rereg: libibverbs must refuse, the MR unchanged */
		ret = ibv_rereg_mr(m->mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
				   (int)(m->m.access & ~MA_REMOTE_ATOMIC));
		if (!ret) {
			vf_finding("ibv_rereg_mr succeeded on rxe (librxe 44 has no rereg_mr)");
			return -1;
		}
		return 1;
	}
	flags = (uint32_t)rng_range(r, 1, 3) << 1;		/* PD, ACCESS or both */
	if (rng_pct(r, 5))
		flags = (uint32_t[]){ 0, REREG_TRANS, 8, REREG_TRANS | REREG_PD }[rng_below(r, 4)];
	access = (int)(m->m.access ^ (1u << rng_below(r, 10)));
	if (rng_pct(r, 30))
		access = (int)m->m.access;
	newpd = rng_pct(r, 50) ? 1 - m->m.pd : m->m.pd;
	want = rereg_errno(m, flags, (unsigned int)access);
	/* the kernel's rereg, which librxe (rdma-core 44) does not offer */
	err = uv_rereg_mr(m->mr, flags, 0, 0, 0, W.pd[newpd], access, &lkey, &rkey);
	if (!err != !want) {
		vf_finding("rereg of MR key 0x%x (%s, access 0x%x) flags %u access 0x%x pd %d: %s, "
			   "the model says %s", m->m.key, m->m.odp ? "ODP" : "pinned", m->m.access,
			   flags, access, newpd, err ? strerror(err) : "success",
			   want ? strerror(want) : "success");
		return -1;
	}
	if (err)
		return 1;
	if (lkey != m->m.key || rkey != m->m.key) {
		vf_finding("rereg of MR key 0x%x returned keys 0x%x/0x%x", m->m.key, lkey, rkey);
		return -1;
	}
	if (flags & REREG_PD)
		m->m.pd = newpd;
	if (flags & REREG_ACCESS)
		m->m.access = (unsigned int)access;
	traffic_reevaluate(i, 1);
	return 1;
}

/* A registration with odd arguments, which must succeed or fail as the
 * model says; deregistered at once. */
static int regprobe_op(struct rng *r)
{
	struct m_mr buf[VF_NREG];
	struct m_view v;
	struct region *g = &W.reg[rng_below(r, VF_NREG)];
	uint64_t addr, len, iova;
	unsigned int access;
	struct ibv_mr *mr;
	int want, err, odp = rng_pct(r, 60), huge = 0;

	if (!g->used)
		return 0;
	access = (unsigned int)rng_below(r, 1u << 10) & ~(unsigned int)MA_ON_DEMAND;
	access &= ~(1u << 5);		/* ZERO_BASED: not for reg_mr */
	if (odp)
		access |= MA_ON_DEMAND;
	if (!odp || rng_pct(r, 70)) {
		/* inside the region's reservation, where the page states are known */
		addr = (uintptr_t)g->resv + rng_below(r, g->resv_len);
		len = rng_pct(r, 10) ? 0 : rng_range(r, 1, (uintptr_t)g->resv + g->resv_len - addr);
		huge = g->huge && addr >= (uintptr_t)g->data && addr < (uintptr_t)g->data + g->len;
	} else {
		addr = rng_pct(r, 30) ? 0 : (rng_pct(r, 50) ? UINT64_MAX - rng_below(r, 1 << 20) :
					    rng_u64(r) & 0x00007ffffffff000ull);
		len = (uint64_t[]){ 0, 1, 4096, 1ull << 20, 1ull << 30, UINT64_MAX,
				    UINT64_MAX - addr }[rng_below(r, 7)];
	}
	iova = rng_pct(r, 50) ? addr : (rng_u64(r) & ~4095ull) | (addr & 4095);
	if (rng_pct(r, 5))
		iova = rng_u64(r);	/* mismatched page offset */
	world_view(&v, buf);
	want = m_reg_errno(&v, addr, len, iova, access, huge);
	errno = 0;
	mr = ibv_reg_mr_iova2(W.pd[0], (void *)(uintptr_t)addr, len, iova, (int)access);
	err = errno;
	if (!mr != !!want) {
		vf_finding("ibv_reg_mr_iova2(addr 0x%llx, len 0x%llx, iova 0x%llx, access 0x%x) %s (%s), "
			   "the model says %s", (unsigned long long)addr, (unsigned long long)len,
			   (unsigned long long)iova, access, mr ? "succeeded" : "failed",
			   mr ? "-" : strerror(err), want ? strerror(want) : "it must succeed");
		if (mr)
			ibv_dereg_mr(mr);
		return -1;
	}
	if (mr && (err = ibv_dereg_mr(mr))) {
		vf_finding("ibv_dereg_mr of a probe MR failed: %s", strerror(err));
		return -1;
	}
	return 1;
}

/* -------------------------------------------------------------------- QPs */

static int qp_op(struct rng *r, enum kind k)
{
	int p = (int)rng_below(r, VF_NPAIR + VF_NUD), side = (int)rng_below(r, 2), err;
	struct vq *q;
	struct pair *P = NULL;

	if (p < VF_NPAIR) {
		P = &W.pair[p];
		if (!P->live)
			return 0;
		q = side ? &P->b : &P->a;
	} else {
		if (!vf_on(C_UD) || !W.ud_live[p - VF_NPAIR])
			return 0;
		q = &W.ud[p - VF_NPAIR];
	}
	if (q->dead || !q->qp)
		return 0;
	if (k == K_DESTROY_QP) {
		err = ibv_destroy_qp(q->qp);
		if (err) {
			vf_finding("ibv_destroy_qp(QP %u) failed: %s", q->qp->qp_num, strerror(err));
			return -1;
		}
		q->qp = NULL;
		q->dead = 1;
	} else {
		struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

		err = ibv_modify_qp(q->qp, &a, IBV_QP_STATE);
		if (err) {
			vf_finding("ibv_modify_qp(QP %u, ERR) failed: %s", q->qp->qp_num, strerror(err));
			return -1;
		}
		q->chaos_err = 1;
	}
	q->may_err = 1;
	if (P) {
		if (side)
			P->resp_dead = 1;
		traffic_retire_pair(p, kind_name[k]);
	}
	return 1;
}

static int inject_op(struct rng *r)
{
	char n[16];

	if (!W.have_inject || W.inject_pending)
		return 0;
	snprintf(n, sizeof(n), "%u", (unsigned int)rng_range(r, 1, 20));
	if (sysfile_write(INJECT, n))
		return 0;
	W.inject_pending = 1;
	traffic_reevaluate(-1, 1);
	/* every WR in flight may meet an injected failure */
	{
		int p, i;

		for (p = 0; p < VF_NPAIR; p++)
			for (i = 0; i < W.pair[p].a.sqn; i++)
				W.pair[p].a.sq[i]->transient = 1;
	}
	return 1;
}

/*
 * odp_fail_faults is the module's, not the process's: failures an earlier
 * run injected and left unconsumed (traffic ended first, or it died) fail
 * the next program's first faults, RNR NAKs no model of that program
 * expects (guest/50 and 52 run seed 0x5eed0002 right after 0x5eed0001).
 * Cleared at the start and at the end of a run: 0, or -1 if it cannot be.
 */
int chaos_inject_clear(void)
{
	if (sysfile_write(INJECT, "0"))
		return -1;
	W.inject_pending = 0;
	return 0;
}

static void inject_poll(void)
{
	FILE *f;
	unsigned int n = 1;

	if (!W.inject_pending)
		return;
	f = fopen(INJECT, "r");
	if (!f)
		return;
	if (fscanf(f, "%u", &n) != 1)
		n = 1;
	fclose(f);
	if (!n)
		W.inject_pending = 0;
}

/* A region nothing is in flight on: a new one in its place. */
static int recycle_op(struct rng *r)
{
	int i = (int)rng_below(r, VF_NREG);
	struct region *g = &W.reg[i];
	size_t b;

	if (!g->used)
		return 0;
	for (b = 0; b <= g->len / VF_BLK; b++)
		if (g->pend[b])
			return 0;
	if (canary_check(g))
		return -1;
	if (mr_deregister(i))
		return -1;
	traffic_reevaluate(i, 1);
	region_free(i);
	if (region_make(i, r)) {
		vf_finding("cannot make region %d again: %s", i, strerror(errno));
		return -1;
	}
	mr_register(i, r);
	traffic_reevaluate(i, 1);
	return 1;
}

void chaos_step(struct rng *r)
{
	static const unsigned int weight[K_NKINDS] = {
		[K_MUNMAP] = 6, [K_REMAP] = 8, [K_PROT_RO] = 5, [K_PROT_NONE] = 4, [K_PROT_RW] = 8,
		[K_DONTNEED] = 8, [K_PAGEOUT] = 6, [K_POISON] = 2, [K_FORK] = 3, [K_DEREG] = 6,
		[K_REREG] = 5, [K_REGPROBE] = 6, [K_DESTROY_QP] = 3, [K_QP_ERR] = 3, [K_INJECT] = 3,
		[K_RECYCLE] = 5,
	};
	unsigned int w[K_NKINDS];
	enum kind k;
	int ret = 0, i;

	memcpy(w, weight, sizeof(w));
	if (!vf_on(C_MEM))
		w[K_MUNMAP] = w[K_REMAP] = w[K_PROT_RO] = w[K_PROT_NONE] = w[K_PROT_RW] =
			w[K_DONTNEED] = w[K_PAGEOUT] = 0;
	if (!vf_on(C_POISON | C_POISON_ODP) || !W.have_poison)
		w[K_POISON] = 0;
	if (!vf_on(C_FORK))
		w[K_FORK] = 0;
	if (!vf_on(C_MR))
		w[K_DEREG] = w[K_REREG] = w[K_REGPROBE] = w[K_RECYCLE] = 0;
	if (!vf_on(C_QP))
		w[K_DESTROY_QP] = w[K_QP_ERR] = 0;
	if (!vf_on(C_INJECT) || !W.have_inject)
		w[K_INJECT] = 0;
	reap();
	inject_poll();
	for (i = 0; i < K_NKINDS && !w[i]; i++)
		;
	if (i == K_NKINDS)
		return;
	k = (enum kind)rng_pick(r, w, K_NKINDS);
	i = (int)rng_below(r, VF_NREG);
	switch (k) {
	case K_MUNMAP: case K_REMAP: case K_PROT_RO: case K_PROT_NONE: case K_PROT_RW:
	case K_DONTNEED: case K_PAGEOUT: case K_POISON:
		if (W.reg[i].used)
			ret = mem_op(r, k, &W.reg[i]);
		break;
	case K_FORK: ret = fork_op(r); break;
	case K_DEREG:
		if (W.mr[i].live) {
			ret = mr_deregister(i) ? -1 : 1;
			W.reg[i].mr = -1;
			memset(W.reg[i].detached, 0, W.reg[i].len / 4096);
			traffic_reevaluate(i, 1);
		}
		break;
	case K_REREG: ret = rereg_op(r, i); break;
	case K_REGPROBE: ret = regprobe_op(r); break;
	case K_DESTROY_QP: case K_QP_ERR: ret = qp_op(r, k); break;
	case K_INJECT: ret = inject_op(r); break;
	case K_RECYCLE: ret = recycle_op(r); break;
	default: break;
	}
	if (ret > 0) {
		W.st.chaos++;
		W.st.chaos_kind[k]++;
		if (W.o.verbose > 1)
			vf_log("chaos %s (region/MR %d)", kind_name[k], i);
	}
}

const char *chaos_kind_name(int k)
{
	return k < K_NKINDS ? kind_name[k] : NULL;
}

void *chaos_thread(void *arg)
{
	struct rng r;

	(void)arg;
	while (!W.stop) {
		usleep(1000 * (useconds_t)(1 + (W.chaos_n * 7919) % 40));
		pthread_mutex_lock(&W.lock);
		if (!W.stop && !W.finding) {
			/* event n of a run always draws the same numbers */
			rng_seed(&r, W.o.seed, (1ull << 40) + W.chaos_n++);
			chaos_step(&r);
		}
		pthread_mutex_unlock(&W.lock);
	}
	return NULL;
}
