#!/bin/busybox sh
# Stage 2, PID 1 inside the guest (host root read-only + tmpfs overlay).
# Mounts the usual filesystems, sets up RDMA as asked on the kernel command line
# (vmrxe=ours|stock|none), runs the job script (vmcmd=), prints VMRUN_EXIT=<rc>
# and powers off.  Everything goes to the serial console, which the host keeps.
B=/bin/busybox
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
$B mount -t tmpfs -o mode=755 tmpfs /run
$B mkdir -p /dev/pts /dev/shm
$B mount -t devpts devpts /dev/pts
$B mount -t tmpfs tmpfs /dev/shm
$B mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
$B mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
$B hostname vm
$B ip link set lo up
ulimit -l unlimited
ulimit -n 65536
vmcmd=
for a in $($B cat /proc/cmdline); do
	case "$a" in
	vmcmd=*) vmcmd=${a#vmcmd=} ;;
	# a kernel whose modules are not in the host's /lib/modules (the debug
	# kernel's live in its build cache): modprobe finds them through a link
	vmmods=*) $B ln -sfn "${a#vmmods=}" "/lib/modules/$($B uname -r)" ;;
	esac
done
echo "VMRUN_STAGE2_START uptime=$($B cut -d' ' -f1 /proc/uptime)"
cd /root 2>/dev/null || cd /
/bin/bash "$vmcmd" </dev/null 2>&1
rc=$?
echo "VMRUN_EXIT=$rc uptime=$($B cut -d' ' -f1 /proc/uptime)"
$B sync
$B poweroff -f
