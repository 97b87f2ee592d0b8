/* sysfile: writes to kernel files (module parameters, cgroup files). */
#include "sysfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int sysfile_write(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

int cgroup_join(const char *dir)
{
	char path[512], pid[32];
	int n;

	n = snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	return sysfile_write(path, pid);
}
