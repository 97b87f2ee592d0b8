// SPDX-License-Identifier: GPL-2.0
/*
 * What every part of reclaim-verify uses (main, traffic, reclaim, cgroup):
 * the clock, the first-failure record and starting a thread.  It calls
 * nothing of theirs, so the parts depend on it and not on each other.
 */
#include <stdarg.h>
#include <stdio.h>

#include "rv.h"
#include "tool.h"

double rv_now(void)
{
	return tool_now_us() / 1e6;
}

void rv_fatal(struct rv_ctx *ctx, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", ctx->prog, msg);
	if (!atomic_exchange(&ctx->failed, 1))
		snprintf(ctx->fatal, sizeof(ctx->fatal), "%s", msg);
}

static void *thr_wrap(void *a)
{
	struct rv_thr *t = a;

	t->fn(t->arg);
	atomic_store(&t->done, true);
	return NULL;
}

int rv_thr_start(struct rv_thr *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	int rc;

	t->fn = fn;
	t->arg = arg;
	atomic_store(&t->done, false);
	rc = pthread_create(&t->th, attr, thr_wrap, t);
	/* only a thread that exists may be joined */
	atomic_store(&t->started, rc == 0);
	return rc;
}

void rv_thr_join(struct rv_thr *t)
{
	if (atomic_load(&t->started)) {
		pthread_join(t->th, NULL);
		atomic_store(&t->started, false);
	}
}
