// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tcg-probe: does this (emulated) CPU leak a stale value into RFLAGS after
 * CMPXCHG16B?
 *
 * QEMU 7.2's TCG (Debian 12's qemu-system-x86) translates CMPXCHG16B into a
 * helper that computes the flags from env->cc_op without first storing the
 * translator's current cc_op (every other flag-reading helper is preceded by
 * gen_update_cc_op()).  So the helper evaluates the previous flag state with
 * the wrong operation: with a stale CC_OP_EFLAGS it takes CC_SRC, the source
 * operand of the last ADD or CMP, as the flags word, and only ZF is right.
 * The next PUSHF, interrupt or exception pushes those bits; an IRET then
 * loads TF, DF, AC, IOPL, NT or VM from a pointer.  In a guest kernel that is
 * a spurious single-step #DB ("WARNING ... exc_debug_kernel"), a double fault
 * with EFLAGS like 06a21e02, or, with DF, a memcpy that runs backwards.  The
 * kernel's SLUB fast path does CMPXCHG16B on every allocation, so any test can
 * hit it; tests/vm/run therefore hides CX16 from the guest.
 *
 * This program reproduces the leak deterministically: POPF (the translator
 * ends the block and stores CC_OP_EFLAGS), ADD (CC_SRC = a known pattern),
 * CMPXCHG16B, PUSHF.  Exit 0: no CX16, or CX16 and clean flags; 1: the leak;
 * 2: usage.
 */
#include <cpuid.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "opts.h"

/* The pattern ADD leaves in CC_SRC: bits a real RFLAGS never has set
 * together, TF and DF among them. */
#define PATTERN 0x12345700ULL

/* The arithmetic flags (CF PF AF ZF SF OF = 0x8d5), IF and the always-one
 * bit 1 (0x202): all that RFLAGS may show after CMPXCHG16B in user mode. */
#define RFLAGS_EXPECTED_MASK (0x08d5UL | 0x0202UL)

static unsigned long flags_after_cmpxchg16b(uint64_t src)
{
	static unsigned __int128 mem __attribute__((aligned(16)));
	unsigned long fl;
	uint64_t dst = 1;

	__asm__ volatile("xorl %%eax, %%eax\n\t"
			 "xorl %%edx, %%edx\n\t"
			 "xorl %%ebx, %%ebx\n\t"
			 "xorl %%ecx, %%ecx\n\t"
			 "pushq $0x202\n\t"
			 "popfq\n\t"
			 "addq %[s], %[d]\n\t"
			 "lock cmpxchg16b %[m]\n\t"
			 "pushfq\n\t"
			 "popq %[f]\n\t"
			 : [f] "=r"(fl), [d] "+r"(dst), [m] "+m"(mem)
			 : [s] "r"(src)
			 : "rax", "rbx", "rcx", "rdx", "cc", "memory");
	return fl;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: tcg-probe [-n ITERATIONS]\n"
		"\n"
		"Checks whether CMPXCHG16B leaves a stale value in RFLAGS, the QEMU 7.2\n"
		"TCG bug that makes test guests take spurious single-step traps and\n"
		"double faults.  Run it in a guest (tests/vm/run -- tcg-probe).\n"
		"\n"
		"  -n N   attempts (default 1000)\n"
		"\n"
		"exit status: 0 CPU without CX16, or CMPXCHG16B leaves RFLAGS clean;\n"
		"             1 RFLAGS leaked (the bug); 2 usage error\n");
}

int main(int argc, char **argv)
{
	unsigned int a, b, c, d;
	unsigned long fl = 0, worst = 0;
	long n = 1000, bad = 0, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "-n") && i + 1 < argc &&
		    !opt_long(argv[i + 1], 1, 100000000, &n)) {
			i++;
			continue;
		}
		usage(stderr);
		return 2;
	}

	__cpuid(1, a, b, c, d);
	if (!(c & bit_CMPXCHG16B)) {
		printf("tcg-probe: the CPU has no CX16: nothing can leak (clean)\n");
		return 0;
	}
	for (i = 0; i < n; i++) {
		fl = flags_after_cmpxchg16b(PATTERN);
		if (fl & ~RFLAGS_EXPECTED_MASK) {
			bad++;
			worst = fl;
		}
	}
	if (bad) {
		printf("tcg-probe: LEAK: RFLAGS %#lx after CMPXCHG16B in %ld of %ld attempts (stale operand %#llx)\n",
		       worst, bad, n, (unsigned long long)PATTERN);
		return 1;
	}
	printf("tcg-probe: CX16 present, RFLAGS clean after CMPXCHG16B in %ld attempts (last %#lx)\n",
	       n, fl);
	return 0;
}
