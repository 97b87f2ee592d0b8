/* odp-selftest: the kernel's kselftest harness (kselftest_harness.h of
 * Debian's linux-source-6.12, found by kselftest-dir.sh; never copied into
 * this tree) and what our cases add to it.  Included only by main.c and
 * the files of cases main.c #includes: the harness must live in one
 * translation unit. */
#ifndef ODP_SELFTEST_HARNESS_H
#define ODP_SELFTEST_HARNESS_H

#include "st.h"

/* The harness's log lines go where the TAP lines go (stdout, line
 * buffered by main()), so a log keeps them in order. */
#define TH_LOG_STREAM stdout
/* The header is the kernel's, built there without -Wextra: one of its
 * signal handlers does not use all its parameters. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <kselftest_harness.h>
#pragma GCC diagnostic pop

/* A test's one-line description, for --list. */
struct st_doc {
	const char *name, *text;
	struct st_doc *next;
};

void st_doc_add(struct st_doc *d);

/*
 * ST_TEST(name, "what it shows") { body }: TEST_F(odp, name) with a
 * description.  The body runs in the test's own process after
 * FIXTURE_SETUP(odp) opened the device: self->e is its struct env; use the
 * harness's ASSERT_*()/EXPECT_*()/SKIP().
 */
#define ST_TEST(name, text)                                                           \
	static struct st_doc st_doc_##name = { #name, text, NULL };                   \
	static void __attribute__((constructor)) st_doc_reg_##name(void)             \
	{                                                                             \
		st_doc_add(&st_doc_##name);                                          \
	}                                                                             \
	TEST_F(odp, name)

/* Run a case function of st.h (T_PASS/T_FAIL/T_SKIP) as the test's body. */
#define BODY(fn)                                                                      \
	do {                                                                          \
		int r_ = fn(&self->e);                                                \
		if (r_ == T_SKIP)                                                     \
			SKIP(return, "%s", self->e.reason);                           \
		ASSERT_EQ(T_PASS, r_)                                                 \
			TH_LOG("%s failed: see the '#' lines above", #fn);            \
	} while (0)

/* ASSERT that a case function of st.h (mrc_read(), odpc_read(), ...)
 * passed; its "# ..." lines said why not. */
#define ASSERT_OK(call)                                                               \
	ASSERT_EQ(T_PASS, (call)) TH_LOG("%s", #call)

#endif
