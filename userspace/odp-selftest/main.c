/* odp-selftest: behaviour tests of On-Demand Paging MRs on a Soft-RoCE device.
 * Each test runs in its own forked process with a fresh device context, so a
 * failing or crashing test cannot disturb the next one. */
#include "st.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
"usage: odp-selftest [options] [NAME-or-GLOB ...]\n"
"\n"
"Behaviour tests for On-Demand Paging (ODP) memory regions on an RDMA device,\n"
"normally Soft-RoCE (rxe0).  Both ends of every connection live in this one\n"
"process (loopback RC QP pairs, and UD).  Each test checks one behaviour and\n"
"prints one line:\n"
"  ok N name            the behaviour was observed\n"
"  not ok N name        it was not (the '# ...' lines before it say why)\n"
"  skip N name: reason  the test could not run here (reason given)\n"
"then a summary line.  The exit status is 1 if any test failed, else 0.\n"
"Some tests need root (pagemap PFNs, /proc/sys/vm/compact_memory), swap\n"
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
"  -h, --help          this text\n"
"\n"
"NAME-or-GLOB selects tests by name (shell globs allowed, e.g. 'err_*');\n"
"without one, every test runs (but those --exclude names).\n");
}

#define MAX_EXCLUDE 16
static const char *excl[MAX_EXCLUDE];
static int n_excl;

static int selected(const char *name, char **pats, int n)
{
	int i;

	for (i = 0; i < n_excl; i++)
		if (!fnmatch(excl[i], name, 0))
			return 0;
	if (!n)
		return 1;
	for (i = 0; i < n; i++)
		if (!fnmatch(pats[i], name, 0))
			return 1;
	return 0;
}

/* Runs one test in a child; returns T_* and the skip reason in reason. */
static int run_one(const struct test *t, const struct env *tmpl, int timeout,
		   char *reason, size_t rlen)
{
	int pfd[2], st, r, killed = 0;
	long ticks;
	pid_t pid;
	ssize_t n;

	if (pipe(pfd))
		return T_FAIL;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return T_FAIL;
	if (!pid) {
		struct env e = *tmpl;

		close(pfd[0]);
		if (env_open(&e)) {
			diag("cannot set up device %s", e.dev_name);
			_exit(T_FAIL);
		}
		r = t->fn(&e);
		if (r == T_SKIP && write(pfd[1], e.reason, strlen(e.reason)) < 0)
			r = T_FAIL;
		env_close(&e);
		fflush(stdout);
		_exit(r);
	}
	close(pfd[1]);
	/* Watchdog: count 10 ms sleeps instead of using alarm(), because a
	 * starved TCG guest's clock can jump by minutes at once. */
	for (ticks = 0;; ticks++) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			diag("waitpid: %s", strerror(errno));
			return T_FAIL;
		}
		if (ticks >= timeout * 100L && !killed) {
			diag("test still running after %d s (%ld ticks): killing it", timeout, ticks);
			kill(pid, SIGKILL);
			killed = 1;
		}
		usleep(10000);
	}
	n = read(pfd[0], reason, rlen - 1);
	reason[n > 0 ? n : 0] = 0;
	close(pfd[0]);
	if (WIFSIGNALED(st)) {
		diag("test process killed by signal %d%s", WTERMSIG(st), killed ? " (timeout)" : "");
		return T_FAIL;
	}
	r = WEXITSTATUS(st);
	return r == T_PASS || r == T_SKIP ? r : T_FAIL;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "gid", required_argument, NULL, 'g' },
		{ "timeout", required_argument, NULL, 't' },
		{ "wait", required_argument, NULL, 'w' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "list", no_argument, NULL, 'l' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct env tmpl = { .dev_name = "rxe0", .gid_opt = -1, .poll_ms = 30000 };
	int timeout = 300, list = 0, c, npass = 0, nfail = 0, nskip = 0, n = 0;
	const char *g = getenv("RXE_GID");
	char reason[256];
	struct timespec t0, t1;
	size_t i;

	if (g && *g)
		tmpl.gid_opt = atoi(g);
	while ((c = getopt_long(argc, argv, "d:g:t:w:x:lvh", lo, NULL)) != -1) {
		switch (c) {
		case 'd': tmpl.dev_name = optarg; break;
		case 'g': tmpl.gid_opt = atoi(optarg); break;
		case 't': timeout = atoi(optarg); break;
		case 'w': tmpl.poll_ms = atoi(optarg); break;
		case 'x':
			if (n_excl == MAX_EXCLUDE) {
				fprintf(stderr, "odp-selftest: more than %d --exclude\n", MAX_EXCLUDE);
				return 2;
			}
			excl[n_excl++] = optarg;
			break;
		case 'l': list = 1; break;
		case 'v': tmpl.verbose = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (timeout <= 0 || tmpl.poll_ms <= 0) {
		fprintf(stderr, "odp-selftest: --timeout and --wait must be positive\n");
		return 2;
	}
	tmpl.page = sysconf(_SC_PAGESIZE);
	for (i = 0; i < n_tests; i++)
		if (selected(tests[i].name, argv + optind, argc - optind))
			n++;
	if (!n) {
		fprintf(stderr, "odp-selftest: no test matches; see --list\n");
		return 2;
	}
	if (list) {
		for (i = 0; i < n_tests; i++)
			if (selected(tests[i].name, argv + optind, argc - optind))
				printf("%-28s %s\n", tests[i].name, tests[i].desc);
		return 0;
	}
	printf("1..%d\n", n);
	n = 0;
	for (i = 0; i < n_tests; i++) {
		const struct test *t = &tests[i];
		int r;

		if (!selected(t->name, argv + optind, argc - optind))
			continue;
		n++;
		printf("# -- %s: %s\n", t->name, t->desc);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		r = run_one(t, &tmpl, timeout, reason, sizeof(reason));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* for spotting slow cases in the log; nothing depends on it */
		printf("# (%s took %.1f s)\n", t->name,
		       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (r == T_PASS) {
			printf("ok %d %s\n", n, t->name);
			npass++;
		} else if (r == T_SKIP) {
			printf("skip %d %s: %s\n", n, t->name, reason[0] ? reason : "no reason given");
			nskip++;
		} else {
			printf("not ok %d %s\n", n, t->name);
			nfail++;
		}
		fflush(stdout);
	}
	printf("# odp-selftest: %d passed, %d failed, %d skipped (of %d)\n", npass, nfail, nskip, n);
	return nfail ? 1 : 0;
}
