#!/bin/bash
# Install Debian's slurm-wlm + munge and start a one-node Slurm cluster on this machine, for the
# real-Slurm submit test (test/submit/slurm-e2e.test.ts). Idempotent: a second run finds the
# packages installed and the daemons up, and only re-checks. Needs root. Exit 0 when `sinfo`
# shows the node idle (or mixed/allocated: already running jobs count as up).
#
# The config is deliberately cgroup-free (proctrack/linuxproc, task/none, no accounting) so it
# runs in containers and VMs without systemd or a writable cgroup tree.
set -euo pipefail

if [ "$(id -u)" != "0" ]; then
  echo "setup-slurm.sh: must run as root (it installs packages and starts daemons)" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# slurm-wlm + munge for the cluster; openssh-server + rsync so the submit tests can also reach this
# "cluster" over SSH like a login node (they start their own sshd on loopback; none is started here).
need=0
for bin in slurmctld slurmd sinfo munged rsync; do
  command -v "$bin" >/dev/null 2>&1 || need=1
done
[ -x /usr/sbin/sshd ] || need=1
if [ "$need" = 1 ]; then
  apt-get update -qq
  # policy-rc.d: keep the packages' init scripts from starting daemons with the stock config.
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
  chmod +x /usr/sbin/policy-rc.d
  apt-get install -y -qq --no-install-recommends slurm-wlm munge openssh-server openssh-client rsync >/dev/null
  rm -f /usr/sbin/policy-rc.d
fi

host="$(hostname -s)"
cpus="$(nproc)"
mem_mb="$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)"

# munge: one key, owned by the munge user; start the daemon unless it answers already.
install -d -o munge -g munge -m 0700 /etc/munge /var/lib/munge /var/log/munge
install -d -o munge -g munge -m 0755 /run/munge
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
fi
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged --force
  for _ in $(seq 1 20); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.5; done
fi

install -d -m 0755 /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
conf=/etc/slurm/slurm.conf
new_conf="$(cat <<EOF
# Written by gym scripts/setup-slurm.sh: a one-node test cluster.
ClusterName=gym
SlurmctldHost=${host}
SlurmUser=root
AuthType=auth/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
MinJobAge=300
KillWait=10
NodeName=${host} CPUs=${cpus} RealMemory=${mem_mb} State=UNKNOWN
PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
)"
changed=0
if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$new_conf" ]; then
  printf '%s\n' "$new_conf" > "$conf"
  changed=1
fi

running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

if [ "$changed" = 1 ]; then
  # A new config: restart whatever this script started before (by its pid file).
  for pidf in /run/slurmd.pid /run/slurmctld.pid; do
    if running "$pidf"; then kill "$(cat "$pidf")" && sleep 1; fi
  done
fi
running /run/slurmctld.pid || slurmctld
running /run/slurmd.pid || slurmd

for _ in $(seq 1 60); do
  state="$(sinfo -h -n "$host" -o '%t' 2>/dev/null | head -n 1 || true)"
  case "$state" in
    idle|mix|alloc) echo "slurm: node ${host} is ${state} (${cpus} CPUs)"; exit 0 ;;
    down*|drain*) scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true ;;
  esac
  sleep 1
done
echo "setup-slurm.sh: node ${host} did not become idle; see /var/log/slurm/*.log" >&2
sinfo >&2 || true
exit 1
