/*
 * librxe-odp-advise.so: ibv_advise_mr() on rxe for unmodified applications
 * linked against rdma-core 44 (Debian 12), loaded with LD_PRELOAD.
 *
 * rdma-core 44's rxe provider (librxe) has no advise_mr, so its verbs
 * context keeps libibverbs' default op, which answers EOPNOTSUPP, and
 * ibv_advise_mr(), an inline function of <infiniband/verbs.h> compiled
 * into the application, never asks the kernel.  This library wraps
 * ibv_open_device() and ibv_import_device(): when the context is of an
 * rxe device (vendor id 0xffffff) and its advise_mr op is still that
 * default, it puts in a function that sends UVERBS_METHOD_ADVISE_MR
 * through the context's command fd (uv_advise_mr(), ../lib/uverbs.c), as
 * a provider with advise_mr would.  A provider that has the op keeps its own.  The
 * kernel decides the rest: our rdma_rxe prefetches, a driver without
 * advise_mr answers EOPNOTSUPP.
 *
 * An interim until the provider package (issue 13 item 2) can be built.
 * RXE_ODP_ADVISE_VERBOSE=1 prints one line per context it completes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "uverbs.h"

#define SHIM_EXPORT __attribute__((visibility("default")))
#define RXE_VENDOR_ID 0xffffff

static int shim_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags,
			  struct ibv_sge *sg_list, uint32_t num_sges)
{
	/* the op returns an errno value, as ibv_advise_mr() does */
	return uv_advise_mr(pd, (uint32_t)advice, flags, sg_list, num_sges);
}

static struct ibv_context *(*next_open)(struct ibv_device *);
static struct ibv_context *(*next_import)(int);

/*
 * Whether op is libibverbs' own: a context starts with libibverbs' dummy
 * ops (each answers EOPNOTSUPP), which the provider's ops then replace, so
 * an op of the provider's lies in the provider's library.
 */
static int op_in_libibverbs(void *op)
{
	Dl_info in_op, in_lib;

	if (!op)
		return 1;
	if (!dladdr(op, &in_op) || !dladdr(*(void **)&next_open, &in_lib))
		return 0;
	return in_op.dli_fbase == in_lib.dli_fbase;
}

static void shim_complete(struct ibv_context *ctx)
{
	struct verbs_context *vctx;
	struct ibv_device_attr attr;
	const char *verbose = getenv("RXE_ODP_ADVISE_VERBOSE");
	const char *what = NULL;

	if (!ctx)
		return;
	vctx = verbs_get_ctx(ctx);
	if (!vctx || vctx->sz < sizeof(*vctx) - offsetof(struct verbs_context, advise_mr))
		what = "a context without the advise_mr op: left alone";
	else if (ibv_query_device(ctx, &attr) || attr.vendor_id != RXE_VENDOR_ID)
		what = "not an rxe device: left alone";
	else if (!op_in_libibverbs(*(void **)&vctx->advise_mr))
		what = "the provider has its own advise_mr: left alone";
	else
		vctx->advise_mr = shim_advise_mr;
	if (verbose && *verbose == '1')
		fprintf(stderr, "librxe-odp-advise: %s: %s\n", ibv_get_device_name(ctx->device),
			what ? what : "advise_mr added");
}

/* libibverbs' own definitions (next_open, next_import), after this library
 * in the lookup order, looked up once. */
static pthread_once_t next_once = PTHREAD_ONCE_INIT;

static void next_lookup(void)
{
	*(void **)&next_open = dlsym(RTLD_NEXT, "ibv_open_device");
	*(void **)&next_import = dlsym(RTLD_NEXT, "ibv_import_device");
	if (!next_open)
		fprintf(stderr, "librxe-odp-advise: no ibv_open_device after this library\n");
}

SHIM_EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct ibv_context *ctx;

	pthread_once(&next_once, next_lookup);
	if (!next_open) {
		errno = ENOSYS;
		return NULL;
	}
	ctx = next_open(device);
	shim_complete(ctx);
	return ctx;
}

SHIM_EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	struct ibv_context *ctx;

	pthread_once(&next_once, next_lookup);
	if (!next_import) {
		errno = ENOSYS;
		return NULL;
	}
	ctx = next_import(cmd_fd);
	shim_complete(ctx);
	return ctx;
}
