// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests for reclaim-verify (run under ASan/UBSan): pattern and
 * option logic, and the error paths of thread start and the cgroup.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "pattern.h"
#include "rv.h"
#include "unit.h"

static void test_pattern_roundtrip(void)
{
	size_t len = 64 * 1024;
	uint8_t *a = malloc(len), *b = malloc(len);
	struct pat_result r;

	pat_fill(a, len, 0x0201, 3 * len, 42);
	CHECK(pat_check(a, len, 0x0201, 3 * len, 42, &r) == 0);
	CHECK(r.cls == PAT_OK && r.pages[PAT_OK] == len / PAT_PAGE);
	/* every identity component changes the data */
	pat_fill(b, len, 0x0202, 3 * len, 42);
	CHECK(memcmp(a, b, len));
	pat_fill(b, len, 0x0201, 4 * len, 42);
	CHECK(memcmp(a, b, len));
	pat_fill(b, len, 0x0201, 3 * len, 43);
	CHECK(memcmp(a, b, len));
	/* a fill at an offset continues the same pattern */
	pat_fill(b, len / 2, 0x0201, 3 * len + len / 2, 42);
	CHECK(!memcmp(a + len / 2, b, len / 2));
	free(a);
	free(b);
}

static void test_single_bit(void)
{
	size_t len = 16384, i;
	uint8_t *a = malloc(len);
	struct pat_result r;

	for (i = 0; i < len; i += 997) {
		pat_fill(a, len, 7, 0, 9);
		a[i] ^= 0x10;
		CHECK(pat_check(a, len, 7, 0, 9, &r) == 1);
		CHECK(r.first_bad == i && r.bad_pages == 1 && r.cls == PAT_GARBAGE);
	}
	free(a);
}

static void test_classes(void)
{
	size_t len = 8 * PAT_PAGE;
	uint8_t *a = malloc(len);
	struct pat_result r;

	/* dropped page: zero */
	pat_fill(a, len, 5, 0, 10);
	memset(a + PAT_PAGE, 0, PAT_PAGE);
	/* a few pattern bytes are zero anyway */
	CHECK(pat_check(a, len, 5, 0, 10, &r) > PAT_PAGE - 64);
	CHECK(r.cls == PAT_ZERO && r.pages[PAT_ZERO] == 1 && r.pages[PAT_OK] == 7);
	CHECK(pat_class_is_stale(r.cls));
	/* the page still holds an older generation: stale */
	pat_fill(a, len, 5, 0, 10);
	pat_fill(a + 2 * PAT_PAGE, PAT_PAGE, 5, 2 * PAT_PAGE, 7);
	pat_check(a, len, 5, 0, 10, &r);
	CHECK(r.cls == PAT_OLD && r.found_gen == 7 && r.found_off == 2 * PAT_PAGE && r.found_stream == 5);
	/* older data of another slot (pinned source reused): stale too */
	pat_fill(a, len, 5, 0, 10);
	pat_fill(a + 3 * PAT_PAGE, PAT_PAGE, 5, 40 * PAT_PAGE, 3);
	pat_check(a, len, 5, 0, 10, &r);
	CHECK(r.cls == PAT_OLD && r.found_off == 40 * PAT_PAGE);
	/* newer data, or data meant elsewhere at the same generation: misplaced */
	pat_fill(a, len, 5, 0, 10);
	pat_fill(a + 3 * PAT_PAGE, PAT_PAGE, 6, 3 * PAT_PAGE, 10);
	pat_check(a, len, 5, 0, 10, &r);
	CHECK(r.cls == PAT_MISPLACED && !pat_class_is_stale(r.cls));
	/* a fork child's marker */
	pat_fill(a, len, 5, 0, 10);
	pat_mark_pages(a, len, PAT_STREAM_CHILD | 3, 0, 0);
	pat_check(a, len, 5, 0, 10, &r);
	CHECK(r.cls == PAT_CHILD && r.bad_pages == 8);
	/* torn page: half old, half new */
	pat_fill(a, len, 5, 0, 10);
	pat_fill(a + 4 * PAT_PAGE, PAT_PAGE / 2, 5, 4 * PAT_PAGE, 9);
	pat_check(a, len, 5, 0, 10, &r);
	CHECK(r.cls == PAT_GARBAGE);
	/* worst class wins */
	pat_fill(a, len, 5, 0, 10);
	memset(a, 0, PAT_PAGE);
	a[5 * PAT_PAGE + 100] ^= 1;
	pat_check(a, len, 5, 0, 10, &r);
	CHECK(r.cls == PAT_GARBAGE && r.pages[PAT_ZERO] == 1 && r.pages[PAT_GARBAGE] == 1);
	free(a);
}

static void test_unaligned_offset(void)
{
	/* messages may start mid-page of a stream: headers follow absolute offsets */
	size_t len = 3 * PAT_PAGE;
	uint8_t *a = malloc(len);
	struct pat_result r;

	pat_fill(a, len, 9, 64, 1);
	CHECK(pat_check(a, len, 9, 64, 1, &r) == 0);
	CHECK(r.pages[PAT_OK] == 4);
	memset(a + PAT_PAGE - 64, 0, PAT_PAGE);
	pat_check(a, len, 9, 64, 1, &r);
	CHECK(r.cls == PAT_ZERO);
	free(a);
}

static int parse(struct rv_config *c, const char *line, char *err)
{
	char buf[512], *argv[32], *t;
	int argc = 0;

	snprintf(buf, sizeof(buf), "rv %s", line);
	for (t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	rv_config_defaults(c);
	return rv_parse_args(c, argc, argv, err, 256);
}

/* exactly the reclaim kinds of mask selected */
static bool only_kinds(const struct rv_config *c, unsigned mask)
{
	unsigned k;

	for (k = 0; k < RV_NKINDS; k++)
		if (c->kind[k] != !!(mask & (1u << k)))
			return false;
	return true;
}

static void test_opts(void)
{
	struct rv_config c;
	char err[256];
	unsigned m;

	CHECK(parse(&c, "", err) == 0);
	CHECK(c.mode == RV_LOOPBACK && c.mr == RV_MR_ODP && only_kinds(&c, (1u << RV_NKINDS) - 1));
	CHECK(c.addr[0] == 0);
	CHECK(parse(&c, "--addr 169.254.1.3", err) == 0 && !strcmp(c.addr, "169.254.1.3"));
	CHECK(rv_ops_to_wire(&c) == 0xf && c.target % c.block == 0 && c.target >= 2ull * c.window * c.block);
	CHECK(parse(&c, "--pinned -r dontneed,remap -d 2.5 -q 2 -w 4 -b 16K", err) == 0);
	CHECK(c.mr == RV_MR_PINNED && only_kinds(&c, (1u << RV_EV_DONTNEED) | (1u << RV_EV_REMAP)));
	CHECK(c.duration == 2.5 && c.qps == 2 && c.window == 4 && c.block == 16384);
	CHECK(c.min_events == 0 && c.max_duration == 25);
	CHECK(parse(&c, "-d 20 --min-events 1", err) == 0);
	CHECK(c.min_events == 1 && c.duration == 20 && c.max_duration == 200);
	CHECK(parse(&c, "-d 20 --min-events 2 --max-duration 60", err) == 0);
	CHECK(c.min_events == 2 && c.max_duration == 60);
	CHECK(parse(&c, "-d 20 --max-duration 10", err) != 0);
	CHECK(parse(&c, "--min-events x", err) != 0);
	CHECK(parse(&c, "--min-events 1001", err) != 0);
	CHECK(parse(&c, "--max-duration 0", err) != 0);
	/* the cgroup kind counts swapped-out slots only where nothing else empties them */
	CHECK(parse(&c, "-r cgroup", err) == 0 && rv_cgroup_counts_slots(&c));
	CHECK(parse(&c, "-r cgroup,fork,thp,compact,mprotect", err) == 0 && rv_cgroup_counts_slots(&c));
	CHECK(parse(&c, "-r cgroup,pageout", err) == 0 && !rv_cgroup_counts_slots(&c));
	CHECK(parse(&c, "-r cgroup,dontneed", err) == 0 && !rv_cgroup_counts_slots(&c));
	CHECK(parse(&c, "-r remap,cgroup", err) == 0 && !rv_cgroup_counts_slots(&c));
	CHECK(parse(&c, "-r all", err) == 0 && !rv_cgroup_counts_slots(&c));
	CHECK(parse(&c, "-r pageout", err) == 0 && !rv_cgroup_counts_slots(&c));
	CHECK(parse(&c, "--mix --no-reclaim --json", err) == 0 && c.mr == RV_MR_MIX && only_kinds(&c, 0) && c.json);
	CHECK(parse(&c, "", err) == 0 && !c.implicit);
	CHECK(parse(&c, "--implicit -r pageout", err) == 0 && c.implicit && c.mr == RV_MR_ODP);
	CHECK(parse(&c, "--mix --implicit", err) == 0 && c.implicit && c.mr == RV_MR_MIX);
	CHECK(parse(&c, "--implicit --pinned", err) < 0 && strstr(err, "--implicit"));
	CHECK(parse(&c, "--pinned --implicit", err) < 0 && strstr(err, "--implicit"));
	CHECK(parse(&c, "--server", err) == 0 && c.mode == RV_SERVER && !strcmp(c.addr, "0.0.0.0"));
	CHECK(parse(&c, "--server 169.254.0.1 -p 999", err) == 0 && !strcmp(c.addr, "169.254.0.1") && c.port == 999);
	CHECK(parse(&c, "--client 192.0.2.7", err) == 0 && c.mode == RV_CLIENT && !strcmp(c.addr, "192.0.2.7"));
	CHECK(parse(&c, "--help", err) == 1);
	CHECK(parse(&c, "-b 1000", err) < 0 && strstr(err, "multiple of 4K"));
	CHECK(parse(&c, "-r pageout,bogus", err) < 0 && strstr(err, "--reclaim"));
	CHECK(parse(&c, "--ops read", err) < 0 && strstr(err, "write"));
	CHECK(parse(&c, "--ops write,atomic", err) == 0 && rv_ops_to_wire(&c) == ((1u << RV_OP_WRITE) | (1u << RV_OP_ATOMIC)));
	CHECK(parse(&c, "-q 0", err) < 0);
	CHECK(parse(&c, "-q 65", err) < 0);
	CHECK(parse(&c, "-d -1", err) < 0);
	CHECK(parse(&c, "-d", err) < 0 && strstr(err, "needs a value"));
	CHECK(parse(&c, "--frobnicate", err) < 0 && strstr(err, "unknown"));
	CHECK(parse(&c, "stray", err) < 0 && strstr(err, "unexpected"));
	CHECK(parse(&c, "-w 8 -b 64K -t 64K", err) == 0 && c.target == 2 * 8 * 65536);
	CHECK(parse(&c, "-b 4K -t 1G", err) < 0 && strstr(err, "65535"));
	CHECK(parse(&c, "--json-file /tmp/x.json", err) == 0 && !strcmp(c.json_file, "/tmp/x.json"));
	CHECK(parse(&c, "--cgroup-max 64M", err) == 0 && c.cgroup_max == 64u << 20);
	CHECK(parse(&c, "--cgroup-max 10", err) < 0);
	CHECK(parse(&c, "-b 0x10000 -t 2MiB", err) == 0 && c.block == 65536 && c.target == 2u << 20);
	CHECK(parse(&c, "-t 0", err) < 0 && parse(&c, "-b 12Q", err) < 0);
	CHECK(parse(&c, "-r FORK,thp", err) == 0 && only_kinds(&c, (1u << RV_EV_FORK) | (1u << RV_EV_THP)));
	CHECK(parse(&c, "-r fork,", err) == 0 && only_kinds(&c, 1u << RV_EV_FORK));
	CHECK(parse(&c, "-r none", err) == 0 && only_kinds(&c, 0));
	CHECK(parse(&c, "-r for", err) < 0);
	/* the hello carries the operations as bits, and gives back the same */
	CHECK(parse(&c, "--ops write,read,atomic", err) == 0);
	m = rv_ops_to_wire(&c);
	rv_config_defaults(&c);
	rv_ops_from_wire(&c, m);
	CHECK(m == 0xb && c.op[RV_OP_WRITE] && c.op[RV_OP_READ] && !c.op[RV_OP_SEND] && c.op[RV_OP_ATOMIC]);
}

static void *set_flag(void *arg)
{
	atomic_store((atomic_bool *)arg, true);
	return NULL;
}

/* A thread that could not be made is not "started" (nothing to join). */
static void test_thr_start(void)
{
	struct rv_thr t = { 0 };
	pthread_attr_t attr;
	atomic_bool ran = false;

	CHECK(rv_thr_start(&t, NULL, set_flag, &ran) == 0);
	CHECK(atomic_load(&t.started));
	rv_thr_join(&t);
	CHECK(atomic_load(&ran) && atomic_load(&t.done) && !atomic_load(&t.started));
	rv_thr_join(&t);	/* a second join is a no-op */

	/* a 128 TiB stack: no address space for it, pthread_create fails */
	atomic_store(&ran, false);
	CHECK(pthread_attr_init(&attr) == 0);
	CHECK(pthread_attr_setstacksize(&attr, (size_t)1 << 47) == 0);
	CHECK(rv_thr_start(&t, &attr, set_flag, &ran) != 0);
	CHECK(!atomic_load(&t.started));
	rv_thr_join(&t);	/* must not join a thread that does not exist */
	CHECK(!atomic_load(&ran));
	pthread_attr_destroy(&attr);
}

static int put_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static bool exists(const char *path)
{
	struct stat st;

	return !stat(path, &st);
}

/*
 * rv_cgroup_enter() against a fake cgroup v2 root (a directory with the
 * files it reads): every failure after it made its cgroup removes it again.
 */
static void test_cgroup_enter(void)
{
	char root[] = "/tmp/rv-unit-cg.XXXXXX", cg[256], path[512];
	struct rv_ctx *ctx = calloc(1, sizeof(*ctx));

	if (geteuid() != 0) {
		printf("# cgroup enter: skipped (rv_cgroup_enter needs root to make a cgroup)\n");
		free(ctx);
		return;
	}
	CHECK(ctx && mkdtemp(root));
	if (!ctx || !root[0])
		return;
	CHECK(put_file(root, "cgroup.controllers", "cpu io memory pids\n") == 0);
	CHECK(put_file(root, "cgroup.subtree_control", "") == 0);
	ctx->prog = "reclaim-verify-unit";
	snprintf(ctx->cg_root, sizeof(ctx->cg_root), "%s", root);
	snprintf(cg, sizeof(cg), "%s/reclaim-verify.%d", root, (int)getpid());
	memset(ctx->cfg.kind, 0, sizeof(ctx->cfg.kind));
	ctx->cfg.kind[RV_EV_CGROUP] = true;
	ctx->working_set = 64u << 20;

	/* pinned MRs under a limit below the working set: refused, no cgroup */
	ctx->cfg.mr = RV_MR_PINNED;
	CHECK(rv_cgroup_enter(ctx) == -1);
	CHECK(strstr(ctx->fatal, "pinned MRs") != NULL);
	CHECK(!ctx->cg_active && !exists(cg));

	/* memory.max cannot be written (a plain directory has none): no cgroup */
	ctx->cfg.mr = RV_MR_ODP;
	atomic_store(&ctx->failed, 0);	/* rv_fatal() keeps the first message only */
	CHECK(rv_cgroup_enter(ctx) == -1);
	CHECK(strstr(ctx->fatal, "memory.max") != NULL);
	CHECK(!ctx->cg_active && !ctx->cg_limit && !exists(cg));

	/* the cgroup's files there (a leftover of this pid): joined, half the working set */
	CHECK(mkdir(cg, 0755) == 0);
	CHECK(put_file(cg, "memory.max", "max") == 0);
	CHECK(put_file(cg, "cgroup.procs", "") == 0);
	CHECK(rv_cgroup_enter(ctx) == 0);
	CHECK(ctx->cg_active && ctx->cg_limit == 32u << 20);
	rv_cgroup_leave(ctx);
	CHECK(!ctx->cg_active);
	rv_cgroup_leave(ctx);	/* a second leave is a no-op */

	/* no memory controller: refused before anything is made */
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	unlink(path);
	rmdir(cg);
	CHECK(put_file(root, "cgroup.controllers", "cpu io pids\n") == 0);
	CHECK(rv_cgroup_enter(ctx) == -1 && !exists(cg));

	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	unlink(path);
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	unlink(path);
	CHECK(rmdir(root) == 0);
	free(ctx);
}

int main(void)
{
	FILE *devnull = fopen("/dev/null", "w");

	test_pattern_roundtrip();
	test_single_bit();
	test_classes();
	test_unaligned_offset();
	test_opts();
	test_thr_start();
	test_cgroup_enter();
	rv_usage(devnull, "rv");
	fclose(devnull);
	if (unit_failures) {
		fprintf(stderr, "reclaim-verify unit tests: %d FAILED\n", unit_failures);
		return 1;
	}
	printf("reclaim-verify unit tests: all passed\n");
	return 0;
}
