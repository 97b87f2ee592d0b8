/* odp-selftest: the cases whose bodies are functions of tests.c, perm.c and
 * prefetch.c (int t_NAME(struct env *), built as their own translation
 * units: they report with CHECK()/ST_SKIP() of st.h and "# ..." lines).
 * Each ST_TEST() here is one TEST_F(odp, NAME) of the harness, which runs
 * the function in the test's process and turns its result into the
 * harness's: T_SKIP a SKIP() with the function's reason, T_FAIL a failed
 * assertion.  Part of main.c's translation unit (#included there). */

ST_TEST(caps, "device advertises general ODP, RC SEND/RECV/WRITE/READ/ATOMIC/SRQ/FLUSH/ATOMIC_WRITE, UD SEND/RECV/SRQ, implicit")
{
	BODY(t_caps);
}

ST_TEST(reg_refused_no_caps, "without ODP caps, ODP registration fails with EOPNOTSUPP and leaks nothing")
{
	BODY(t_reg_refused_no_caps);
}

ST_TEST(reg_iova, "ODP MR via ibv_reg_mr_iova (iova != VA): remote and local addressing use the iova")
{
	BODY(t_reg_iova);
}

ST_TEST(reg_overflow_refused, "iova + length wrapping 2^64 is refused at registration")
{
	BODY(t_reg_overflow_refused);
}

ST_TEST(rereg_odp_toggle_refused, "rereg toggling ON_DEMAND is refused both ways; MRs still work")
{
	BODY(t_rereg_odp_toggle_refused);
}

ST_TEST(reg_hugetlb, "ODP|HUGETLB on hugetlbfs memory: WRITE/READ across 2 MiB pages verified")
{
	BODY(t_reg_hugetlb);
}

ST_TEST(reg_hugetlb_small_pages, "ODP|HUGETLB on 4 KiB memory: refused (reg or access), memory untouched")
{
	BODY(t_reg_hugetlb_on_small_pages);
}

ST_TEST(nopin_odp, "ODP reg + WRITE + READ + dereg leave nr_foll_pin_acquired/released unchanged")
{
	BODY(t_nopin_odp);
}

ST_TEST(pin_control, "control: a pinned MR moves nr_foll_pin_acquired/released")
{
	BODY(t_pin_control);
}

ST_TEST(rdma_write, "RDMA WRITE between ODP MRs, many sizes/offsets, data and fault counters checked")
{
	BODY(t_rdma_write);
}

ST_TEST(rdma_read, "RDMA READ between ODP MRs, aligned and unaligned, data checked")
{
	BODY(t_rdma_read);
}

ST_TEST(rdma_read_untouched, "RDMA READ of never-touched ODP memory returns zeros")
{
	BODY(t_rdma_read_untouched);
}

ST_TEST(send_recv, "RC SEND/RECV with ODP MRs on both sides, data and bounds checked")
{
	BODY(t_send_recv);
}

ST_TEST(atomic_cmp_swp, "CMP_SWP on an ODP MR: swap on match, none on mismatch, old value returned")
{
	BODY(t_atomic_cmp_swp);
}

ST_TEST(atomic_fetch_add, "FETCH_ADD on an ODP MR: 20 adds + wrap, every fetched value checked")
{
	BODY(t_atomic_fetch_add);
}

ST_TEST(srq_recv, "RC SEND into an SRQ with ODP receive buffers")
{
	BODY(t_srq_recv);
}

ST_TEST(ud_send_recv, "UD SEND/RECV with ODP MRs, page-crossing buffers, data checked")
{
	BODY(t_ud_send_recv);
}

ST_TEST(invalidate_dontneed, "MADV_DONTNEED on a mapped ODP MR: mincore 0, driver invalidates, next WRITE refaults and is visible")
{
	BODY(t_invalidate_dontneed);
}

ST_TEST(invalidate_pageout_swap, "MADV_PAGEOUT swaps an ODP MR out (pswpout, mincore, counters); READ swaps in right data; WRITE visible")
{
	BODY(t_invalidate_pageout_swap);
}

ST_TEST(pageout_pinned_control, "control: MADV_PAGEOUT cannot reclaim pages under a pinned MR")
{
	BODY(t_pageout_pinned_control);
}

ST_TEST(coherence_dontneed_odp, "after MADV_DONTNEED an RDMA WRITE into an ODP MR is visible to the process")
{
	BODY(t_coherence_dontneed_odp);
}

ST_TEST(coherence_dontneed_pinned, "after MADV_DONTNEED an RDMA WRITE into a pinned MR is NOT visible (goes to the old page)")
{
	BODY(t_coherence_dontneed_pinned);
}

ST_TEST(coherence_remap_odp, "after munmap + mmap(MAP_FIXED) an RDMA WRITE into an ODP MR is visible")
{
	BODY(t_coherence_remap_odp);
}

ST_TEST(coherence_remap_pinned, "after munmap + mmap(MAP_FIXED) an RDMA WRITE into a pinned MR is NOT visible")
{
	BODY(t_coherence_remap_pinned);
}

ST_TEST(fork_parent_odp, "after fork, RDMA into the parent's ODP MR lands in the parent only (3 COW orders)")
{
	BODY(t_fork_parent_odp);
}

ST_TEST(fork_implicit, "after fork, RDMA WRITE/READ through an implicit MR with children lands in the parent only (3 COW orders)")
{
	BODY(t_fork_implicit);
}

ST_TEST(err_outside_mr, "accesses outside the MR: REM_ACCESS_ERR (remote) / LOC_PROT_ERR (local), QP to ERR")
{
	BODY(t_err_outside_mr);
}

ST_TEST(err_munmapped, "accesses to munmapped parts of ODP MRs: REM_ACCESS_ERR / LOC_PROT_ERR, QP to ERR")
{
	BODY(t_err_munmapped);
}

ST_TEST(err_recv_munmapped, "SEND into a munmapped ODP receive buffer: receiver LOC_PROT_ERR, sender REM_OP_ERR, QP to ERR")
{
	BODY(t_err_recv_munmapped);
}

ST_TEST(err_prot_none, "accesses to PROT_NONE parts of ODP MRs: REM_ACCESS_ERR / LOC_PROT_ERR")
{
	BODY(t_err_prot_none);
}

ST_TEST(err_readonly_mapping, "remote WRITE/atomic into memory mprotect'ed read-only: REM_ACCESS_ERR; READ works")
{
	BODY(t_err_readonly_mapping);
}

ST_TEST(err_readonly_registration, "read-only ODP MR / writable MR on read-only memory: writes refused, reads work")
{
	BODY(t_err_readonly_registration);
}

ST_TEST(err_local_prot_status, "local protection faults (pinned and ODP) complete with exactly IBV_WC_LOC_PROT_ERR")
{
	BODY(t_err_local_prot_status);
}

ST_TEST(access_next_to_hole, "valid accesses next to unmapped/PROT_NONE/read-only pages of an ODP MR succeed")
{
	BODY(t_access_next_to_hole);
}

ST_TEST(write_after_read_untouched, "RDMA WRITE after an RDMA READ of untouched (zero-page) ODP memory succeeds")
{
	BODY(t_write_after_read_untouched);
}

ST_TEST(err_iova_wrap, "iova+length wrapping 2^64 in rkey accesses and SGEs: error completions, memory untouched")
{
	BODY(t_err_iova_wrap);
}

ST_TEST(dereg_inflight, "dereg of responder/requester ODP MR during traffic: valid completions, no hang, no leak")
{
	BODY(t_dereg_inflight);
}

ST_TEST(munmap_inflight, "munmap of ODP MR buffers during traffic: valid completions, no hang, no leak")
{
	BODY(t_munmap_inflight);
}

ST_TEST(exit_inflight, "a child doing ODP traffic is SIGKILLed mid-flight: no hang, its MRs are gone")
{
	BODY(t_exit_inflight);
}

ST_TEST(exit_implicit, "a child with 4 implicit MRs (128 children), a connected QP and posted work exits without dereg: its MRs are gone")
{
	BODY(t_exit_implicit);
}

ST_TEST(thp_split, "THP-backed ODP MR split by partial munmap / NOHUGEPAGE+DONTNEED: invalidated, RDMA verified")
{
	BODY(t_thp_split);
}

ST_TEST(thp_collapse, "MADV_COLLAPSE migrates 4 KiB pages into a THP under an ODP MR: RDMA follows the new page")
{
	BODY(t_thp_collapse);
}

ST_TEST(compaction, "compact_memory migrates pages under an ODP MR: invalidated, RDMA WRITE visible after")
{
	BODY(t_compaction);
}

ST_TEST(perm_truncate_remote, "ODP MR over a truncated MAP_SHARED file: remote WRITE/READ/atomic past EOF -> REM_ACCESS_ERR within seconds, no RNR NAK")
{
	BODY(t_perm_truncate_remote);
}

ST_TEST(perm_truncate_local, "truncated file under local SGEs (WRITE/SEND source, READ/atomic destination, RECV buffer): error within seconds, no retries")
{
	BODY(t_perm_truncate_local);
}

ST_TEST(perm_truncate_pinned, "control: a pinned MR over a truncated file completes RDMA past EOF; the data is lost to the file")
{
	BODY(t_perm_truncate_pinned);
}

ST_TEST(perm_hwpoison, "MADV_HWPOISON'd page under an ODP MR: remote/local accesses fail within seconds; neighbours work")
{
	BODY(t_perm_hwpoison);
}

ST_TEST(perm_prot, "PROT_NONE and write-only pages under an ODP MR: errors within seconds, counted as fault errors, no RNR NAK")
{
	BODY(t_perm_prot);
}

ST_TEST(perm_punch_hole, "fallocate(PUNCH_HOLE) under an ODP MR: the hole reads zeros, WRITE/atomic land in the file, no fault error")
{
	BODY(t_perm_punch_hole);
}

ST_TEST(perm_race, "a truncated file's last page zapped in a loop under WRITE/READ: a failed fault-ahead never fails the access")
{
	BODY(t_perm_race);
}

ST_TEST(prefetch_sync, "sync PREFETCH/PREFETCH_WRITE map the whole range (per-MR and device counters); the next access faults nothing")
{
	BODY(t_prefetch_sync);
}

ST_TEST(prefetch_sges, "several SGEs over several MRs in one call; a bad last SGE fails the call with nothing mapped")
{
	BODY(t_prefetch_sges);
}

ST_TEST(prefetch_no_fault, "PREFETCH_NO_FAULT maps exactly the present pages and faults nothing in")
{
	BODY(t_prefetch_no_fault);
}

ST_TEST(prefetch_write_cow, "PREFETCH_WRITE breaks COW (MAP_PRIVATE file, fork); a read PREFETCH does not")
{
	BODY(t_prefetch_write_cow);
}

ST_TEST(prefetch_async, "async PREFETCH_WRITE returns at once and maps the range soon after")
{
	BODY(t_prefetch_async);
}

ST_TEST(prefetch_race, "prefetches racing munmap and dereg, and a process exiting with prefetches queued: safe, no leak")
{
	BODY(t_prefetch_race);
}

ST_TEST(prefetch_errors, "advise_mr errors: bad lkey, pinned MR, other PD, read-only MR, out of range, overflow, bad advice/flags")
{
	BODY(t_prefetch_errors);
}

ST_TEST(reg_size, "ODP registration of untouched MAP_NORESERVE memory does not grow with the size, 4 KiB .. 1 TiB (9 each, interleaved; fastest within 10x; the <= 2 goal is bench reg)")
{
	BODY(t_reg_size);
}

ST_TEST(implicit_rdma, "implicit ODP MR: WRITE, READ, SEND/RECV, atomics with its lkey and rkey only; children and mapped pages shown; unmapped address = remote access error")
{
	BODY(t_implicit_rdma);
}

ST_TEST(implicit_local_err, "implicit ODP MR: an lkey on an unmapped address completes with a local protection error")
{
	BODY(t_implicit_local_err);
}

ST_TEST(implicit_edges, "registration edges (length 0, SIZE_MAX at an address, wrapping range, implicit with iova) refused; 16 implicit MRs in one process")
{
	BODY(t_implicit_edges);
}

ST_TEST(perm_transient, "odp_fail_faults on a truncated file's MR: one RNR NAK / retry per failure, then the real outcome")
{
	BODY(t_perm_transient);
}

ST_TEST(children_unmap_implicit, "implicit ODP MR: the children of 8 touched chunks are freed after munmap (odp_children drops back, odp_children_freed +8); remapped, the chunks work with the new data")
{
	BODY(t_children_unmap_implicit);
}

ST_TEST(children_unmap_explicit, "explicit 8-chunk ODP MR: its children are freed after munmap of its memory; remapped, it works with the new data")
{
	BODY(t_children_unmap_explicit);
}

ST_TEST(children_reclaim_keeps, "MADV_PAGEOUT and MADV_DONTNEED of touched chunks free no child; the data comes back (PAGEOUT) or reads as zeros (DONTNEED)")
{
	BODY(t_children_reclaim_keeps);
}

ST_TEST(children_remap_race, "two chunks mapped over and unmapped in a loop while RDMA WRITE/READ through the implicit MR hit them: success or remote access error, never a hang or a kernel report")
{
	BODY(t_children_remap_race);
}

ST_TEST(children_bounded_explicit, "odp_max_children 4: a 16-chunk ODP MR written and read chunk by chunk keeps at most 4 children, evicts the others (odp_children_evicted), and every chunk reads back right after its child was evicted")
{
	BODY(t_children_bounded_explicit);
}

ST_TEST(children_bounded_implicit, "odp_max_children 4 with an implicit MR that is also the source: the same bound, the data right")
{
	BODY(t_children_bounded_implicit);
}

ST_TEST(children_bound_default, "the default bound (chunks covering 4x MemTotal): one READ from each chunk of a MAP_NORESERVE reservation 256 chunks larger keeps at most the bound in children, evicts the rest, reads zeros")
{
	BODY(t_children_bound_default);
}

ST_TEST(children_dereg_pending, "16 implicit MRs touch 8 chunks each; the chunks are unmapped and every MR deregistered while the frees are pending: all MRs gone, no kernel report")
{
	BODY(t_children_dereg_pending);
}

ST_TEST(flush_mr_implicit, "RDMA FLUSH of a whole implicit ODP MR with 4 children (global through its rkey, persistent through a window): success, no fault, no child made")
{
	BODY(t_flush_mr_implicit);
}

ST_TEST(flush_mr_explicit_big, "RDMA FLUSH of a whole 6 GiB explicit ODP MR (MAP_NORESERVE, 4 pages touched, 2 above 4 GiB; global and persistent): success, no fault, no child made")
{
	BODY(t_flush_mr_explicit_big);
}
