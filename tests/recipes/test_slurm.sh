#!/usr/bin/env bash
# tests/recipes/test_slurm.sh BIN SRC - the Slurm recipe on a single-host cluster: starts its
# own munged, slurmctld and slurmd (Debian's slurm-wlm and munge; ports and folders of its
# own under $TMPDIR), submits scripts/recipes/slurm_sweep.sbatch as a 3-task job array,
# waits, joins the shards with sweep-merge, and checks the table equals a local -j 2 sweep
# byte for byte. Exit 77 (skipped) when not root, the daemons are not installed or slurmd
# cannot start for want of cgroups.
set -uo pipefail
bin=$1 src=$2
for p in slurmctld slurmd munged; do
  command -v "$p" > /dev/null || [ -x "/usr/sbin/$p" ] || { echo "skip: no $p"; exit 77; }
done
[ "$(id -u)" -eq 0 ] || { echo "skip: the daemons need root"; exit 77; }
export PATH=$PATH:/usr/sbin
work=$(mktemp -d "${TMPDIR:-/tmp}/sits_slurm_XXXXXX")
chmod 755 "$work"
cleanup() {
  for f in "$work"/slurmctld.pid "$work"/slurmd.pid "$work"/munged.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2> /dev/null
  done
  sleep 0.5
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  tail -n 20 "$work"/*.log 2> /dev/null
  exit 1
}
# A machine without cgroups (a minimal chroot, a container without /sys/fs/cgroup) cannot run
# slurmd: that is the machine, not the recipe, so the test is skipped with the daemon's reason.
skip_without_cgroups() {
  local why
  why=$(grep -ih cgroup "$work"/slurmd.log "$work"/slurmctld.log 2> /dev/null | tail -n 1)
  if [ -n "$why" ] || [ -z "$(ls -A /sys/fs/cgroup 2> /dev/null)" ]; then
    echo "skip: slurmd needs cgroups this machine lacks (${why:-/sys/fs/cgroup is empty or absent})"
    exit 77
  fi
}
start=$(date +%s)
# munge: a key and a daemon of our own (root needs --force), on our socket
dd if=/dev/urandom of="$work/munge.key" bs=1024 count=1 2> /dev/null
chmod 400 "$work/munge.key"
munged --force --key-file="$work/munge.key" --socket="$work/munge.socket" \
  --pid-file="$work/munged.pid" --seed-file="$work/munge.seed" --log-file="$work/munge.log" ||
  fail "munged did not start"
host=$(hostname -s)
cpus=$(nproc)
base=$((20000 + $$ % 20000))
mkdir -p "$work/state" "$work/spool"
cat > "$work/slurm.conf" << CONF
ClusterName=sitstest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldPort=$base
SlurmdPort=$((base + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || {
  skip_without_cgroups
  fail "slurmd did not start"
}
for _ in $(seq 1 60); do
  sinfo -h -o %t 2> /dev/null | grep -q idle && break
  sleep 0.5
done
sinfo -h -o %t | grep -q idle || {
  skip_without_cgroups
  fail "the node never became idle"
}
scen=$src/configs/scenarios/hotspot_3node_step.cfg
jid=$(cd "$work" && SITSENERGY=$bin OUT=$work/table.csv \
  SWEEP_ARGS="$scen --vary ambient_c=20:45:9 --set duration_s=10" \
  sbatch --parsable --array=0-2 --output="$work/task-%a.out" --export=ALL \
  "$src/scripts/recipes/slurm_sweep.sbatch") || fail "sbatch refused the array"
for _ in $(seq 1 240); do
  [ "$(squeue -h -j "$jid" 2> /dev/null | wc -l)" -eq 0 ] && break
  sleep 0.5
done
[ "$(squeue -h -j "$jid" 2> /dev/null | wc -l)" -eq 0 ] || fail "the array did not finish in 120 s"
"$bin" sweep-merge "$work/merged.csv" "$work"/table.csv.part*.csv || fail "sweep-merge failed"
"$bin" sweep "$scen" --vary ambient_c=20:45:9 --set duration_s=10 -j 2 -o "$work/local.csv" \
  2> /dev/null || fail "the local sweep failed"
cmp "$work/merged.csv" "$work/local.csv" || fail "the Slurm table differs from the local one"
echo "slurm recipe: ok, 3 tasks, 9 rows, $(($(date +%s) - start)) s with the daemons' start"
