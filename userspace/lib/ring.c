/* ring: posting straight into a librxe QP's send queue (see ring.h). */
#include "ring.h"
#include "uverbs.h"

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct umap {
	uintptr_t start, end;
	uint64_t off;
};

/* The uverbs mappings of this process (at most max). */
static int uverbs_maps(struct umap *m, int max)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	if (!f)
		return -1;
	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long s, e, off;
		char path[256] = "";

		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &s, &e, &off, path) < 3)
			continue;
		if (!strstr(path, "/infiniband/uverbs"))
			continue;
		m[n].start = s;
		m[n].end = e;
		m[n].off = off;
		n++;
	}
	fclose(f);
	return n;
}

int ring_find_sq(struct ibv_qp *qp, unsigned int max_send_sge, struct sq_ring *r,
		 char *err, size_t errlen)
{
	/* librxe 44: struct rxe_qp { struct verbs_qp vqp; struct mminfo
	 * rq_mmap_info; struct rxe_wq rq; struct mminfo sq_mmap_info; struct
	 * rxe_wq sq; ... }, each rxe_wq starting with the ring's address.
	 * Look in the few words after the verbs_qp rather than trust one
	 * offset, and take the last match (the send queue comes second).
	 * The words looked at stay inside librxe's allocation (qp is its
	 * start): the QP object can end before from + 128 (464 bytes in
	 * librxe 44), and reading past it is a heap overflow under ASan. */
	const size_t from = sizeof(struct ibv_qp_ex), size = malloc_usable_size(qp);
	const size_t to = from + 128 < size ? from + 128 : size;
	const unsigned char *base = (const unsigned char *)qp;
	struct umap m[256];
	int n = uverbs_maps(m, 256), i;
	uintptr_t found = 0;
	size_t o;

	memset(r, 0, sizeof(*r));
	if (n <= 0) {
		snprintf(err, errlen, "no uverbs mapping in /proc/self/maps");
		return -1;
	}
	for (o = from + 16; o + 8 <= to; o += 8) {
		uint64_t addr, moff;
		uint32_t msize;

		memcpy(&addr, base + o, 8);
		memcpy(&moff, base + o - 16, 8);
		memcpy(&msize, base + o - 8, 4);
		for (i = 0; i < n; i++)
			if (addr == m[i].start && moff == m[i].off && msize &&
			    msize <= m[i].end - m[i].start)
				found = addr;
	}
	if (!found) {
		snprintf(err, errlen, "librxe QP object: no ring address matching a uverbs mapping");
		return -1;
	}
	r->q = (struct rxe_queue_buf *)found;
	r->slots = r->q->index_mask + 1;
	r->elem = (size_t)1 << r->q->log2_elem_size;
	if (r->q->log2_elem_size > 16 || (r->slots & (r->slots - 1)) ||
	    r->elem < sizeof(struct rxe_send_wqe) + max_send_sge * sizeof(struct rxe_sge)) {
		snprintf(err, errlen, "ring at %p: %u slots of %zu bytes is not a send queue",
			 (void *)r->q, r->slots, r->elem);
		r->q = NULL;
		return -1;
	}
	r->qp = qp;
	return 0;
}

static uint32_t load_idx(const uint32_t *p)
{
	return atomic_load_explicit((const _Atomic uint32_t *)p, memory_order_acquire);
}

unsigned int ring_space(const struct sq_ring *r)
{
	uint32_t prod = load_idx(&r->q->producer_index) & r->q->index_mask;
	uint32_t cons = load_idx(&r->q->consumer_index) & r->q->index_mask;

	/* one slot stays empty: prod == cons means empty */
	return (cons - prod - 1) & r->q->index_mask;
}

struct rxe_send_wqe *ring_next(struct sq_ring *r)
{
	uint32_t prod = load_idx(&r->q->producer_index) & r->q->index_mask;
	struct rxe_send_wqe *w;

	if (!ring_space(r))
		return NULL;
	w = (struct rxe_send_wqe *)(r->q->data + ((size_t)prod << r->q->log2_elem_size));
	memset(w, 0, r->elem);
	return w;
}

int ring_doorbell(const struct sq_ring *r)
{
	return uv_post_send_doorbell(r->qp);
}

int ring_post(struct sq_ring *r)
{
	uint32_t prod = load_idx(&r->q->producer_index);

	atomic_store_explicit((_Atomic uint32_t *)&r->q->producer_index,
			      (prod + 1) & r->q->index_mask, memory_order_release);
	return ring_doorbell(r);
}
