// SPDX-License-Identifier: GPL-2.0
/*
 * reclaim-verify's buffers: how big each role's pool is, mapping and
 * registering a buffer (ODP or pinned), and the slots a transaction owns
 * while the NIC uses them (see traffic.h for why that keeps the check
 * honest). Calls only common.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "traffic.h"

static unsigned pool_slots(const struct rv_config *cfg, enum rv_role role)
{
	unsigned w = cfg->window;

	switch (role) {
	case ROLE_TGT:
		return (unsigned)(cfg->target / cfg->block);
	case ROLE_RCV:
	case ROLE_ACKSRC:
		return 2 * w + 6;
	case ROLE_SRC:
		return 3 * w + 6;
	case ROLE_DST:
		return 3 * w + 6;
	case ROLE_ATOM:
	default:
		return 1;
	}
}

static size_t role_size(const struct rv_config *cfg, enum rv_role role)
{
	if (role == ROLE_ATOM)
		return 4096;
	return (size_t)pool_slots(cfg, role) * cfg->block;
}

/* Buffers of 1 MiB or more are padded to whole 2 MiB chunks for THP. */
static size_t map_size(size_t size)
{
	return size >= RV_HUGE / 2 ? (size + RV_HUGE - 1) / RV_HUGE * RV_HUGE : size;
}

size_t rv_working_set(const struct rv_config *cfg, bool server, bool client)
{
	size_t per = 0;

	if (server)
		per += map_size(role_size(cfg, ROLE_TGT)) + map_size(role_size(cfg, ROLE_RCV)) +
		       map_size(role_size(cfg, ROLE_ACKSRC)) + role_size(cfg, ROLE_ATOM);
	if (client)
		per += map_size(role_size(cfg, ROLE_SRC)) + map_size(role_size(cfg, ROLE_DST));
	return per * cfg->qps;
}

static const char *const role_names[RV_NROLES] = {
	"tgt", "rcv", "acksrc", "atom", "src", "dst",
};

/*
 * --implicit: the one ODP MR of pd covering the whole address space, made by
 * the first buffer that needs it. Its access is every role's: whether an
 * access may write a page is decided per access, so the buffers the NIC only
 * reads may still go read-only (mprotect) under it.
 */
static struct ibv_mr *implicit_mr(struct rv_ctx *ctx, struct ibv_pd *pd)
{
	const int access = IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_ATOMIC;
	struct ibv_mr *mr = NULL;
	unsigned i;

	pthread_mutex_lock(&ctx->reg_lock);
	for (i = 0; i < 2 && !mr; i++)
		if (ctx->imr[i].pd == pd)
			mr = ctx->imr[i].mr;
	for (i = 0; i < 2 && !mr; i++) {
		if (ctx->imr[i].pd)
			continue;
		mr = ibv_reg_mr(pd, NULL, SIZE_MAX, access);
		if (!mr) {
			rv_fatal(ctx, "implicit ODP ibv_reg_mr(NULL, SIZE_MAX) failed: %s",
				 strerror(errno));
			break;
		}
		ctx->imr[i].pd = pd;
		ctx->imr[i].mr = mr;
		ctx->implicit_mrs++;
	}
	if (!mr && i == 2)
		rv_fatal(ctx, "implicit ODP: more than two protection domains");
	pthread_mutex_unlock(&ctx->reg_lock);
	return mr;
}

void rv_implicit_release(struct rv_ctx *ctx, struct ibv_pd *pd)
{
	unsigned i;

	if (!ctx || !pd)
		return;
	pthread_mutex_lock(&ctx->reg_lock);
	for (i = 0; i < 2; i++)
		if (ctx->imr[i].pd == pd) {
			ibv_dereg_mr(ctx->imr[i].mr);
			ctx->imr[i].pd = NULL;
			ctx->imr[i].mr = NULL;
		}
	pthread_mutex_unlock(&ctx->reg_lock);
}

struct rv_buf *rv_buf_new(struct rv_ctx *ctx, struct ibv_pd *pd, enum rv_role role,
			  unsigned q)
{
	const struct rv_config *cfg = &ctx->cfg;
	struct rv_buf *b = calloc(1, sizeof(*b));
	size_t size = role_size(cfg, role), msize = map_size(size);
	int access = 0;
	uint8_t *p;

	if (!b)
		return NULL;
	b->ctx = ctx;
	b->role = role;
	b->qp = q;
	b->slot = role == ROLE_ATOM ? 4096 : cfg->block;
	b->size = msize;
	/* Pools use the padding as extra slots; the target must match the client's S. */
	b->nslots = role == ROLE_TGT || role == ROLE_ATOM ? pool_slots(cfg, role) :
		    (unsigned)(msize / b->slot);
	snprintf(b->name, sizeof(b->name), "qp%u.%s", q, role_names[role]);
	/* Huge-page aligned, so THP collapse/split have whole 2 MiB chunks to work on. */
	p = mmap(NULL, msize + (msize >= RV_HUGE ? RV_HUGE : 0), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		rv_fatal(ctx, "mmap %zu bytes: %s", msize, strerror(errno));
		free(b);
		return NULL;
	}
	if (msize >= RV_HUGE) {
		uintptr_t a = ((uintptr_t)p + RV_HUGE - 1) & ~(uintptr_t)(RV_HUGE - 1);
		size_t head = a - (uintptr_t)p;

		if (head)
			munmap(p, head);
		if (RV_HUGE - head)
			munmap((uint8_t *)a + msize, RV_HUGE - head);
		p = (uint8_t *)a;
	}
	b->base = p;
	/* Fault every page in before registration: a pinned MR must not pin the
	 * shared zero page, and both kinds start from the same state. */
	memset(p, 0, msize);
	b->state = calloc(b->nslots, 1);
	b->evmark = calloc(b->nslots, 1);
	b->dropped = calloc(b->nslots, 1);
	b->used = calloc(b->nslots, 1);
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	pthread_rwlock_init(&b->fill, NULL);

	switch (role) {
	case ROLE_TGT:
		access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
		b->destructive_ok = true;
		break;
	case ROLE_ATOM:
		access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_READ;
		break;
	case ROLE_RCV:
	case ROLE_DST:
		access = IBV_ACCESS_LOCAL_WRITE;
		b->destructive_ok = true;
		break;
	case ROLE_ACKSRC:
	case ROLE_SRC:
		access = 0;	/* the NIC only reads these: they may go read-only */
		b->nic_reads_only = true;
		b->destructive_ok = true;
		break;
	default:
		break;
	}
	pthread_mutex_lock(&ctx->reg_lock);
	if (cfg->mr == RV_MR_PINNED)
		b->pinned = true;
	else if (cfg->mr == RV_MR_MIX)
		b->pinned = ctx->buf_seq & 1;
	ctx->buf_seq++;
	pthread_mutex_unlock(&ctx->reg_lock);
	if (!b->pinned)
		access |= IBV_ACCESS_ON_DEMAND;
	if (!b->pinned && cfg->implicit) {
		b->mr = implicit_mr(ctx, pd);
		if (!b->mr)
			return NULL;
	} else {
		b->mr = ibv_reg_mr(pd, b->base, b->size, access);
		if (!b->mr) {
			int e = errno;

			rv_fatal(ctx, "ibv_reg_mr(%s, %zu bytes, %s) failed: %s%s", b->name, b->size,
				 b->pinned ? "pinned" : "ODP", strerror(e),
				 !b->pinned && (e == EOPNOTSUPP || e == EINVAL) ?
				 " (this device/driver has no On-Demand Paging; try --pinned)" : "");
			return NULL;
		}
		b->own_mr = true;
	}
	pthread_mutex_lock(&ctx->reg_lock);
	if (b->own_mr)
		ctx->buffer_mrs++;
	if (ctx->nbufs < RV_MAXBUF)
		ctx->bufs[ctx->nbufs++] = b;
	pthread_mutex_unlock(&ctx->reg_lock);
	return b;
}

void rv_buf_free(struct rv_buf *b)
{
	if (!b)
		return;
	if (b->mr && b->own_mr)
		ibv_dereg_mr(b->mr);
	munmap(b->base, b->size);
	free(b->state);
	free(b->evmark);
	free(b->dropped);
	free(b->used);
	free(b);
}

/*
 * The cgroup limit is no event the reclaim thread fires: it acts on its own,
 * on whatever pages the kernel picks.  What shows that it reclaimed ODP memory
 * the NIC had mapped is a slot the NIC used before whose pages are swapped
 * out when the NIC is about to use it again: its translation was invalidated
 * on the way out, and this use faults it back in (and is verified).  Under
 * the limit with no other kind that empties pages (rv_cgroup_counts_slots), a
 * page of an ODP buffer is not resident only because reclaim took it.
 * mincore() tells, for anonymous memory too.
 */
static bool slot_swapped_out(struct rv_buf *b, unsigned s)
{
	unsigned char vec[64];
	const size_t chunk = sizeof(vec) * 4096;
	size_t off, len, i;

	for (off = 0; off < b->slot; off += chunk) {
		len = b->slot - off < chunk ? b->slot - off : chunk;
		if (mincore(rv_slot_ptr(b, (int)s) + off, len, vec))
			return false;
		for (i = 0; i < (len + 4095) / 4096; i++)
			if (!(vec[i] & 1))
				return true;
	}
	return false;
}

/*
 * NIC about to use slot s: count it if a destructive event hit it since, or
 * (cgroup) if the limit swapped it out since the NIC used it last.
 */
static void note_reaccess(struct rv_buf *b, unsigned s)
{
	if (b->evmark[s]) {
		atomic_fetch_add(&b->ctx->ev.reaccess[b->evmark[s] - 1], 1);
		b->evmark[s] = 0;
	}
	if (rv_cgroup_counts_slots(&b->ctx->cfg) && !b->pinned) {
		if (b->used[s] && slot_swapped_out(b, s))
			atomic_fetch_add(&b->ctx->ev.reaccess[RV_EV_CGROUP], 1);
		b->used[s] = 1;
	}
}

int rv_slot_alloc(struct rv_buf *b)
{
	unsigned i, s;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		for (i = 0; i < b->nslots; i++) {
			s = (b->cursor + i) % b->nslots;
			if (b->state[s] == SLOT_FREE) {
				b->state[s] = SLOT_BUSY;
				b->cursor = s + 1;
				note_reaccess(b, s);
				pthread_mutex_unlock(&b->lock);
				return (int)s;
			}
		}
		pthread_cond_wait(&b->cond, &b->lock);
	}
}

void rv_slot_free(struct rv_buf *b, int s)
{
	if (s < 0 || s == NOSLOT)
		return;
	pthread_mutex_lock(&b->lock);
	b->state[s] = SLOT_FREE;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
}

/* Server lends target slot s to the client (waits out a reclaim in progress). */
void rv_slot_take(struct rv_buf *b, unsigned s)
{
	pthread_mutex_lock(&b->lock);
	while (b->state[s] == SLOT_RECLAIM)
		pthread_cond_wait(&b->cond, &b->lock);
	b->state[s] = SLOT_BUSY;
	note_reaccess(b, s);
	pthread_mutex_unlock(&b->lock);
	atomic_fetch_add(&b->inflight, 1);
}

void rv_slot_return(struct rv_buf *b, unsigned s)
{
	atomic_fetch_sub(&b->inflight, 1);
	rv_slot_free(b, (int)s);
}

