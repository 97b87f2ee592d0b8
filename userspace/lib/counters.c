/* counters: /proc/vmstat and RDMA hw_counters. */
#include "counters.h"
#include "nldev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void vmstat_fold(void)
{
	char b[64];
	FILE *f = fopen("/proc/sys/vm/stat_refresh", "r");

	if (!f)
		return;
	/* reading it (root) folds every CPU's pending deltas in */
	if (fread(b, 1, sizeof(b), f) == 0)
		(void)0;
	fclose(f);
}

int vmstat_read(const char *const names[], long long vals[], unsigned int n)
{
	char key[128];
	long long v;
	unsigned int i;
	FILE *f;

	for (i = 0; i < n; i++)
		vals[i] = -1;
	vmstat_fold();
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%127s %lld", key, &v) == 2)
		for (i = 0; i < n; i++)
			if (!strcmp(key, names[i]))
				vals[i] = v;
	fclose(f);
	return 0;
}

long long vmstat(const char *name)
{
	long long v;

	vmstat_read(&name, &v, 1);
	return v;
}

long long meminfo_kib(const char *name)
{
	char line[256];
	size_t n = strlen(name);
	long long found = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':') {
			found = strtoll(line + n + 1, NULL, 10);
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

/* Enough for rxe's counters (about 40 with rxe-odp's). */
#define HW_MAX 128

/* hw counter name of port from sysfs (the core's snapshot), or -1. */
static long long hw_counter_sysfs(const char *dev, unsigned int port, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%u/hw_counters/%s", dev,
		 port, name);
	return file_number(path);
}

int hw_counters_read(const char *dev, unsigned int port, const char *const names[],
		     long long vals[], unsigned int n)
{
	struct nldev_attr *a = calloc(HW_MAX, sizeof(*a));
	int m = a ? nldev_hw_counters(dev, port, a, HW_MAX, NULL, 0) : -1;
	int found = 0;
	unsigned int i;

	if (m > HW_MAX)
		m = HW_MAX;
	if (m < 0) {
		/* sysfs: wait until the core's snapshot is past its lifespan */
		long long life = hw_counter_sysfs(dev, port, "lifespan");

		if (life >= 0)
			usleep((useconds_t)(life + 5) * 1000);
	}
	for (i = 0; i < n; i++) {
		vals[i] = m >= 0 ? nldev_attr_get(a, m, names[i]) : -1;
		if (vals[i] < 0)
			vals[i] = hw_counter_sysfs(dev, port, names[i]);
		found += vals[i] >= 0;
	}
	free(a);
	if (m >= 0)
		return 1;
	return found || !n ? 0 : -1;
}

long long hw_counter_read(const char *dev, unsigned int port, const char *name)
{
	long long v;

	hw_counters_read(dev, port, &name, &v, 1);
	return v;
}

long long mr_driver_attr(const char *dev, uint32_t lkey, const char *name)
{
	char cmd[128], key[96], tok[128], *text = NULL, *rec, *end, *p;
	size_t len = 0;
	long long v = -1;
	FILE *f, *out;

	snprintf(cmd, sizeof(cmd), "rdma resource show mr dev %s -dd 2>/dev/null", dev);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	out = open_memstream(&text, &len);
	if (!out) {
		pclose(f);
		return -1;
	}
	while (fgets(tok, sizeof(tok), f))
		fputs(tok, out);
	pclose(f);
	fclose(out);
	/* One record per MR, each starting with "dev "; the attributes may be
	 * on its first line or on continuation lines. */
	snprintf(key, sizeof(key), " lkey 0x%x ", lkey);
	rec = strstr(text, key);
	if (rec) {
		end = strstr(rec + 1, "dev ");
		if (end)
			*end = 0;
		snprintf(key, sizeof(key), "drv_%s ", name);
		p = strstr(rec, key);
		if (p)
			v = strtoll(p + strlen(key), NULL, 10);
	}
	free(text);
	return v;
}
