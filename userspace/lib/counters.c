/* counters: /proc/vmstat and RDMA hw_counters. */
#include "counters.h"

#include <stdio.h>
#include <string.h>

long long vmstat(const char *name)
{
	char key[128];
	long long v, found = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fscanf(f, "%127s %lld", key, &v) == 2)
		if (!strcmp(key, name)) {
			found = v;
			break;
		}
	fclose(f);
	return found;
}

long long file_number(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

long long hw_counter_read(const char *dev, unsigned int port, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/hw_counters/%s", dev,
		 port, name);
	return file_number(path);
}
