/*
 * advise-check: ibv_advise_mr() from a plain verbs program, through the
 * installed libibverbs and provider (nothing of ours but what LD_PRELOAD
 * brings in): registers an ODP MR over resident memory, prefetches all of
 * it and prints what the call returned and what the MR's and the device's
 * odp_pages_prefetched counters say.
 *
 * usage: advise-check [-d DEV] [-n PAGES] [-a write|read|nofault] [--async]
 * Output (key=value lines): advise_mr=0 or advise_mr=ERRNAME (N),
 * pages=, mr_prefetched=, dev_prefetched_delta= (-1: no such counter).
 * Exit 0 when the call returned 0, 1 when it returned an error, 2 when the
 * setup failed.  For an async call mr_prefetched is read at once and may
 * be lower than pages.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "counters.h"

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		return NULL;
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name)) {
			ctx = ibv_open_device(list[i]);
			break;
		}
	ibv_free_device_list(list);
	return ctx;
}

/* the device counter, read after the core's 10 ms cache of hw_counters expired */
static long long dev_prefetched(const char *dev)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	return hw_counter_read(dev, 1, "odp_pages_prefetched");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "pages", required_argument, NULL, 'n' },
		{ "advice", required_argument, NULL, 'a' },
		{ "async", no_argument, NULL, 'A' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = "rxe0";
	enum ibv_advise_mr_advice advice = IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	uint32_t flags = IBV_ADVISE_MR_FLAG_FLUSH;
	long pages = 64, i;
	long long d0, d1, mr_pre;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_sge sge;
	char *buf;
	int c, rc;

	while ((c = getopt_long(argc, argv, "d:n:a:", lo, NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'n': pages = atol(optarg); break;
		case 'a':
			if (!strcmp(optarg, "write"))
				advice = IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE;
			else if (!strcmp(optarg, "read"))
				advice = IBV_ADVISE_MR_ADVICE_PREFETCH;
			else if (!strcmp(optarg, "nofault"))
				advice = IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
			else
				goto usage;
			break;
		case 'A': flags = 0; break;
		default: goto usage;
		}
	}
	if (optind != argc || pages < 1 || pages > (1L << 18))
		goto usage;
	ctx = open_dev(dev);
	if (!ctx) {
		fprintf(stderr, "advise-check: cannot open %s: %s\n", dev, strerror(errno));
		return 2;
	}
	buf = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("advise-check: mmap");
		return 2;
	}
	for (i = 0; i < pages; i++)
		buf[i * 4096] = 1;
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, pages * 4096,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND) : NULL;
	if (!mr) {
		fprintf(stderr, "advise-check: ODP registration on %s: %s\n", dev, strerror(errno));
		return 2;
	}
	sge.addr = (uintptr_t)buf;
	sge.length = (uint32_t)(pages * 4096);
	sge.lkey = mr->lkey;
	d0 = dev_prefetched(dev);
	rc = ibv_advise_mr(pd, advice, flags, &sge, 1);
	d1 = dev_prefetched(dev);
	mr_pre = mr_driver_attr(dev, mr->lkey, "odp_pages_prefetched");
	if (rc)
		printf("advise_mr=%s (%d)\n", strerrorname_np(rc) ? strerrorname_np(rc) : "?", rc);
	else
		printf("advise_mr=0\n");
	printf("pages=%ld\nmr_prefetched=%lld\ndev_prefetched_delta=%lld\n", pages, mr_pre,
	       d0 >= 0 && d1 >= 0 ? d1 - d0 : -1);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	munmap(buf, pages * 4096);
	return rc ? 1 : 0;
usage:
	fprintf(stderr, "usage: advise-check [-d DEV] [-n PAGES] [-a write|read|nofault] [--async]\n");
	return 2;
}
