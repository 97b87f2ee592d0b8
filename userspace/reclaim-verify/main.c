// SPDX-License-Identifier: GPL-2.0
/*
 * reclaim-verify: RDMA traffic over RC QPs while the kernel reclaims the
 * buffers' memory, with every byte verified.  See --help.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rv.h"
#include "counters.h"
#include "nldev.h"

static const char *const vm_keys[RV_NVM] = {
	"pswpin", "pswpout", "pgmigrate_success", "thp_collapse_alloc", "thp_split_page",
	"thp_split_pmd", "nr_foll_pin_acquired", "nr_foll_pin_released", "pgmajfault",
	"compact_success", "pgfault", "thp_fault_alloc", "swpin_zero", "swpout_zero",
};
/*
 * Since 6.12 a zero-filled anonymous page never reaches the swap device: swap
 * keeps a bit for it (the zeromap) and counts it in swpout_zero and, when it
 * is faulted back, swpin_zero, not in pswpout/pswpin.  Slots the traffic has
 * not written yet are such pages.
 */
enum { VM_PSWPIN, VM_PSWPOUT, VM_MIGRATE, VM_COLLAPSE, VM_SPLIT, VM_SPLITPMD, VM_PIN,
       VM_UNPIN, VM_MAJFLT, VM_COMPACT, VM_PGFAULT, VM_THPFAULT, VM_SWPIN0, VM_SWPOUT0 };

static const char *const where_names[RV_NWHERE] = {
	"server: written blocks", "server: received messages", "client: read-backs",
	"client: received acks",
};
static const char *const wk_names[RV_NWK] = {
	"?", "RDMA_WRITE", "RDMA_READ", "ATOMIC", "SEND", "RECV", "final READ", "FIN SEND",
};

/* The device's hw counters from sysfs, the RDMA core's snapshot (up to its
 * "lifespan" old, and listing that pseudo-counter too): only if netlink
 * cannot give them. */
static void hw_snapshot_sysfs(const struct rv_ctx *ctx, struct rv_snap *s)
{
	unsigned long long v;
	char path[256];
	struct dirent *de;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters", ctx->dev);
	d = opendir(path);
	while (d && (de = readdir(d)) && s->nhw < RV_NHW) {
		char p2[600];

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(s->hwname[0]))
			continue;
		snprintf(p2, sizeof(p2), "%s/%s", path, de->d_name);
		f = fopen(p2, "r");
		if (!f)
			continue;
		if (fscanf(f, "%llu", &v) == 1) {
			strcpy(s->hwname[s->nhw], de->d_name);
			s->hw[s->nhw++] = v;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
}

static void rv_snapshot(struct rv_ctx *ctx, struct rv_snap *s)
{
	struct nldev_attr hw[RV_NHW];
	long long vm[RV_NVM];
	unsigned i;
	int n;

	s->t = rv_now();
	/* a counter this kernel lacks (thp_* without THP) reads as 0 */
	vmstat_read(vm_keys, vm, RV_NVM);
	for (i = 0; i < RV_NVM; i++)
		s->vm[i] = vm[i] < 0 ? 0 : (unsigned long long)vm[i];
	s->nhw = 0;
	/* all of the port's counters in one request, fresh from the driver */
	n = ctx->dev[0] ? nldev_hw_counters(ctx->dev, 1, hw, RV_NHW, NULL, 0) : -1;
	if (n > RV_NHW)
		n = RV_NHW;
	for (i = 0; n > 0 && i < (unsigned)n; i++) {
		_Static_assert(sizeof(s->hwname[i]) == sizeof(hw[i].name), "counter name sizes");
		memcpy(s->hwname[i], hw[i].name, sizeof(s->hwname[i]));
		s->hw[i] = hw[i].value;
	}
	if (n >= 0)
		s->nhw = (unsigned)n;
	else if (ctx->dev[0])
		hw_snapshot_sysfs(ctx, s);
	rv_cgroup_read(ctx, s);
}

static unsigned long long hw_delta(const struct rv_ctx *ctx, unsigned i)
{
	unsigned j;

	for (j = 0; j < ctx->s0.nhw; j++)
		if (!strcmp(ctx->s0.hwname[j], ctx->s1.hwname[i]))
			return ctx->s1.hw[i] - ctx->s0.hw[j];
	return ctx->s1.hw[i];
}

/* Counters that are about ODP: faults, invalidations, prefetch. */
static bool hw_is_odp(const char *name)
{
	return strstr(name, "odp") || strstr(name, "fault") || strstr(name, "inval") ||
	       strstr(name, "prefetch") || strstr(name, "page");
}

#define LD(x) ((unsigned long long)atomic_load(&(x)))

struct totals {
	unsigned long long verified, ok, stale, corrupt, errs, flush;
	unsigned long long cls[PAT_NCLASS];
};

static void totals(const struct rv_ctx *ctx, struct totals *t)
{
	unsigned w, c, k;

	memset(t, 0, sizeof(*t));
	for (w = 0; w < RV_NWHERE; w++) {
		t->verified += LD(ctx->st.verified[w]);
		for (c = 0; c < PAT_NCLASS; c++)
			t->cls[c] += LD(ctx->st.cls[w][c]);
	}
	t->ok = t->cls[PAT_OK];
	t->stale = t->cls[PAT_ZERO] + t->cls[PAT_OLD];
	t->corrupt = t->cls[PAT_CHILD] + t->cls[PAT_MISPLACED] + t->cls[PAT_GARBAGE];
	for (k = 0; k < RV_NWK; k++)
		for (c = 0; c < 32; c++) {
			if (c == IBV_WC_WR_FLUSH_ERR)
				t->flush += LD(ctx->st.err[k][c]);
			else
				t->errs += LD(ctx->st.err[k][c]);
		}
}

static const char *mr_name(enum rv_mrkind m)
{
	return m == RV_MR_ODP ? "ODP" : m == RV_MR_PINNED ? "pinned" : "mixed ODP/pinned";
}

static bool passed(const struct rv_ctx *ctx, const struct totals *t)
{
	if (atomic_load(&ctx->failed) || LD(ctx->st.unexplained) || t->errs || t->flush ||
	    LD(ctx->st.atomics_bad) || LD(ctx->st.final_bad))
		return false;
	if (ctx->cfg.mode != RV_SERVER && !LD(ctx->st.txns))
		return false;
	return true;
}

/*
 * --min-events: is some selected reclaim kind still short of min_events
 * events that hit an MR with transfers in flight?  A loaded host makes every
 * event slow (a fork with its COW breaks took 27 s of a 20 s run), and a run
 * that stops on the clock then leaves the last kinds untried.  The cgroup
 * limit acts on its own, throughout, and fires no event: it counts the slots
 * the NIC had used that it found swapped out when it was to use them again
 * (buffers.c; only without the kinds that empty slots themselves): the
 * traffic must come round to a slot the limit took, which on a slow host
 * takes longer than a short --duration.
 */
static bool kinds_short(struct rv_ctx *ctx)
{
	unsigned int k;

	if (!ctx->cfg.min_events)
		return false;
	for (k = 0; k < RV_NKINDS; k++) {
		if (!ctx->cfg.kind[k])
			continue;
		if (k != RV_EV_CGROUP ? LD(ctx->ev.inflight[k]) < ctx->cfg.min_events :
		    rv_cgroup_counts_slots(&ctx->cfg) &&
		    LD(ctx->ev.reaccess[k]) < ctx->cfg.min_events)
			return true;
	}
	return false;
}

static void progress(struct rv_ctx *ctx, double t0)
{
	struct rv_snap s;
	struct totals t;
	unsigned long long ev = 0, evf = 0;
	unsigned k;
	double dt = rv_now() - t0;

	memset(&s, 0, sizeof(s));
	rv_snapshot(ctx, &s);
	totals(ctx, &t);
	for (k = 0; k < RV_NKINDS; k++) {
		ev += LD(ctx->ev.n[k]);
		evf += LD(ctx->ev.inflight[k]);
	}
	fprintf(stderr,
		"[%5.1fs] %7.1f MiB %6.2f Gb/s | txns %llu | blocks %llu ok %llu stale %llu corrupt %llu | events %llu (%llu in flight) | swap out %llu in %llu\n",
		dt, LD(ctx->st.bytes) / 1048576.0, dt > 0 ? LD(ctx->st.bytes) * 8 / dt / 1e9 : 0,
		LD(ctx->st.txns), t.verified, t.ok, t.stale, t.corrupt, ev, evf,
		s.vm[VM_PSWPOUT] + s.vm[VM_SWPOUT0] - ctx->s0.vm[VM_PSWPOUT] - ctx->s0.vm[VM_SWPOUT0],
		s.vm[VM_PSWPIN] + s.vm[VM_SWPIN0] - ctx->s0.vm[VM_PSWPIN] - ctx->s0.vm[VM_SWPIN0]);
}

static void report_text(struct rv_ctx *ctx, double secs)
{
	const struct rv_config *c = &ctx->cfg;
	struct totals t;
	unsigned k, w, i, st;
	unsigned long long dvm[RV_NVM];
	bool any = false, pass;

	totals(ctx, &t);
	pass = passed(ctx, &t);
	for (i = 0; i < RV_NVM; i++)
		dvm[i] = ctx->s1.vm[i] - ctx->s0.vm[i];
	printf("reclaim-verify: %s on %s, %u QPs x window %u, block %zu KiB, %s MRs, %.1f s\n",
	       c->mode == RV_LOOPBACK ? "loopback" : c->mode == RV_SERVER ? "server" : "client",
	       ctx->dev[0] ? ctx->dev : "?", c->qps, c->window, c->block >> 10, mr_name(c->mr), secs);
	if (c->implicit)
		printf("           --implicit: the ODP buffers' keys from %u implicit MR(s) (one per side); %u buffers with an MR of their own\n",
		       ctx->implicit_mrs, ctx->buffer_mrs);
	if (c->min_events)
		printf("           --min-events %u: %s after %.1f s (--duration %.0f, --max-duration %.0f)\n",
		       c->min_events, kinds_short(ctx) ? "some kinds still short" : "every kind reached it",
		       secs, c->duration, c->max_duration);
	printf("traffic  : %.1f MiB moved, %.3f Gb/s, %llu transactions; WRITE %llu READ %llu SEND %llu RECV %llu ATOMIC %llu (FETCH_ADD %llu CMP_SWAP %llu)\n",
	       LD(ctx->st.bytes) / 1048576.0, secs > 0 ? LD(ctx->st.bytes) * 8 / secs / 1e9 : 0,
	       LD(ctx->st.txns), LD(ctx->st.ops[WK_WRITE]), LD(ctx->st.ops[WK_READ]),
	       LD(ctx->st.ops[WK_SEND]), LD(ctx->st.ops[WK_RECV]), LD(ctx->st.ops[WK_ATOMIC]),
	       LD(ctx->st.fadd), LD(ctx->st.cas));
	printf("verified : %llu blocks (%.1f MiB) checked byte by byte: %llu ok, %llu stale, %llu corrupt (%llu bad bytes)\n",
	       t.verified, t.verified * (double)c->block / 1048576.0, t.ok, t.stale, t.corrupt,
	       LD(ctx->st.bad_bytes));
	for (w = 0; w < RV_NWHERE; w++) {
		unsigned long long v = LD(ctx->st.verified[w]);

		if (!v)
			continue;
		printf("           %-26s %8llu", where_names[w], v);
		for (k = 1; k < PAT_NCLASS; k++)
			if (LD(ctx->st.cls[w][k]))
				printf("  %s %llu", pat_class_name(k), LD(ctx->st.cls[w][k]));
		printf("\n");
	}
	printf("atomics  : %llu results as computed, %llu wrong, %llu unreadable (landed in a stale pinned page); final counters %llu right, %llu wrong, %llu unreadable\n",
	       LD(ctx->st.atomics_ok), LD(ctx->st.atomics_bad), LD(ctx->st.atomics_stale),
	       LD(ctx->st.final_ok), LD(ctx->st.final_bad), LD(ctx->st.final_stale));
	printf("errors   :");
	for (k = 0; k < RV_NWK; k++)
		for (st = 0; st < 32; st++)
			if (LD(ctx->st.err[k][st])) {
				printf(" %s %s x%llu;", wk_names[k],
				       ibv_wc_status_str((enum ibv_wc_status)st), LD(ctx->st.err[k][st]));
				any = true;
			}
	printf("%s\n", any ? "" : " no error completions");
	printf("reclaim  : %-9s %8s %10s %10s %7s %8s %7s %9s\n", "kind", "events", "in-flight",
	       "overlapped", "failed", "time", "slots", "re-used");
	for (k = 0; k < RV_NKINDS; k++) {
		if (!c->kind[k])
			continue;
		if (k == RV_EV_CGROUP) {
			char nslots[96] = "slots back from swap not counted (pageout, dontneed or remap empty them too)";

			if (rv_cgroup_counts_slots(c))
				snprintf(nslots, sizeof(nslots), "%llu slots the NIC had used came back from swap",
					 LD(ctx->ev.reaccess[k]));
			if (ctx->cg_active || ctx->cg_limit)
				printf("           %-9s %8llu  memory.max %zu MiB %s working set %zu MiB; 'max' events during traffic, oom kills %llu; %s\n",
				       "cgroup", ctx->s1.cg_max_events - ctx->s0.cg_max_events,
				       ctx->cg_limit >> 20,
				       ctx->cg_limit < ctx->working_set ? "<" : ">=",
				       ctx->working_set >> 20,
				       ctx->s1.cg_oom_kill, nslots);
			continue;
		}
		printf("           %-9s %8llu %10llu %10llu %7llu %7.1fs", rv_kind_names[k], LD(ctx->ev.n[k]),
		       LD(ctx->ev.inflight[k]), LD(ctx->ev.overlap[k]), LD(ctx->ev.fail[k]),
		       LD(ctx->ev.us[k]) / 1e6);
		if (k == RV_EV_DONTNEED || k == RV_EV_REMAP)
			printf(" %7llu %9llu", LD(ctx->ev.slots[k]), LD(ctx->ev.reaccess[k]));
		else if (k == RV_EV_THP)
			printf("  collapse %llu ok / %llu refused / %llu not tried (swapped out), split %llu ok / %llu refused%s",
			       LD(ctx->ev.collapse_ok), LD(ctx->ev.collapse_fail),
			       LD(ctx->ev.collapse_swapped), LD(ctx->ev.split_ok),
			       LD(ctx->ev.split_fail),
			       LD(ctx->ev.split_nodebugfs) ? " (no debugfs: split = MADV_NOHUGEPAGE only)" : "");
		else if (k == RV_EV_FORK)
			printf("  child wrote %llu pages", LD(ctx->ev.fork_pages));
		else if (k == RV_EV_COMPACT)
			printf("  compact_memory x%llu; move_pages: %llu pages migrated, %llu refused%s",
			       LD(ctx->ev.compactions), LD(ctx->ev.migrated), LD(ctx->ev.migrate_refused),
			       ctx->numa_nodes > 1 ? "" : " (one NUMA node: no move_pages)");
		printf("\n");
	}
	printf("           (in-flight: transfers were in flight on the MR hit; overlapped: transfers completed during the event;\n"
	       "            re-used: dropped/remapped slots the NIC accessed again afterwards)\n");
	printf("memory   : swap out %llu pages (+%llu zero-filled), swap in %llu (+%llu zero-filled), major faults %llu, migrated %llu, THP collapsed %llu split %llu, pages pinned %llu unpinned %llu%s\n",
	       dvm[VM_PSWPOUT], dvm[VM_SWPOUT0], dvm[VM_PSWPIN], dvm[VM_SWPIN0], dvm[VM_MAJFLT],
	       dvm[VM_MIGRATE], dvm[VM_COLLAPSE],
	       dvm[VM_SPLIT], dvm[VM_PIN], dvm[VM_UNPIN], ctx->have_swap ? "" : " (no swap configured)");
	printf("driver   :");
	any = false;
	for (i = 0; i < ctx->s1.nhw; i++)
		if (hw_is_odp(ctx->s1.hwname[i])) {
			printf(" %s +%llu", ctx->s1.hwname[i], hw_delta(ctx, i));
			any = true;
		}
	printf("%s\n", any ? "" : " ODP fault/invalidation counters n/a (the driver exposes none)");
	if (ctx->fatal[0])
		printf("failure  : %s\n", ctx->fatal);
	if (c->mr == RV_MR_ODP)
		printf("RESULT   : %s  ODP: %llu stale, %llu corrupt of %llu blocks\n",
		       pass ? "PASS" : "FAIL", t.stale, t.corrupt, t.verified);
	else
		printf("RESULT   : %s  %s: %llu stale blocks and %llu stale atomic results (the NIC used pages the process no longer maps), %llu corrupt, %llu unexplained\n",
		       pass ? "PASS" : "FAIL", mr_name(c->mr), t.stale,
		       LD(ctx->st.atomics_stale) + LD(ctx->st.final_stale), t.corrupt,
		       LD(ctx->st.unexplained));
}

static void report_json(struct rv_ctx *ctx, double secs, FILE *f)
{
	const struct rv_config *c = &ctx->cfg;
	struct totals t;
	unsigned k, w, i, st;
	bool first;

	totals(ctx, &t);
	fprintf(f, "{\"tool\":\"reclaim-verify\",\"mode\":\"%s\",\"device\":\"%s\",\"mr\":\"%s\",",
	       c->mode == RV_LOOPBACK ? "loopback" : c->mode == RV_SERVER ? "server" : "client",
	       ctx->dev, c->mr == RV_MR_ODP ? "odp" : c->mr == RV_MR_PINNED ? "pinned" : "mix");
	fprintf(f, "\"implicit\":%s,\"implicit_mrs\":%u,\"buffer_mrs\":%u,",
		c->implicit ? "true" : "false", ctx->implicit_mrs, ctx->buffer_mrs);
	fprintf(f, "\"qps\":%u,\"window\":%u,\"block\":%zu,\"seconds\":%.3f,", c->qps, c->window, c->block, secs);
	fprintf(f, "\"pass\":%s,\"failure\":\"%s\",", passed(ctx, &t) ? "true" : "false", ctx->fatal);
	fprintf(f, "\"bytes\":%llu,\"gbps\":%.4f,\"transactions\":%llu,", LD(ctx->st.bytes),
	       secs > 0 ? LD(ctx->st.bytes) * 8 / secs / 1e9 : 0, LD(ctx->st.txns));
	fprintf(f, "\"ops\":{\"write\":%llu,\"read\":%llu,\"send\":%llu,\"recv\":%llu,\"atomic\":%llu,\"fetch_add\":%llu,\"cmp_swap\":%llu},",
	       LD(ctx->st.ops[WK_WRITE]), LD(ctx->st.ops[WK_READ]), LD(ctx->st.ops[WK_SEND]),
	       LD(ctx->st.ops[WK_RECV]), LD(ctx->st.ops[WK_ATOMIC]), LD(ctx->st.fadd), LD(ctx->st.cas));
	fprintf(f, "\"blocks_verified\":%llu,\"blocks_ok\":%llu,\"stale_blocks\":%llu,\"corrupt_blocks\":%llu,\"bad_bytes\":%llu,\"stale_explained\":%llu,\"unexplained\":%llu,",
	       t.verified, t.ok, t.stale, t.corrupt, LD(ctx->st.bad_bytes),
	       LD(ctx->st.stale_explained), LD(ctx->st.unexplained));
	fprintf(f, "\"classes\":{");
	for (k = 0; k < PAT_NCLASS; k++)
		fprintf(f, "%s\"%s\":%llu", k ? "," : "", pat_class_name(k), t.cls[k]);
	fprintf(f, "},\"verified_at\":{");
	for (w = 0; w < RV_NWHERE; w++)
		fprintf(f, "%s\"%s\":%llu", w ? "," : "", where_names[w], LD(ctx->st.verified[w]));
	fprintf(f, "},\"atomics_ok\":%llu,\"atomics_bad\":%llu,\"atomics_stale\":%llu,\"final_counters_ok\":%llu,\"final_counters_bad\":%llu,\"final_counters_stale\":%llu,",
	       LD(ctx->st.atomics_ok), LD(ctx->st.atomics_bad), LD(ctx->st.atomics_stale),
	       LD(ctx->st.final_ok), LD(ctx->st.final_bad), LD(ctx->st.final_stale));
	fprintf(f, "\"error_completions\":{");
	first = true;
	for (k = 0; k < RV_NWK; k++)
		for (st = 0; st < 32; st++)
			if (LD(ctx->st.err[k][st])) {
				fprintf(f, "%s\"%s %s\":%llu", first ? "" : ",", wk_names[k],
				       ibv_wc_status_str((enum ibv_wc_status)st), LD(ctx->st.err[k][st]));
				first = false;
			}
	fprintf(f, "},\"events\":{");
	first = true;
	for (k = 0; k < RV_NKINDS; k++) {
		if (!c->kind[k])
			continue;
		if (k == RV_EV_CGROUP)
			fprintf(f, "%s\"cgroup\":{\"events\":%llu,\"in_flight\":%llu,\"memory_max\":%zu,\"working_set\":%zu,\"oom_kill\":%llu,\"reaccessed\":%llu}",
			       first ? "" : ",", ctx->s1.cg_max_events - ctx->s0.cg_max_events,
			       ctx->s1.cg_max_events - ctx->s0.cg_max_events, ctx->cg_limit,
			       ctx->working_set, ctx->s1.cg_oom_kill, LD(ctx->ev.reaccess[k]));
		else
			fprintf(f, "%s\"%s\":{\"events\":%llu,\"in_flight\":%llu,\"overlapped\":%llu,\"failed\":%llu,\"slots\":%llu,\"reaccessed\":%llu,\"ms\":%.1f}",
			       first ? "" : ",", rv_kind_names[k], LD(ctx->ev.n[k]), LD(ctx->ev.inflight[k]),
			       LD(ctx->ev.overlap[k]), LD(ctx->ev.fail[k]), LD(ctx->ev.slots[k]),
			       LD(ctx->ev.reaccess[k]), LD(ctx->ev.us[k]) / 1000.0);
		first = false;
	}
	fprintf(f, "},\"thp\":{\"collapse_ok\":%llu,\"collapse_refused\":%llu,\"collapse_swapped\":%llu,\"split_ok\":%llu,\"split_refused\":%llu,\"split_no_debugfs\":%llu},\"fork_child_pages\":%llu,\"compactions\":%llu,\"migrated_pages\":%llu,\"migrate_refused\":%llu,\"numa_nodes\":%u,",
	       LD(ctx->ev.collapse_ok), LD(ctx->ev.collapse_fail), LD(ctx->ev.collapse_swapped),
	       LD(ctx->ev.split_ok), LD(ctx->ev.split_fail), LD(ctx->ev.split_nodebugfs),
	       LD(ctx->ev.fork_pages),
	       LD(ctx->ev.compactions), LD(ctx->ev.migrated), LD(ctx->ev.migrate_refused),
	       ctx->numa_nodes);
	fprintf(f, "\"vmstat\":{");
	for (i = 0; i < RV_NVM; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", vm_keys[i], ctx->s1.vm[i] - ctx->s0.vm[i]);
	fprintf(f, "},\"swap\":%s,\"hw_counters\":{", ctx->have_swap ? "true" : "false");
	first = true;
	for (i = 0; i < ctx->s1.nhw; i++) {
		fprintf(f, "%s\"%s\":%llu", first ? "" : ",", ctx->s1.hwname[i], hw_delta(ctx, i));
		first = false;
	}
	fprintf(f, "}}\n");
}

/* First IPv4-mapped GID (not 127/8) of any RDMA device: an address rdma_cm can use. */
static int find_rdma_addr(char *out, size_t len)
{
	char path[512], line[128];
	struct dirent *dd, *gd;
	DIR *d = opendir("/sys/class/infiniband"), *g;
	int found = -1;

	while (d && found && (dd = readdir(d))) {
		if (dd->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/gids", dd->d_name);
		g = opendir(path);
		while (g && found && (gd = readdir(g))) {
			char p2[800];
			unsigned a, b, c, e;
			FILE *f;

			if (gd->d_name[0] == '.')
				continue;
			snprintf(p2, sizeof(p2), "%s/%s", path, gd->d_name);
			f = fopen(p2, "r");
			if (!f)
				continue;
			if (fgets(line, sizeof(line), f) &&
			    !strncmp(line, "0000:0000:0000:0000:0000:ffff:", 30) &&
			    sscanf(line + 30, "%2x%2x:%2x%2x", &a, &b, &c, &e) == 4 && a != 127) {
				snprintf(out, len, "%u.%u.%u.%u", a, b, c, e);
				found = 0;
			}
			fclose(f);
		}
		if (g)
			closedir(g);
	}
	if (d)
		closedir(d);
	return found;
}

static bool have_swap(void)
{
	char line[256];
	FILE *f = fopen("/proc/swaps", "r");
	int n = 0;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n > 1;
}

int main(int argc, char **argv)
{
	struct rv_ctx *ctx = calloc(1, sizeof(*ctx));
	struct rv_server *srv = NULL;
	struct rv_client *cli = NULL;
	struct rv_thr ts = { 0 }, tc = { 0 }, tr = { 0 };
	char err[256];
	double t0, tlast, next_prog, tstop = 0, secs;
	unsigned long long lastc = 0;
	int rc, e;
	bool stalled = false;

	if (!ctx)
		return 2;
	ctx->prog = "reclaim-verify";
	pthread_mutex_init(&ctx->reg_lock, NULL);
	rv_config_defaults(&ctx->cfg);
	rc = rv_parse_args(&ctx->cfg, argc, argv, err, sizeof(err));
	if (rc == 1) {
		rv_usage(stdout, "reclaim-verify");
		return 0;
	}
	if (rc < 0) {
		fprintf(stderr, "reclaim-verify: %s\n", err);
		return 2;
	}
	if (ctx->cfg.mode == RV_LOOPBACK && !ctx->cfg.addr[0] &&
	    find_rdma_addr(ctx->cfg.addr, sizeof(ctx->cfg.addr))) {
		fprintf(stderr, "reclaim-verify: no RDMA device has a usable IPv4 address (rdma_cm needs an Ethernet netdev with an address that is not 127.x; e.g. put rxe on a dummy device: ip link add rv0 type dummy; ip addr add 169.254.99.1/24 dev rv0; ip link set rv0 up; rdma link add rxe0 type rxe netdev rv0), or pass --addr\n");
		return 2;
	}
	ctx->have_swap = have_swap();
	/* vmstat before setup: registration is where pinned MRs pin pages */
	rv_snapshot(ctx, &ctx->s0);
	ctx->working_set = rv_working_set(&ctx->cfg, ctx->cfg.mode != RV_CLIENT,
					  ctx->cfg.mode != RV_SERVER);
	if ((ctx->cfg.kind[RV_EV_CGROUP] || ctx->cfg.kind[RV_EV_PAGEOUT]) && !ctx->have_swap)
		fprintf(stderr, "reclaim-verify: warning: no swap is configured: pageout and the cgroup limit cannot swap anonymous memory out\n");
	if (rv_cgroup_enter(ctx))
		return 2;
	/* from here a setup failure goes to setup_failed: out of the cgroup */
	if (ctx->cfg.mode != RV_CLIENT) {
		srv = calloc(1, sizeof(*srv));
		ctx->srv = srv;
		if (!srv || rv_server_start(ctx, srv))
			goto setup_failed;
		e = rv_thr_start(&ts, NULL, rv_server_main, srv);
		if (e) {
			rv_fatal(ctx, "cannot start the server thread: %s", strerror(e));
			goto setup_failed;
		}
		if (ctx->cfg.mode == RV_SERVER)
			fprintf(stderr, "reclaim-verify: server listening on %s port %u\n",
				ctx->cfg.addr, ctx->cfg.port);
	}
	if (ctx->cfg.mode != RV_SERVER) {
		cli = calloc(1, sizeof(*cli));
		ctx->cli = cli;
		if (!cli || rv_client_setup(ctx, cli)) {
			fprintf(stderr, "reclaim-verify: setup failed: %s\n", ctx->fatal);
			goto setup_failed;
		}
	}
	if (ctx->cfg.mode == RV_SERVER) {
		while (!atomic_load(&ctx->traffic_started) && !atomic_load(&ts.done))
			usleep(10000);
		if (atomic_load(&ctx->failed)) {
			fprintf(stderr, "reclaim-verify: setup failed: %s\n", ctx->fatal);
			goto setup_failed;
		}
	}
	{
		/* driver counters (the device is known now) and cgroup state from here */
		struct rv_snap hw;

		memset(&hw, 0, sizeof(hw));
		rv_snapshot(ctx, &hw);
		ctx->s0.nhw = hw.nhw;
		memcpy(ctx->s0.hwname, hw.hwname, sizeof(hw.hwname));
		memcpy(ctx->s0.hw, hw.hw, sizeof(hw.hw));
		ctx->s0.cg_max_events = hw.cg_max_events;
		ctx->s0.cg_oom = hw.cg_oom;
		ctx->s0.cg_oom_kill = hw.cg_oom_kill;
		for (unsigned i = 0; i < RV_NVM; i++)
			if (i != VM_PIN && i != VM_UNPIN)
				ctx->s0.vm[i] = hw.vm[i];
	}
	t0 = tlast = rv_now();
	next_prog = t0 + ctx->cfg.progress;
	if (cli) {
		e = rv_thr_start(&tc, NULL, rv_client_main, cli);
		if (e) {
			rv_fatal(ctx, "cannot start the client thread: %s", strerror(e));
			/* what the client thread says when it ends: the server stops */
			atomic_store(&ctx->client_done, true);
		}
	}
	if (rv_any_kind_but(&ctx->cfg, RV_EV_CGROUP)) {
		e = rv_thr_start(&tr, NULL, rv_reclaim_main, ctx);
		if (e)
			rv_fatal(ctx, "cannot start the reclaim thread: %s", strerror(e));
	}
	for (;;) {
		double now = rv_now();
		unsigned long long cc = atomic_load(&ctx->completions);
		bool traffic_done = (!cli || !atomic_load(&tc.started) || atomic_load(&tc.done)) &&
				    (!srv || atomic_load(&ts.done));

		if (traffic_done)
			break;
		if (cli && !atomic_load(&ctx->stop_traffic) &&
		    ((now - t0 >= ctx->cfg.duration && !kinds_short(ctx)) ||
		     now - t0 >= ctx->cfg.max_duration || atomic_load(&ctx->failed))) {
			atomic_store(&ctx->stop_traffic, true);
			atomic_store(&ctx->stop_reclaim, true);
			tstop = now;
		}
		if (cc != lastc) {
			lastc = cc;
			tlast = now;
		} else if (now - tlast > ctx->cfg.stall) {
			rv_fatal(ctx, "STALLED: no completion for %u s (%llu transactions done)",
				 ctx->cfg.stall, LD(ctx->st.txns));
			stalled = true;
			break;
		}
		if (ctx->cfg.progress && ctx->cfg.duration > 3 && now >= next_prog) {
			progress(ctx, t0);
			next_prog += ctx->cfg.progress;
		}
		usleep(20000);
	}
	atomic_store(&ctx->stop_traffic, true);
	atomic_store(&ctx->stop_reclaim, true);
	if (!stalled)
		rv_thr_join(&tr);
	secs = (tstop ? tstop : rv_now()) - t0;
	rv_snapshot(ctx, &ctx->s1);
	if (ctx->cfg.json)
		report_json(ctx, secs, stdout);
	else
		report_text(ctx, secs);
	if (ctx->cfg.json_file[0]) {
		FILE *jf = fopen(ctx->cfg.json_file, "w");

		if (jf) {
			report_json(ctx, secs, jf);
			fclose(jf);
		} else {
			fprintf(stderr, "reclaim-verify: %s: %s\n", ctx->cfg.json_file, strerror(errno));
		}
	}
	fflush(stdout);
	if (stalled) {
		rv_cgroup_leave(ctx);
		_exit(1);
	}
	rv_thr_join(&tc);
	rv_thr_join(&ts);
	{
		struct totals t;

		totals(ctx, &t);
		rc = passed(ctx, &t) ? 0 : 1;
	}
	if (cli)
		rv_client_cleanup(cli);
	if (srv)
		rv_server_cleanup(srv);
	rv_cgroup_leave(ctx);
	free(cli);
	free(srv);
	free(ctx);
	return rc;

setup_failed:
	/* threads may still run (the process ends with them): only the cgroup goes */
	rv_cgroup_leave(ctx);
	return 2;
}
