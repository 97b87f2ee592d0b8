// SPDX-License-Identifier: GPL-2.0
/*
 * rxe_plant - commits one kernel bug on request, so the test suite can prove
 * that the guest's console gate (tests/vm/console-gate) fails a run on every
 * kind of report the kernel's own checkers print, as they really print it.
 * Test-only: never load it anywhere but a throw-away guest.
 *
 *   echo KIND > /sys/module/rxe_plant/parameters/plant
 *
 * KIND is one of the names in plants[] below.  Each bug is committed in the
 * writer's context; most leave the kernel usable, "list" and "vm" end in
 * BUG() (fatal with oops=panic), so they must come last.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/kfence.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>

/* Opaque to the compiler, so no bad access below is folded away. */
static int plant_index = 4;
module_param(plant_index, int, 0444);

static void plant_kasan(void)
{
	char *p = NULL;
	int i;

	/*
	 * KASAN does not watch KFENCE's objects: had KFENCE sampled this
	 * allocation, KFENCE would report the read instead, and the KASAN
	 * report the test waits for would never come (it happened under load,
	 * when the sampling timer fired during our pr_info).  Take another one:
	 * KFENCE samples one allocation per interval, so the next is KASAN's.
	 */
	for (i = 0; i < 8; i++) {
		p = kmalloc(64, GFP_KERNEL);
		if (!p || !is_kfence_address(p))
			break;
		kfree(p);
		p = NULL;
	}
	if (!p) {
		pr_warn("rxe_plant: kasan: no allocation outside KFENCE\n");
		return;
	}
	kfree(p);
	pr_info("rxe_plant: read after free: %d\n", READ_ONCE(p[8]));
}

static void plant_kfence(void)
{
	unsigned long deadline = jiffies + 30 * HZ;
	char *p;

	/* KFENCE guards one sampled allocation now and then: wait for one. */
	while (time_before(jiffies, deadline)) {
		p = kmalloc(32, GFP_KERNEL);
		if (!p)
			return;
		if (is_kfence_address(p)) {
			kfree(p);
			pr_info("rxe_plant: read after free: %d\n", READ_ONCE(p[0]));
			return;
		}
		kfree(p);
		usleep_range(1000, 2000);
	}
	pr_info("rxe_plant: no KFENCE allocation in 30 s\n");
}

static void plant_warn(void)
{
	WARN(plant_index == 4, "rxe_plant: planted warning\n");
}

static DEFINE_MUTEX(plant_a);
static DEFINE_MUTEX(plant_b);

static void plant_lockdep(void)
{
	/* a before b, then b before a: the order inversion lockdep reports. */
	mutex_lock(&plant_a);
	mutex_lock(&plant_b);
	mutex_unlock(&plant_b);
	mutex_unlock(&plant_a);
	mutex_lock(&plant_b);
	mutex_lock(&plant_a);
	mutex_unlock(&plant_a);
	mutex_unlock(&plant_b);
}

static DEFINE_SPINLOCK(plant_lock);

static void plant_sleep(void)
{
	spin_lock(&plant_lock);
	might_sleep();
	spin_unlock(&plant_lock);
}

static void plant_ubsan(void)
{
	int a[4] = { 1, 2, 3, 4 };

	pr_info("rxe_plant: a[%d] = %d\n", plant_index, a[plant_index]);
}

struct plant_timer {
	struct timer_list t;
};

static void plant_timer_fn(struct timer_list *t)
{
}

static void plant_odebug(void)
{
	struct plant_timer *pt = kzalloc(sizeof(*pt), GFP_KERNEL);

	if (!pt)
		return;
	timer_setup(&pt->t, plant_timer_fn, 0);
	mod_timer(&pt->t, jiffies + 3600 * HZ);
	/* Freed while armed; debugobjects reports it and disarms the timer. */
	kfree(pt);
}

static struct rcu_head plant_rcu;
static atomic_t plant_rcu_queued = ATOMIC_INIT(0);

static void plant_rcu_cb(struct rcu_head *head)
{
}

static void plant_spin(void)
{
	unsigned long end = jiffies + 10 * HZ;

	/*
	 * Soft lockup and RCU stall, with their thresholds lowered first.  RCU
	 * only sees a stall in a grace period: start one that this CPU blocks.
	 */
	if (!atomic_xchg(&plant_rcu_queued, 1))
		call_rcu_hurry(&plant_rcu, plant_rcu_cb);
	preempt_disable();
	while (time_before(jiffies, end))
		cpu_relax();
	preempt_enable();
}

static void plant_hung(void)
{
	/* hung_task_timeout_secs lowered first */
	schedule_timeout_uninterruptible(8 * HZ);
}

static void plant_list(void)
{
	static LIST_HEAD(head);
	static struct list_head entry;

	list_add(&entry, &head);
	list_add(&entry, &head);
}

static void plant_vm(void)
{
	struct page *page = alloc_page(GFP_KERNEL);

	if (!page)
		return;
	/* a reference taken on a page nobody holds */
	set_page_count(page, 0);
	get_page(page);
}

static const struct {
	const char *name;
	void (*fn)(void);
} plants[] = {
	{ "warn", plant_warn },     { "kasan", plant_kasan },   { "kfence", plant_kfence },
	{ "lockdep", plant_lockdep }, { "sleep", plant_sleep }, { "ubsan", plant_ubsan },
	{ "odebug", plant_odebug }, { "spin", plant_spin },     { "hung", plant_hung },
	{ "list", plant_list },     { "vm", plant_vm },
};

static int plant_set(const char *val, const struct kernel_param *kp)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(plants); i++) {
		if (sysfs_streq(val, plants[i].name)) {
			pr_info("rxe_plant: planting %s\n", plants[i].name);
			plants[i].fn();
			return 0;
		}
	}
	return -EINVAL;
}

static const struct kernel_param_ops plant_ops = {
	.set = plant_set,
};
module_param_cb(plant, &plant_ops, NULL, 0200);

MODULE_DESCRIPTION("Commits kernel bugs on request: tests of the console gate only");
MODULE_LICENSE("GPL");
