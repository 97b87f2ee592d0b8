// SPDX-License-Identifier: GPL-2.0
/*
 * reclaim-verify's 'cgroup' reclaim kind: the process runs in a cgroup v2
 * of its own whose memory.max is below the working set, so the kernel
 * reclaims the buffers throughout.  rv_cgroup_enter() makes and joins it,
 * rv_cgroup_leave() goes back and removes it; a failed enter leaves no
 * cgroup behind.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rv.h"
#include "sysfile.h"

static const char *cg_root(const struct rv_ctx *ctx)
{
	return ctx->cg_root[0] ? ctx->cg_root : "/sys/fs/cgroup";
}

int rv_cgroup_enter(struct rv_ctx *ctx)
{
	const char *root = cg_root(ctx);
	char buf[200], path[300];
	FILE *f;
	size_t lim;
	int rc;

	if (!ctx->cfg.kind[RV_EV_CGROUP])
		return 0;
	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f) || !strstr(buf, "memory")) {
		if (f)
			fclose(f);
		rv_fatal(ctx, "cgroup: no cgroup v2 memory controller at %s (drop 'cgroup' from --reclaim)",
			 root);
		return -1;
	}
	fclose(f);
	if (geteuid() != 0) {
		rv_fatal(ctx, "cgroup: creating a cgroup needs root (drop 'cgroup' from --reclaim)");
		return -1;
	}
	lim = ctx->cfg.cgroup_max ? ctx->cfg.cgroup_max : ctx->working_set / 2;
	lim &= ~(size_t)4095;
	if (ctx->cfg.mr == RV_MR_PINNED && lim < ctx->working_set) {
		/* measured: the memcg OOM killer kills the process while it pins */
		rv_fatal(ctx, "cgroup: pinned MRs keep all %zu MiB resident and cannot be reclaimed; under memory.max %zu MiB the OOM killer would kill this process (that is what ODP avoids): drop 'cgroup' from --reclaim or raise --cgroup-max",
			 ctx->working_set >> 20, lim >> 20);
		return -1;
	}
	f = fopen("/proc/self/cgroup", "r");
	snprintf(ctx->cg_orig, sizeof(ctx->cg_orig), "%s", root);
	if (f) {
		while (fgets(buf, sizeof(buf), f))
			if (!strncmp(buf, "0::", 3)) {
				buf[strcspn(buf, "\n")] = 0;
				snprintf(ctx->cg_orig, sizeof(ctx->cg_orig), "%s%s", root,
					 strcmp(buf + 3, "/") ? buf + 3 : "");
			}
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	sysfile_write(path, "+memory");
	snprintf(ctx->cg_path, sizeof(ctx->cg_path), "%s/reclaim-verify.%d", root, (int)getpid());
	if (mkdir(ctx->cg_path, 0755) && errno != EEXIST) {
		rv_fatal(ctx, "cgroup: mkdir %s: %s", ctx->cg_path, strerror(errno));
		return -1;
	}
	ctx->cg_limit = lim;
	snprintf(path, sizeof(path), "%s/memory.max", ctx->cg_path);
	snprintf(buf, sizeof(buf), "%zu", lim);
	rc = sysfile_write(path, buf);
	if (rc) {
		rv_fatal(ctx, "cgroup: writing %s: %s", path, strerror(-rc));
		goto fail;
	}
	snprintf(path, sizeof(path), "%s/memory.swap.max", ctx->cg_path);
	sysfile_write(path, "max");
	rc = cgroup_join(ctx->cg_path);
	if (rc) {
		rv_fatal(ctx, "cgroup: moving into %s: %s", ctx->cg_path, strerror(-rc));
		goto fail;
	}
	ctx->cg_active = true;
	return 0;
fail:
	/* not joined: the cgroup is empty and goes */
	rmdir(ctx->cg_path);
	ctx->cg_limit = 0;
	return -1;
}

void rv_cgroup_read(struct rv_ctx *ctx, struct rv_snap *s)
{
	char path[300], key[64];
	unsigned long long v;
	FILE *f;

	if (!ctx->cg_active)
		return;
	snprintf(path, sizeof(path), "%s/memory.events", ctx->cg_path);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fscanf(f, "%63s %llu", key, &v) == 2) {
		if (!strcmp(key, "max"))
			s->cg_max_events = v;
		else if (!strcmp(key, "oom"))
			s->cg_oom = v;
		else if (!strcmp(key, "oom_kill"))
			s->cg_oom_kill = v;
	}
	fclose(f);
}

void rv_cgroup_leave(struct rv_ctx *ctx)
{
	if (!ctx->cg_active)
		return;
	cgroup_join(ctx->cg_orig);
	rmdir(ctx->cg_path);
	ctx->cg_active = false;
}
