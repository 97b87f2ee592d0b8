/* odp-selftest: behaviour tests of On-Demand Paging MRs on a Soft-RoCE
 * device, on the kernel's kselftest harness (kselftest_harness.h from
 * Debian's linux-source-6.12; see kselftest-dir.sh).
 *
 * This file is the harness's one translation unit: kselftest_harness.h keeps
 * its registry of fixtures and tests in static variables and defines some
 * functions non-static, so every file of cases is #included at the end of
 * this one (see "The cases" below).  The harness forks a process per test;
 * FIXTURE(odp) opens the device and a PD in it, so a failing or crashing
 * test cannot disturb the next one.  What this file adds to the harness:
 * our options, shell globs to select tests by name, a description of each
 * test for --list, one timeout for all tests, and a summary line. */
#include "harness.h"

#include <fnmatch.h>
#include <getopt.h>
#include <sys/mman.h>

static void usage(FILE *f)
{
	fprintf(f,
"usage: odp-selftest [options] [NAME-or-GLOB ...]\n"
"\n"
"Behaviour tests for On-Demand Paging (ODP) memory regions on an RDMA device,\n"
"normally Soft-RoCE (rxe0).  Both ends of every connection live in this one\n"
"process (loopback RC QP pairs, and UD).  Each test checks one behaviour; it\n"
"runs in a process of its own with the device opened afresh (the kernel's\n"
"kselftest harness: FIXTURE(odp), TEST_F).  The output is TAP:\n"
"  ok N odp.name                   the behaviour was observed\n"
"  not ok N odp.name               it was not (the '# ...' lines before it say why)\n"
"  ok N odp.name # SKIP reason     the test could not run here (reason given)\n"
"then the harness's '# Totals' line and '# odp-selftest: N passed, N failed,\n"
"N skipped (of N)'.  The exit status is 1 if any test failed, else 0.\n"
"\n"
"Where the driver's behaviour is exact the tests assert exact deltas of the\n"
"MR's own counters (rxe-odp's drv_odp_* restrack attributes, read over RDMA\n"
"netlink: 'rdma resource show mr -dd' shows the same), e.g. an RDMA WRITE that\n"
"faults N pages moves odp_pages_faulted by exactly N.  A counter the tests\n"
"need that the module lacks fails them; a device without ODP (Debian's stock\n"
"rdma_rxe) skips the ODP tests, with the reason.\n"
"Some tests need root (netlink lkeys, pagemap PFNs, compact_memory), swap\n"
"(MADV_PAGEOUT proof) or 2 MiB hugepages (echo 64 > /proc/sys/vm/nr_hugepages).\n"
"\n"
"options:\n"
"  -d, --dev NAME      RDMA device (default rxe0)\n"
"  -g, --gid INDEX     GID index (default: $RXE_GID, else the IPv4-mapped GID)\n"
"  -t, --timeout SEC   kill a test that runs longer than this (default 300)\n"
"  -w, --wait MS       wait at most MS for one completion (default 30000)\n"
"  -x, --exclude GLOB  skip the tests whose name matches GLOB (repeatable)\n"
"  -l, --list          list the tests with a one-line description and exit\n"
"  -v, --verbose       more '# ...' detail\n"
"      --need-counter NAME  also require the per-MR counter NAME wherever\n"
"                      per-MR counters are read (to see a missing counter\n"
"                      fail the tests: a name the module does not have)\n"
"  -h, --help          this text\n"
"\n"
"NAME-or-GLOB selects tests by name, with or without the fixture ('odp.'),\n"
"shell globs allowed (e.g. 'err_*'); without one, every test runs (but those\n"
"--exclude names).\n");
}

/* --list's descriptions, registered by ST_TEST() next to each test. */
static struct st_doc *st_docs;

void st_doc_add(struct st_doc *d)
{
	d->next = st_docs;
	st_docs = d;
}

static const char *st_doc_of(const char *test)
{
	const struct st_doc *d;

	for (d = st_docs; d; d = d->next)
		if (!strcmp(d->name, test))
			return d->text;
	return "";
}

/* What FIXTURE_SETUP(odp) copies into each test's env. */
static struct env st_tmpl = { .dev_name = "rxe0", .gid_opt = -1, .poll_ms = 30000 };

#define MAX_EXCLUDE 16
static const char *excl[MAX_EXCLUDE];
static int n_excl;

static int glob_hit(const char *pat, const char *full, const char *test)
{
	return !fnmatch(pat, full, 0) || !fnmatch(pat, test, 0);
}

static int selected(const char *full, const char *test, char **pats, int n)
{
	int i;

	for (i = 0; i < n_excl; i++)
		if (glob_hit(excl[i], full, test))
			return 0;
	if (!n)
		return 1;
	for (i = 0; i < n; i++)
		if (glob_hit(pats[i], full, test))
			return 1;
	return 0;
}

/* The selected tests, as the harness names them ("fixture.test"). */
struct st_sel {
	struct __test_metadata *t;
	char name[128];
};

static struct st_sel *sel;
static int n_sel;
static pid_t main_pid;

/* After the harness's last line: the summary line the guest tests look
 * for, counted from the harness's own results, after a "skip N name" line
 * per skipped test (tests/guest/25 and 26 look for those; the reason is on
 * the test's "ok N name # SKIP reason" line above). */
static void summary(void)
{
	int i, pass = 0, fail = 0, skip = 0;

	if (getpid() != main_pid)
		return;
	for (i = 0; i < n_sel; i++) {
		int c = sel[i].t->exit_code;

		if (c == KSFT_SKIP) {
			skip++;
			printf("skip %d %s (reason on its '# SKIP' line)\n", i + 1, sel[i].name);
		} else if (__test_passed(sel[i].t)) {
			pass++;
		} else {
			fail++;
		}
	}
	printf("# odp-selftest: %d passed, %d failed, %d skipped (of %d)\n", pass, fail, skip,
	       n_sel);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	enum { OPT_NEED = 256 };
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "gid", required_argument, NULL, 'g' },
		{ "timeout", required_argument, NULL, 't' },
		{ "wait", required_argument, NULL, 'w' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "list", no_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "need-counter", required_argument, NULL, OPT_NEED },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int timeout = 300, list = 0, c, n_all = 0, hv_n = 1, i;
	const char *g = getenv("RXE_GID");
	struct __fixture_metadata *f;
	struct __test_metadata *t;
	char **hv;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* a test's lines survive its _exit() */
	if (g && *g)
		st_tmpl.gid_opt = atoi(g);
	while ((c = getopt_long(argc, argv, "d:g:t:w:x:lvh", lo, NULL)) != -1) {
		switch (c) {
		case 'd': st_tmpl.dev_name = optarg; break;
		case 'g': st_tmpl.gid_opt = atoi(optarg); break;
		case 't': timeout = atoi(optarg); break;
		case 'w': st_tmpl.poll_ms = atoi(optarg); break;
		case 'x':
			if (n_excl == MAX_EXCLUDE) {
				fprintf(stderr, "odp-selftest: more than %d --exclude\n", MAX_EXCLUDE);
				return 2;
			}
			excl[n_excl++] = optarg;
			break;
		case 'l': list = 1; break;
		case 'v': st_tmpl.verbose = 1; break;
		case OPT_NEED: st_tmpl.need_counter = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (timeout <= 0 || st_tmpl.poll_ms <= 0) {
		fprintf(stderr, "odp-selftest: --timeout and --wait must be positive\n");
		return 2;
	}
	st_tmpl.page = sysconf(_SC_PAGESIZE);

	for (f = __fixture_list; f; f = f->next)
		for (t = f->tests; t; t = t->next)
			n_all++;
	sel = calloc(n_all, sizeof(*sel));
	hv = calloc(2 * n_all + 2, sizeof(*hv));
	if (!sel || !hv)
		return 2;
	hv[0] = argv[0];
	for (f = __fixture_list; f; f = f->next) {
		for (t = f->tests; t; t = t->next) {
			struct st_sel *s = &sel[n_sel];

			snprintf(s->name, sizeof(s->name), "%s.%s", f->name, t->name);
			if (!selected(s->name, t->name, argv + optind, argc - optind))
				continue;
			s->t = t;
			n_sel++;
			/* The harness's alarm() bounds each test; a guest whose
			 * clock jumps is void anyway (tests/vm/run). */
			t->timeout = timeout;
			hv[hv_n++] = "-r";
			hv[hv_n++] = s->name;
		}
	}
	if (!n_sel) {
		fprintf(stderr, "odp-selftest: no test matches; see --list\n");
		return 2;
	}
	if (list) {
		for (i = 0; i < n_sel; i++)
			printf("%-28s %s\n", sel[i].t->name, st_doc_of(sel[i].t->name));
		return 0;
	}
	main_pid = getpid();
	atexit(summary);
	optind = 0;		/* the harness parses hv with getopt() again */
	return test_harness_run(hv_n, hv);
}

/* ------------------------------------------------------------ the fixture */

FIXTURE(odp) {
	struct env e;
};

FIXTURE_SETUP(odp)
{
	self->e = st_tmpl;
	ASSERT_EQ(0, env_open(&self->e))
		TH_LOG("cannot set up device %s", self->e.dev_name);
}

FIXTURE_TEARDOWN(odp)
{
	env_close(&self->e);
}

/* ------------------------------------------------------------- the cases
 *
 * Every file below is part of this translation unit, and its tests run in
 * this order.  To add a file of cases: write it like exact.c (ST_TEST(),
 * the harness's ASSERT and EXPECT macros, self->e), add its #include here
 * and its name to CASES in the Makefile. */
#include "cases.c"
#include "exact.c"
#include "mw.c"
#include "regedge.c"
#include "faulthist.c"
