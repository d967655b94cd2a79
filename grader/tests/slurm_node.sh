#!/usr/bin/env bash
# A real single-node Slurm for the tests (Debian's slurm-wlm and munge), in a folder of its own:
#   slurm_node.sh start DIR   starts munged, slurmctld and slurmd there, and prints the line to eval
#                             (export SLURM_CONF=DIR/slurm.conf); fails, with their logs on
#                             standard error, if the node does not come up
#   slurm_node.sh stop DIR    stops all three (every daemon started with DIR's files)
# Sockets, state and logs are all under DIR, and the ports are two free ones, so it disturbs no
# Slurm the machine has, nor one a run before it left behind.
set -uo pipefail
action=$1 dir=$2
case "$action" in
  start)
    pkill -f "$dir/" 2>/dev/null  # a node an interrupted run left in this folder
    mkdir -p "$dir/state" "$dir/spool"
    # Two ports nothing listens on (a fixed pair clashed with a node another run left).
    port=""
    for _ in $(seq 1 50); do
      candidate=$((20000 + RANDOM % 20000 * 2))
      ss -ltn 2>/dev/null | grep -qE ":($candidate|$((candidate + 1)))\b" || { port=$candidate; break; }
    done
    [ -n "$port" ] || { echo "no two free ports for the Slurm node" >&2; exit 1; }
    host=$(hostname -s)
    cpus=$(nproc)
    head -c 1024 /dev/urandom >"$dir/munge.key"
    chmod 400 "$dir/munge.key"
    munged --force --socket="$dir/munge.socket" --key-file="$dir/munge.key" --pid-file="$dir/munged.pid" \
      --log-file="$dir/munged.log" --seed-file="$dir/munge.seed" || { cat "$dir/munged.log" >&2; exit 1; }
    cat >"$dir/slurm.conf" <<CONF
ClusterName=workbooktest
SlurmctldHost=$host
SlurmUser=$(id -un)
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host CPUs=$cpus RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF="$dir/slurm.conf"
    slurmctld -f "$SLURM_CONF" || { cat "$dir/slurmctld.log" >&2; exit 1; }
    slurmd -f "$SLURM_CONF" || { cat "$dir/slurmd.log" >&2; exit 1; }
    for _ in $(seq 1 60); do
      sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && { echo "export SLURM_CONF=$SLURM_CONF"; exit 0; }
      sleep 1
    done
    { echo "the Slurm node did not come up:"; sinfo 2>&1; tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log"; } >&2; exit 1 ;;
  stop)
    # By what each was started with, not by pid files: slurmd and munged did not always leave one.
    pkill -f "$dir/" 2>/dev/null
    sleep 1
    pkill -KILL -f "$dir/" 2>/dev/null
    exit 0 ;;
esac
echo "usage: slurm_node.sh start|stop DIR" >&2; exit 2
