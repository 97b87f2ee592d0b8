#!/bin/bash
# Planted kernel reports, for the tests of the console gate (tests/vm/console-gate):
# tests/host/05-console-gate.sh (the gate alone, on sample lines) and
# tests/host/06-planted-reports-prod.sh / 07-planted-reports-debug.sh (real
# guests on each kernel).  Sourced on the host.

# The first line of every kind of report, as the 6.12 kernel prints it (the
# format strings of lockdep, KASAN, KFENCE, UBSAN, debugobjects, list_debug,
# mm, the hang detectors and the x86 fault handlers), with made-up values.
PLANT_SAMPLES=(
	'WARNING: CPU: 1 PID: 123 at drivers/infiniband/sw/rxe/rxe_odp.c:100 rxe_odp_fault+0x10/0x20 [rdma_rxe]'
	'BUG: KASAN: slab-use-after-free in rxe_odp_fault+0x10/0x20 [rdma_rxe]'
	'BUG: KFENCE: use-after-free read in rxe_odp_fault+0x10/0x20 [rdma_rxe]'
	'BUG: KFENCE: out-of-bounds write in rxe_odp_copy+0x10/0x20 [rdma_rxe]'
	'WARNING: possible circular locking dependency detected'
	'WARNING: possible recursive locking detected'
	'WARNING: inconsistent lock state'
	'WARNING: suspicious RCU usage'
	'WARNING: bad unlock balance detected!'
	'WARNING: possible irq lock inversion dependency detected'
	'WARNING: HARDIRQ-safe -> HARDIRQ-unsafe lock order detected'
	'WARNING: held lock freed!'
	'WARNING: rxe_wq/12 still has locks held!'
	'WARNING: lock held when returning to user space!'
	'BUG: MAX_LOCKDEP_CHAIN_HLOCKS too low!'
	'BUG: sleeping function called from invalid context at mm/memory.c:6000'
	'BUG: scheduling while atomic: kworker/1:2/77/0x00000002'
	'UBSAN: array-index-out-of-bounds in drivers/infiniband/sw/rxe/rxe_odp.c:42:7'
	'UBSAN: shift-out-of-bounds in drivers/infiniband/sw/rxe/rxe_odp.c:42:7'
	'page dumped because: VM_BUG_ON_FOLIO(folio_ref_zero_or_close_to_overflow(folio))'
	'kernel BUG at include/linux/mm.h:1444!'
	'BUG: Bad page state in process reclaim-verify  pfn:12345'
	'BUG: Bad page map in process reclaim-verify  pte:8000000012345067 pmd:12345067'
	'ODEBUG: free active (active state 0) object: ffff888012345678 object type: timer_list hint: rxe_timer+0x0/0x10 [rdma_rxe]'
	'list_add corruption. prev->next should be next (ffff888012345678), but was ffff888087654321. (prev=ffff888012345600).'
	'list_del corruption, ffff888012345678->next is LIST_POISON1 (dead000000000100)'
	'list_add double add: new=ffff888012345678, prev=ffff888012345678, next=ffff888012345600.'
	'refcount_t: underflow; use-after-free.'
	'INFO: task reclaim-verify:321 blocked for more than 60 seconds.'
	'watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [kworker/1:1:50]'
	'watchdog: Watchdog detected hard LOCKUP on cpu 1'
	'rcu: INFO: rcu_preempt self-detected stall on CPU'
	'rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:'
	'rcu: INFO: rcu_sched detected stalls on CPUs/tasks:'
	'rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 1-... } 21003 jiffies s: 177 root: 0x2/.'
	'BUG: workqueue lockup - pool cpus=1 node=0 flags=0x0 nice=0 stuck for 33s!'
	'BUG: unable to handle page fault for address: ffffffffffffff10'
	'BUG: kernel NULL pointer dereference, address: 0000000000000008'
	'Unable to handle kernel paging request at virtual address dead000000000108'
	'Oops: general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] PREEMPT SMP KASAN NOPTI'
	'Oops: invalid opcode: 0000 [#1] PREEMPT SMP NOPTI'
	'Kernel panic - not syncing: Fatal exception'
	'stack-protector: Kernel stack is corrupted in: rxe_requester+0x1234/0x1240 [rdma_rxe]'
	'Call Trace:'
)

# Lines the kernels print on a clean run (boot messages of the debuggers
# themselves, QEMU quirks, our module's taint): they must not fail a run.
PLANT_BENIGN=(
	'kasan: KernelAddressSanitizer initialized (generic)'
	'kfence: initialized - using 2097152 bytes for 255 objects at 0x(____ptrval____)-0x(____ptrval____)'
	'Lock dependency validator: Copyright (c) 2006 Red Hat, Inc., Ingo Molnar'
	'RCU lockdep checking is enabled.'
	'ODEBUG: 12 of 12 active objects replaced'
	'tsc: Unable to calibrate against PIT'
	'mtrr: your CPUs had inconsistent fixed MTRR settings'
	'amd_pstate: the _CPC object is not present in SBIOS or ACPI disabled'
	'rdma_rxe: loading out-of-tree module taints kernel.'
	'rdma_rxe: module verification failed: signature and/or required key missing - tainting kernel'
)

# plant_kinds KERNEL-CONFIG: the real bugs rxe_plant (tests/plant) can commit
# that this kernel reports, non-fatal ones first, then the fatal ones (each
# fatal one needs a boot of its own), one per line as "KIND REGEX", REGEX
# being the report line the console must then show.
plant_kinds() {
	local c=$1
	on() { grep -q "^CONFIG_$1=y" "$c"; }
	# lockdep first: a KASAN or KFENCE report taints the kernel and turns it off
	on PROVE_LOCKING && echo 'lockdep WARNING: possible circular locking dependency detected'
	# WARN(): every kernel (panic_on_warn is off)
	echo 'warn WARNING: CPU: [0-9]+ PID: [0-9]+ at .*plant_warn'
	on DEBUG_ATOMIC_SLEEP && echo 'sleep BUG: sleeping function called from invalid context'
	on DEBUG_OBJECTS_TIMERS && echo 'odebug ODEBUG: free active .*object type: timer_list'
	on KASAN && echo 'kasan BUG: KASAN: slab-use-after-free in plant_kasan'
	on UBSAN_BOUNDS && echo 'ubsan UBSAN: array-index-out-of-bounds in .*rxe_plant.c'
	# Debian's production kernel has KFENCE with sampling off: it is turned on at run time
	on KFENCE && echo 'kfence BUG: KFENCE: use-after-free read in plant_kfence'
	on SOFTLOCKUP_DETECTOR && echo 'spin BUG: soft lockup - CPU#'
	on RCU_STALL_COMMON && echo 'spin INFO: rcu_(preempt|sched) (self-)?detected stalls? on CPU'
	on DETECT_HUNG_TASK && echo 'hung INFO: task .* blocked for more than [0-9]+ seconds'
	on DEBUG_LIST && echo 'list! list_add double add'
	on DEBUG_VM && echo 'vm! page dumped because: VM_BUG_ON_FOLIO'
	return 0
}

# KASAN use-after-frees rxe_plant commits in a row, each of which must bring
# its own KASAN report (the guest boots with kasan_multi_shot)
PLANT_KASAN_RUNS=40

# planted_run prod|debug: boot KERNEL (tests/vm/run --kernel) with reports
# planted two ways: every PLANT_SAMPLES line written to /dev/kmsg (logged as
# the kernel logs a report) and echoed by the job (which must not count), and
# every real bug of plant_kinds committed by rxe_plant, built for that kernel.
# Each boot must end with exit 126 (the gate failed it), and the gate must have
# flagged every planted line and every real report.  Fails the test if not.
planted_run() {
	local kernel=$1 kdir config dir kinds fatal k re boot job log rc flagged real s missing=0 lost n append=()
	if [ "$kernel" = debug ]; then
		dir=$("$TOP/scripts/build-debug-kernel.sh" --lookup) || skip "the debug kernel is not built (make debug-kernel)"
		kdir=$dir/build config=$dir/config
	else
		kdir=/lib/modules/$KVER/build config=/boot/config-$KVER
	fi
	dir=$(mktemp -d "$TOP/build/plant.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$dir'" EXIT
	cp "$TOP/tests/plant/Kbuild" "$TOP/tests/plant/rxe_plant.c" "$dir/"
	make -C "$kdir" M="$dir" modules >"$dir/build.log" 2>&1 || { cat "$dir/build.log"; fail "rxe_plant does not build for $kernel"; }
	plant_kinds "$config" >"$dir/kinds"
	grep -q '^kasan ' "$dir/kinds" && append=(--append kasan_multi_shot)
	echo "$kernel kernel: real reports to plant: $(awk '{ print $1 }' "$dir/kinds" | uniq | tr '\n' ' ')"
	kinds=$(awk '$1 !~ /!$/ { print $1 }' "$dir/kinds" | uniq | tr '\n' ' ')
	fatal=$(awk '$1 ~ /!$/ { sub(/!$/, "", $1); print $1 }' "$dir/kinds" | tr '\n' ' ')
	boot=0
	# boot 0: the /dev/kmsg lines, every non-fatal kind, the first fatal one;
	# then one boot per further fatal kind
	for k in ${fatal:-none}; do
		job=$dir/job-$boot.sh
		{
			echo 'echo on >/proc/sys/kernel/printk_devkmsg'
			if [ "$boot" = 0 ]; then
				# the job's own lines first, so that fewer kernel lines land in them
				for s in "${PLANT_SAMPLES[@]}"; do
					printf 'echo %q\n' "PLAIN $s"
				done
				for s in "${PLANT_SAMPLES[@]}"; do
					printf 'echo %q >/dev/kmsg\n' "<3>$s"
				done
			fi
			printf 'insmod %q || exit 1\n' "$dir/rxe_plant.ko"
			# the real reports are judged on the console after this line only:
			# the planted samples above carry the same words
			# (at a level the console shows: tests/vm/run boots with loglevel=5)
			echo 'echo "<4>rxe_plant: real reports follow" >/dev/kmsg'
			echo 'echo 2 >/proc/sys/kernel/hung_task_timeout_secs'
			echo 'echo 1 >/proc/sys/kernel/watchdog_thresh'
			echo 'echo 3 >/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout'
			echo 'echo 100 >/sys/module/kfence/parameters/sample_interval'
			if [ "$boot" = 0 ]; then
				for s in $kinds; do
					# KASAN does not watch KFENCE's objects: with KFENCE
					# sampling every millisecond, rxe_plant must still
					# free and read an object KASAN watches, every time (it
					# once got a KFENCE one under load, and no KASAN report
					# came; 1 plant in 9 did at this interval)
					if [ "$s" = kasan ]; then
						echo 'echo 1 >/sys/module/kfence/parameters/sample_interval'
						echo "for i in \$(seq $PLANT_KASAN_RUNS); do echo kasan >/sys/module/rxe_plant/parameters/plant; done"
						echo 'echo 100 >/sys/module/kfence/parameters/sample_interval'
					else
						printf 'echo %s >/sys/module/rxe_plant/parameters/plant\n' "$s"
					fi
				done
			fi
			[ "$k" != none ] && printf 'echo %s >/sys/module/rxe_plant/parameters/plant\n' "$k"
			echo 'echo PLANT_DONE'
		} >"$job"
		log=$dir/console-$boot.log
		"$TOP/tests/vm/run" -q --kernel "$kernel" --rxe none "${append[@]}" --timeout 600 --log "$log" -- bash "$job"
		rc=$?
		[ "$rc" = 126 ] || { tail -n 40 "$log"; fail "$kernel kernel, boot $boot: tests/vm/run exited $rc, not 126 (the gate did not fail the run)"; }
		flagged=$("$TOP/tests/vm/console-gate" "$log")
		real=$(sed -n '/rxe_plant: real reports follow/,$p' "$log" >"$dir/real-$boot.log" &&
			"$TOP/tests/vm/console-gate" "$dir/real-$boot.log")
		if [ "$boot" = 0 ]; then
			for s in "${PLANT_SAMPLES[@]}"; do
				grep -qF "] $s" <<<"$flagged" || { echo "NOT FLAGGED (via /dev/kmsg): $s"; missing=1; }
			done
			# A flagged line holding a job's line must have been flagged for the
			# kernel line that landed in it: judge the text from its first
			# timestamp on, which the gate must flag (exit 1) by itself.
			while IFS= read -r s; do
				grep -aoE '\[ *[0-9]+\.[0-9]+\] .*' <<<"$s" | head -1 >"$dir/line"
				if "$TOP/tests/vm/console-gate" "$dir/line" >/dev/null; then
					echo "FLAGGED for a line the job only printed: $s"
					missing=1
				fi
			done < <(grep 'PLAIN ' <<<"$flagged")
		fi
		lost=0
		while read -r s re; do
			s=${s%!}
			case " $kinds " in *" $s "*) [ "$boot" = 0 ] || continue ;; *) [ "$s" = "$k" ] || continue ;; esac
			# (the console shows a report twice: as printed, and in the
			# dmesg that tests/vm/run prints at the end)
			n=$(grep -E "$re" <<<"$real" | sort -u | wc -l)
			if [ "$s" = kasan ] && [ "$n" != "$PLANT_KASAN_RUNS" ]; then
				echo "NOT FLAGGED (real $s report): /$re/ $n times, not $PLANT_KASAN_RUNS"
				missing=1 lost=1
			elif [ "$n" -gt 0 ]; then
				[ "$s" = kasan ] && s="kasan ($n of $PLANT_KASAN_RUNS plants)"
				echo "ok: $kernel kernel: real $s report flagged: $(grep -E -m1 "$re" <<<"$real")"
			else
				echo "NOT FLAGGED (real $s report): /$re/"
				missing=1 lost=1
			fi
		done <"$dir/kinds"
		# the console logs go with $dir: show what the plants left in this one
		if [ "$lost" = 1 ]; then
			echo "--- boot $boot: rxe_plant's messages, and the reports after its first plant:"
			grep -a 'rxe_plant:' "$dir/real-$boot.log" | sort -u | head -n 40
			head -n 40 <<<"$real"
		fi
		boot=$((boot + 1))
	done
	[ "$missing" = 0 ] || fail "$kernel kernel: the console gate missed planted reports (see above)"
	echo "$kernel kernel: ${#PLANT_SAMPLES[@]} planted report lines and every real report ($(awk '{ print $1 }' "$dir/kinds" | uniq | tr '\n' ' ')) failed the run"
}
