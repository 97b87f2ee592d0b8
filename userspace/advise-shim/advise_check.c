/*
 * advise-check: ibv_advise_mr() from a plain verbs program, through the
 * installed libibverbs and provider (nothing of ours but what LD_PRELOAD
 * brings in): registers an ODP MR over resident memory, prefetches all of
 * it and prints what the call returned and what the MR's and the device's
 * odp_pages_prefetched counters say.
 *
 * usage: advise-check [--dev DEV] [--pages N | --size SIZE] [--advice A] [--async]
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
#include "opts.h"

#define PAGE 4096L
#define MAX_PAGES (1L << 18)

struct opts {
	const char *dev;
	long pages;
	enum ibv_advise_mr_advice advice;
	uint32_t flags;		/* IBV_ADVISE_MR_FLAG_FLUSH, or 0 for --async */
};

static void usage(FILE *f)
{
	fprintf(f,
"usage: advise-check [--dev DEV] [--pages N | --size SIZE] [--advice A] [--async]\n"
"\n"
"Calls ibv_advise_mr() the way any verbs program would, through the installed\n"
"libibverbs and provider (with LD_PRELOAD=librxe-odp-advise.so for rxe on\n"
"rdma-core 44): registers an On-Demand-Paging MR over resident memory,\n"
"prefetches all of it and prints what the call returned and what the MR's and\n"
"the device's odp_pages_prefetched counters say.\n"
"\n"
"options:\n"
"  -d, --dev NAME     RDMA device (default rxe0)\n"
"  -n, --pages N      pages of the MR, 1..%ld (default 64)\n"
"  -s, --size SIZE    the same in bytes, a multiple of 4K (e.g. 256K, 1M)\n"
"  -a, --advice A     write (PREFETCH_WRITE, default), read (PREFETCH) or\n"
"                     nofault (PREFETCH_NO_FAULT)\n"
"      --async        without IBV_ADVISE_MR_FLAG_FLUSH: the call returns before\n"
"                     the pages are mapped (mr_prefetched may then be lower)\n"
"  -h, --help         this text\n"
"\n"
"Output, key=value lines: advise_mr=0 or advise_mr=ERRNAME (N), pages=,\n"
"mr_prefetched=, dev_prefetched_delta= (-1: no such counter).\n"
"Exit 0 when the call returned 0, 1 when it returned an error, 2 on bad\n"
"options or when the set-up failed.\n", MAX_PAGES);
}

/* 0 = run, 1 = --help printed, -1 = bad options (message printed) */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "pages", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "advice", required_argument, NULL, 'a' },
		{ "async", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t size;
	int c;

	*o = (struct opts) {
		.dev = "rxe0", .pages = 64, .advice = IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
		.flags = IBV_ADVISE_MR_FLAG_FLUSH,
	};
	while ((c = getopt_long(argc, argv, "d:n:s:a:h", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o->dev = optarg; break;
		case 'n':
			if (opt_long(optarg, 1, MAX_PAGES, &o->pages))
				goto bad;
			break;
		case 's':
			if (opt_size(optarg, &size) || size % PAGE || size > MAX_PAGES * PAGE)
				goto bad;
			o->pages = (long)(size / PAGE);
			break;
		case 'a':
			if (!strcmp(optarg, "write"))
				o->advice = IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE;
			else if (!strcmp(optarg, "read"))
				o->advice = IBV_ADVISE_MR_ADVICE_PREFETCH;
			else if (!strcmp(optarg, "nofault"))
				o->advice = IBV_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
			else
				goto bad;
			break;
		case 'A': o->flags = 0; break;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return -1;
		}
	}
	if (optind == argc)
		return 0;
	fprintf(stderr, "advise-check: unexpected argument '%s' (see --help)\n", argv[optind]);
	return -1;
bad:
	fprintf(stderr, "advise-check: bad value '%s' for option -%c (see --help)\n", optarg, c);
	return -1;
}

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

/* the device counter now (fresh, not the core's cache: see counters.h) */
static long long dev_prefetched(const char *dev)
{
	return hw_counter_read(dev, 1, "odp_pages_prefetched");
}

int main(int argc, char **argv)
{
	struct opts o;
	long long d0, d1, mr_pre;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_sge sge;
	long i, pages;
	char *buf;
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : 2;
	pages = o.pages;
	ctx = open_dev(o.dev);
	if (!ctx) {
		fprintf(stderr, "advise-check: cannot open %s: %s\n", o.dev, strerror(errno));
		return 2;
	}
	buf = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED) {
		perror("advise-check: mmap");
		return 2;
	}
	for (i = 0; i < pages; i++)
		buf[i * PAGE] = 1;
	pd = ibv_alloc_pd(ctx);
	mr = pd ? ibv_reg_mr(pd, buf, pages * PAGE,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND) : NULL;
	if (!mr) {
		fprintf(stderr, "advise-check: ODP registration on %s: %s\n", o.dev, strerror(errno));
		return 2;
	}
	sge.addr = (uintptr_t)buf;
	sge.length = (uint32_t)(pages * PAGE);
	sge.lkey = mr->lkey;
	d0 = dev_prefetched(o.dev);
	rc = ibv_advise_mr(pd, o.advice, o.flags, &sge, 1);
	d1 = dev_prefetched(o.dev);
	mr_pre = mr_driver_attr(o.dev, mr->lkey, "odp_pages_prefetched");
	if (rc)
		printf("advise_mr=%s (%d)\n", strerrorname_np(rc) ? strerrorname_np(rc) : "?", rc);
	else
		printf("advise_mr=0\n");
	printf("pages=%ld\nmr_prefetched=%lld\ndev_prefetched_delta=%lld\n", pages, mr_pre,
	       d0 >= 0 && d1 >= 0 ? d1 - d0 : -1);
	ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	munmap(buf, pages * PAGE);
	return rc ? 1 : 0;
}
