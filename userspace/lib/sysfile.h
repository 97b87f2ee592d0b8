/*
 * sysfile: the small writes to kernel files the tools make to set up a
 * measurement: a module parameter, memory.reclaim, joining a cgroup.
 * Built into each tool that lists it in LIB (../common.mk).
 */
#ifndef RXE_ODP_SYSFILE_H
#define RXE_ODP_SYSFILE_H

/* Write val (no newline added) to path in one write(2): 0, or -errno of
 * the open or of the write (e.g. -EAGAIN from memory.reclaim when it could
 * not reclaim all it was asked for). */
int sysfile_write(const char *path, const char *val);

/* Move the calling process into the cgroup v2 directory dir: 0 or -errno. */
int cgroup_join(const char *dir);

#endif
