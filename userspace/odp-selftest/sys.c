/* odp-selftest: probes of the system (vmstat, driver counters, restrack,
 * mincore, pagemap) and data patterns. */
#include "st.h"
#include "nldev.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

void hw_counters(struct env *e, const char *const names[], long long vals[], unsigned int n)
{
	static int said;

	/* sysfs's values may be a snapshot older than the lifespan waited out
	 * (issue 18): say so once, for whoever reads a failure's log */
	if (hw_counters_read(e->dev_name, e->dev.port, names, vals, n) != 1 && !said++)
		diag("%s: hw counters read from sysfs, RDMA netlink failed: they may be stale",
		     e->dev_name);
}

int odpc_read(struct env *e, struct odpc *c)
{
	static const char *const names[] = {
		"odp_faults", "odp_pages_faulted", "odp_invalidations", "odp_pages_invalidated",
		"odp_fault_errors", "odp_rnr_naks", "odp_fault_retries", "odp_pages_prefetched",
	};
	long *const out[] = {
		&c->faults, &c->pages_faulted, &c->invalidations, &c->pages_invalidated,
		&c->errors, &c->rnr_naks, &c->retries, &c->prefetched,
	};
	long long v[sizeof(names) / sizeof(names[0])];
	size_t i;

	hw_counters(e, names, v, sizeof(names) / sizeof(names[0]));
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		*out[i] = (long)v[i];
	CHECK(c->faults >= 0 && c->pages_faulted >= 0 && c->invalidations >= 0 &&
	      c->pages_invalidated >= 0 && c->errors >= 0 && c->rnr_naks >= 0 &&
	      c->retries >= 0 && c->prefetched >= 0,
	      "%s advertises ODP but lacks an odp_* hw counter (faults %ld, pages_faulted %ld, invalidations %ld, pages_invalidated %ld, fault_errors %ld, rnr_naks %ld, fault_retries %ld, pages_prefetched %ld): not rxe-odp's module?",
	      e->dev_name, c->faults, c->pages_faulted, c->invalidations, c->pages_invalidated,
	      c->errors, c->rnr_naks, c->retries, c->prefetched);
	return T_PASS;
}

int mrc_read(struct env *e, struct ibv_mr *mr, struct mrc *c)
{
	struct {
		const char *name;
		long long *v;
	} want[] = {
		{ "odp_mapped_pages", &c->mapped },
		{ "odp_faults", &c->faults },
		{ "odp_pages_faulted", &c->pages_faulted },
		{ "odp_invalidations", &c->invalidations },
		{ "odp_pages_invalidated", &c->pages_invalidated },
		{ "odp_fault_errors", &c->errors },
		{ "odp_pages_prefetched", &c->prefetched },
	};
	struct nldev_attr a[32];
	char err[256];
	size_t i;
	int n = nldev_mr_attrs(e->dev_name, mr->lkey, a, 32, err, sizeof(err));

	CHECK(n >= 0, "per-MR counters of lkey %#x: %s", mr->lkey, err);
	if (n > 32)
		n = 32;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		*want[i].v = nldev_attr_get(a, n, want[i].name);
		CHECK(*want[i].v >= 0, "the MR (lkey %#x) has no driver attribute %s (drv_%s in 'rdma resource show mr -dd'): %d attributes",
		      mr->lkey, want[i].name, want[i].name, n);
	}
	if (e->need_counter)
		CHECK(nldev_attr_get(a, n, e->need_counter) >= 0,
		      "the MR (lkey %#x) has no driver attribute %s (--need-counter)", mr->lkey,
		      e->need_counter);
	return T_PASS;
}

void mrc_diag(const char *what, const struct mrc *a, const struct mrc *b)
{
	diag("%s: per-MR faults +%lld, pages_faulted +%lld, invalidations +%lld, pages_invalidated +%lld, fault_errors +%lld, pages_prefetched +%lld; mapped %lld -> %lld",
	     what, b->faults - a->faults, b->pages_faulted - a->pages_faulted,
	     b->invalidations - a->invalidations, b->pages_invalidated - a->pages_invalidated,
	     b->errors - a->errors, b->prefetched - a->prefetched, a->mapped, b->mapped);
}

long long rxe_param(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/rdma_rxe/parameters/%s", name);
	return file_number(path);
}

/* Write rdma_rxe's module parameter name: 0, or -1 with errno set */
int rxe_param_set(const char *name, long long v)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/rdma_rxe/parameters/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%lld\n", v);
	return fclose(f) ? -1 : 0;
}

/* How many of the driver's children (one per 1 << odp_child_shift aligned
 * chunk, clamped to 16..30 as the driver does) [p, p + len) overlaps: an
 * invalidation of the range reaches the MR once per child.  1 for a driver
 * without children. */
long chunks_spanned(const void *p, size_t len)
{
	long long shift = rxe_param("odp_child_shift");
	uintptr_t a = (uintptr_t)p;

	if (shift < 0 || !len)
		return 1;
	shift = shift < 16 ? 16 : shift > 30 ? 30 : shift;
	return (long)(((a + len - 1) >> shift) - (a >> shift) + 1);
}

/* Number of MRs restrack knows on dev (all processes), from the summary line
 * "0: rxe0: pd 1 cq 2 qp 1 cm_id 0 mr 3 ctx 1 srq 0". */
int mr_count(const char *dev)
{
	char line[512], *p;
	int n = -1;
	FILE *f = popen("rdma resource show 2>/dev/null", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char tag[64];

		snprintf(tag, sizeof(tag), " %s: ", dev);
		if (!strstr(line, tag))
			continue;
		p = strstr(line, " mr ");
		if (p)
			n = atoi(p + 4);
	}
	pclose(f);
	return n;
}

long resident_pages(void *addr, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t n = (len + pg - 1) / pg, i;
	unsigned char *vec = malloc(n);
	long r = 0;

	if (!vec)
		return -1;
	if (mincore(addr, len, vec)) {
		free(vec);
		return -1;
	}
	for (i = 0; i < n; i++)
		r += vec[i] & 1;
	free(vec);
	return r;
}

uint64_t pfn_of(void *addr)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t ent = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);

	if (fd < 0)
		return 0;
	if (pread(fd, &ent, sizeof(ent), ((uintptr_t)addr / pg) * sizeof(ent)) != sizeof(ent))
		ent = 0;
	close(fd);
	if (!(ent & (1ULL << 63)))
		return 0;
	return ent & ((1ULL << 55) - 1);
}

long swap_total_kb(void)
{
	char key[64];
	long v, r = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld kB\n", key, &v) == 2)
		if (!strcmp(key, "SwapTotal:")) {
			r = v;
			break;
		}
	fclose(f);
	return r;
}

void *map_anon(size_t len, size_t align)
{
	size_t span = len + align;
	char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *a;

	if (p == MAP_FAILED)
		return NULL;
	a = (char *)(((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1));
	if (a > p)
		munmap(p, a - p);
	if (a + len < p + span)
		munmap(a + len, p + span - (a + len));
	return a;
}

static unsigned char pat(size_t i, unsigned seed)
{
	uint32_t x = (uint32_t)i * 2654435761u ^ (seed * 40503u + 17);

	return (unsigned char)(x >> 13 ^ x >> 5 ^ seed);
}

void fill(void *buf, size_t len, unsigned seed)
{
	unsigned char *b = buf;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = pat(i, seed);
}

long check_fill(const void *buf, size_t len, unsigned seed)
{
	const unsigned char *b = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != pat(i, seed))
			return (long)i;
	return -1;
}

long check_byte(const void *buf, size_t len, unsigned char v)
{
	const unsigned char *b = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != v)
			return (long)i;
	return -1;
}

/* 1 if addr is backed by a transparent huge page (needs root: pagemap PFNs
 * and /proc/kpageflags), 0 if not, -1 if unknown. */
int is_thp(void *addr)
{
	uint64_t pfn = pfn_of(addr), flags = 0;
	int fd;

	if (!pfn)
		return -1;
	fd = open("/proc/kpageflags", O_RDONLY);
	if (fd < 0)
		return -1;
	if (pread(fd, &flags, sizeof(flags), pfn * sizeof(flags)) != sizeof(flags)) {
		close(fd);
		return -1;
	}
	close(fd);
	return !!(flags & (1ULL << 22));	/* KPF_THP */
}

/* PFNs of n consecutive pages from addr in one pagemap read (0 = not present). */
int pfn_range(void *addr, size_t n, uint64_t *out)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/pagemap", O_RDONLY);
	ssize_t want = n * sizeof(*out);
	size_t i;

	if (fd < 0)
		return -1;
	if (pread(fd, out, want, ((uintptr_t)addr / pg) * sizeof(*out)) != want) {
		close(fd);
		return -1;
	}
	close(fd);
	for (i = 0; i < n; i++)
		out[i] = out[i] & (1ULL << 63) ? out[i] & ((1ULL << 55) - 1) : 0;
	return 0;
}
