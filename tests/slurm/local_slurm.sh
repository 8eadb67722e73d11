#!/bin/bash
# A one-node Slurm on localhost for tests: munge, slurmctld and slurmd
# configured in a folder of their own (no systemd, no cgroups).
# Usage: local_slurm.sh start DIR   (prints the SLURM_CONF path on success)
#        local_slurm.sh stop DIR
# Needs root (the daemons run as root here) and Debian's slurmctld, slurmd,
# slurm-client and munge. Exit 77 when they are missing (the test skips).
set -euo pipefail
action=$1 dir=$2
if [ "$action" = stop ]; then
  for p in slurmd slurmctld munged; do
    [ -f "$dir/$p.pid" ] && kill "$(cat "$dir/$p.pid")" 2>/dev/null || true
  done
  exit 0
fi
for tool in munged slurmctld slurmd srun sinfo; do
  command -v "$tool" >/dev/null || { echo "no $tool: install slurmctld slurmd slurm-client munge"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "the local Slurm needs root"; exit 77; }
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
host=$(hostname -s)
# Two free ports, so two of these (two test runs on one machine) do not meet.
read -r ctld_port d_port < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("", 0))
print(*[x.getsockname()[1] for x in s])')
# munge: its own socket and key, so a system munged (if any) is not touched.
[ -f "$dir/munge/munge.key" ] || { dd if=/dev/urandom of="$dir/munge/munge.key" bs=1 count=128 2>/dev/null; chmod 400 "$dir/munge/munge.key"; }
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed"
cat > "$dir/slurm.conf" <<CONF
ClusterName=kopt-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$dir/slurm.conf
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  state=$(sinfo -h -o %T 2>/dev/null || true)  # not piped into grep -q: see slurm_run_test.sh
  if grep -qE '^(idle|mixed|allocated)' <<<"$state"; then echo "$SLURM_CONF"; exit 0; fi
  sleep 0.5
done
echo "Slurm did not come up; logs in $dir"; sinfo 2>&1 || true; tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" 2>/dev/null
exit 1
