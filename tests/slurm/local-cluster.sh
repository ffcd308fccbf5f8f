#!/usr/bin/env bash
# Bring up / tear down a throw-away single-node SLURM cluster on this machine.
#
#   local-cluster.sh start  <statedir>   # start munged + slurmctld + slurmd, wait for node idle
#   local-cluster.sh stop   <statedir>   # cancel jobs, stop the daemons started from <statedir>
#   local-cluster.sh env    <statedir>   # print the env line(s) clients need
#   local-cluster.sh status <statedir>   # sinfo/squeue of the running cluster
#
# Requirements: slurm-wlm (tested 22.05.8) and munge installed (apt), run as root,
# no systemd / cgroups needed. Nothing is apt-installed here.
#
# Config location: everything is generated under <statedir>/etc.  Clients must
# use the same config.  `start` prints `export SLURM_CONF=<statedir>/etc/slurm.conf`
# (use it for sbatch/squeue/scancel/sinfo launched by the caller), AND, because
# snakemake's slurm-jobstep plugin strips every SLURM_* variable (SLURM_CONF
# included) before calling the inner `srun` inside the job, it also symlinks
# /etc/slurm/{slurm,gres,cgroup}.conf -> <statedir>/etc/...  (the compiled-in
# default location).  Set LOCAL_SLURM_ETC_LINK=0 to skip the symlinks (then
# snakemake jobs will fail in `srun` unless /etc/slurm already has a matching
# config).  An existing non-symlink /etc/slurm/slurm.conf is never overwritten
# (start fails instead).
#
# Tunables (env):
#   LOCAL_SLURM_CTLD_PORT  (default 16817)   LOCAL_SLURM_SLURMD_PORT (default 16818)
#   LOCAL_SLURM_CPUS       (default $(nproc))
#   LOCAL_SLURM_REALMEM    (MB; default max(MemTotal-headroom, 32768); memory is
#                           not consumable and SlurmdParameters=config_overrides,
#                           so over-stating is harmless and lets --mem=16000 jobs
#                           run on small CI runners)
#   LOCAL_SLURM_GPUS       (fake GPU count, default 2)
#   LOCAL_SLURM_TIMEOUT    (seconds to wait for the node to become idle, default 60)
#   LOCAL_SLURM_ETC_LINK   (1/0, default 1, see above)
set -euo pipefail

PROG=$(basename "$0")
die() { echo "$PROG: ERROR: $*" >&2; exit 1; }
log() { echo "$PROG: $*" >&2; }

usage() {
    echo "usage: $PROG {start|stop|env|status} <statedir>" >&2
    exit 2
}

[[ $# -eq 2 ]] || usage
[[ $EUID -eq 0 ]] || die "must run as root (daemons run as SlurmUser=root)"
unset LOCAL_SLURM_STATEDIR   # our process marker; must not leak in from the caller
CMD=$1
mkdir -p "$2"
S=$(cd "$2" && pwd -P)

ETC=$S/etc
CONF=$ETC/slurm.conf
MARKER="LOCAL_SLURM_STATEDIR=$S"

# Unix socket paths (munge socket, slurmstepd sockets in SlurmdSpoolDir) are
# limited to 108 bytes. If <statedir> is long, put those under a short /tmp dir.
rundir() {
    if [[ -f $S/rundir ]]; then
        cat "$S/rundir"
    elif (( ${#S} <= 48 )); then
        echo "$S/run"
    else
        mktemp -d /tmp/lslurm.XXXXXX
    fi
}

SBIN_PATHS=/usr/sbin:/sbin:/usr/bin:/bin
export PATH="$PATH:$SBIN_PATHS"

# alive = exists and is not a zombie (in containers PID 1 may reap slowly)
pid_alive() {
    [[ -n ${1:-} ]] && kill -0 "$1" 2>/dev/null || return 1
    local st
    st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
    [[ -n $st && $st != Z && $st != X ]]
}

# kill the process whose pid is in file $1 (name $2), TERM then KILL
kill_pidfile() {
    local pidfile=$1 name=$2 pid i
    [[ -f $pidfile ]] || return 0
    pid=$(cat "$pidfile" 2>/dev/null || true)
    if pid_alive "$pid"; then
        # make sure it is really the daemon we started (pid reuse)
        if tr '\0' '\n' 2>/dev/null < "/proc/$pid/environ" | grep -qxF "$MARKER"; then
            kill -TERM "$pid" 2>/dev/null || true
            for i in $(seq 1 50); do pid_alive "$pid" || break; sleep 0.2; done
            if pid_alive "$pid"; then
                log "$name ($pid) did not exit on TERM, sending KILL"
                kill -KILL "$pid" 2>/dev/null || true
            fi
        else
            log "pid $pid in $pidfile is not a $name started from $S, leaving it alone"
        fi
    fi
    rm -f "$pidfile"
}

# processes carrying our marker in their environment (daemons and slurmstepd)
marked_pids() {
    local p
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        [[ $p == "$$" ]] && continue
        if tr '\0' '\n' 2>/dev/null < "/proc/$p/environ" | grep -qxF "$MARKER"; then
            echo "$p"
        fi
    done
}

# processes of this cluster's jobs: submitted with SLURM_CONF=$CONF in their environment (sbatch exports the
# submitter's) and running inside a job. A batch job's own `snakemake --executor slurm-jobstep` can outlive its
# cancelled job and the daemons, waiting for files in a folder the caller has removed.
job_pids() {
    local p environ
    for p in /proc/[0-9]*; do
        p=${p#/proc/}
        [[ $p == "$$" ]] && continue
        environ=$(tr '\0' '\n' 2>/dev/null < "/proc/$p/environ") || continue
        if grep -qxF "SLURM_CONF=$CONF" <<< "$environ" && grep -q '^SLURM_JOB_ID=' <<< "$environ"; then
            echo "$p"
        fi
    done
}

port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

cmd_stop() {
    export SLURM_CONF=$CONF
    # cancel all jobs first so that slurmstepd cleans up the job processes
    if [[ -f $S/slurmctld.pid ]] && pid_alive "$(cat "$S/slurmctld.pid")" && [[ -f $CONF ]]; then
        if [[ -n $(squeue -h -o %i 2>/dev/null) ]]; then
            scancel --quiet --signal=KILL --full $(squeue -h -o %i 2>/dev/null) 2>/dev/null || true
            scancel --quiet $(squeue -h -o %i 2>/dev/null) 2>/dev/null || true
            local i
            for i in $(seq 1 40); do
                [[ -z $(squeue -h -t R,CG,CF -o %i 2>/dev/null) ]] && break
                sleep 0.25
            done
        fi
    fi
    kill_pidfile "$S/slurmd.pid" slurmd
    kill_pidfile "$S/slurmctld.pid" slurmctld
    # leftover slurmstepd (and anything else carrying our marker), by pid
    local p left
    left=$({ marked_pids; job_pids; } | sort -u | grep -v -x -e "$(cat "$S/munged.pid" 2>/dev/null || echo x)" || true)
    for p in $left; do kill -TERM "$p" 2>/dev/null || true; done
    [[ -n $left ]] && sleep 1
    for p in $left; do pid_alive "$p" && kill -KILL "$p" 2>/dev/null || true; done
    kill_pidfile "$S/munged.pid" munged
    # remove /etc/slurm symlinks that point into this statedir
    local f
    for f in slurm.conf gres.conf cgroup.conf; do
        if [[ -L /etc/slurm/$f && $(readlink "/etc/slurm/$f") == "$ETC/$f" ]]; then
            rm -f "/etc/slurm/$f"
        fi
    done
    if [[ -f $S/rundir ]]; then
        local rd
        rd=$(cat "$S/rundir")
        [[ $rd == /tmp/lslurm.* ]] && rm -rf "$rd"
        rm -f "$S/rundir"
    fi
    return 0
}

write_config() {
    local cpus realmem memtotal_mb headroom gpus ctld_port slurmd_port rd
    rd=$1
    cpus=${LOCAL_SLURM_CPUS:-$(nproc)}
    memtotal_mb=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 ))
    headroom=$(( memtotal_mb / 20 )); (( headroom < 512 )) && headroom=512
    realmem=$(( memtotal_mb - headroom ))
    (( realmem < 32768 )) && realmem=32768
    realmem=${LOCAL_SLURM_REALMEM:-$realmem}
    gpus=${LOCAL_SLURM_GPUS:-2}
    (( gpus >= 1 )) || die "LOCAL_SLURM_GPUS must be >= 1"
    ctld_port=${LOCAL_SLURM_CTLD_PORT:-16817}
    slurmd_port=${LOCAL_SLURM_SLURMD_PORT:-16818}

    cat > "$ETC/slurm.conf" <<EOF
# generated by $PROG for statedir $S
ClusterName=localcluster
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$rd/munge.socket
StateSaveLocation=$S/ctld
SlurmdSpoolDir=$rd/slurmd
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# no cgroups, no systemd, no accounting
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobContainerType=job_container/none
MpiDefault=none
SwitchType=switch/none
# scheduling: cores are consumable, memory is not
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
# do not drain the node if the config over-states memory/cpus
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=30
SlurmctldTimeout=30
MessageTimeout=10
InactiveLimit=0
# keep finished jobs visible to squeue for 5 min: snakemake's slurm plugin
# polls with growing intervals (up to 180 s) and, with --slurm-status-command
# squeue, needs MinJobAge >= 3 * --slurm-init-seconds-before-status-checks
# or it falls back to sacct (which fails without accounting).
MinJobAge=300
MailProg=/bin/true
KillWait=5
Waittime=0
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$realmem Gres=gpu:$gpus State=UNKNOWN
PartitionName=cpu Nodes=localhost Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=localhost MaxTime=INFINITE State=UP
EOF
    # Fake GPUs. slurm 22.05 drops file-less gpu GRES ("Removing file-less GPU
    # gpu:(null) from final GRES list"), so give it device files: char devices
    # cloned from /dev/null (1,3); if mknod is not allowed fall back to plain
    # files (slurmd logs "not a valid character or block device" but still
    # registers the count; jobs then get an empty CUDA_VISIBLE_DEVICES).
    local i last=$(( gpus - 1 ))
    rm -rf "$S/dev"; mkdir -p "$S/dev"
    for i in $(seq 0 "$last"); do
        mknod "$S/dev/fakegpu$i" c 1 3 2>/dev/null || : > "$S/dev/fakegpu$i"
    done
    cat > "$ETC/gres.conf" <<EOF
AutoDetect=off
NodeName=localhost Name=gpu File=$S/dev/fakegpu$( (( last > 0 )) && echo "[0-$last]" || echo 0)
EOF
    # not used by the plugins above, but keeps slurmd quiet if it looks
    cat > "$ETC/cgroup.conf" <<EOF
CgroupAutomount=no
ConstrainCores=no
ConstrainRAMSpace=no
ConstrainDevices=no
EOF
}

link_etc() {
    [[ ${LOCAL_SLURM_ETC_LINK:-1} == 1 ]] || return 0
    mkdir -p /etc/slurm
    local f
    for f in slurm.conf gres.conf cgroup.conf; do
        if [[ -e /etc/slurm/$f || -L /etc/slurm/$f ]]; then
            if [[ -L /etc/slurm/$f ]]; then
                rm -f "/etc/slurm/$f"      # stale link from an earlier run
            elif [[ $f == slurm.conf ]]; then
                die "/etc/slurm/slurm.conf exists and is not a symlink; refusing to replace it (set LOCAL_SLURM_ETC_LINK=0 to skip)"
            else
                log "warning: /etc/slurm/$f exists, leaving it alone"
                continue
            fi
        fi
        ln -s "$ETC/$f" "/etc/slurm/$f"
    done
}

tail_logs() {
    local f
    for f in "$S"/log/*.log; do
        [[ -f $f ]] || continue
        echo "----- tail $f -----" >&2
        tail -n 30 "$f" >&2
    done
}

cmd_start() {
    # idempotent: tear down whatever this statedir started before
    cmd_stop
    local rd t0
    t0=$(date +%s)
    rd=$(rundir)
    [[ $rd == /tmp/lslurm.* ]] && echo "$rd" > "$S/rundir"
    mkdir -p "$ETC" "$S/ctld" "$S/log" "$rd/slurmd"
    chmod 700 "$rd"
    rm -f "$S"/log/*.log

    local ctld_port=${LOCAL_SLURM_CTLD_PORT:-16817} slurmd_port=${LOCAL_SLURM_SLURMD_PORT:-16818}
    port_in_use "$ctld_port" && die "port $ctld_port (SlurmctldPort) already in use; set LOCAL_SLURM_CTLD_PORT"
    port_in_use "$slurmd_port" && die "port $slurmd_port (SlurmdPort) already in use; set LOCAL_SLURM_SLURMD_PORT"

    write_config "$rd"
    link_etc

    export SLURM_CONF=$CONF
    export "$MARKER"

    # ---- munge: private instance, private key, private socket ----
    local key=$S/munge.key
    if [[ ! -s $key ]]; then
        mungekey --create --keyfile="$key" --bits=1024 2>/dev/null \
            || dd if=/dev/urandom of="$key" bs=128 count=1 status=none
    fi
    chmod 600 "$key"
    rm -f "$rd/munge.socket" "$rd/munge.socket.lock"
    munged --force \
        --socket="$rd/munge.socket" \
        --key-file="$key" \
        --pid-file="$S/munged.pid" \
        --log-file="$S/log/munged.log" \
        --seed-file="$S/munged.seed" \
        </dev/null >>"$S/log/daemons-stdio.log" 2>&1 \
        || { tail_logs; die "munged failed to start"; }
    local i
    for i in $(seq 1 50); do
        munge -n -S "$rd/munge.socket" 2>/dev/null | unmunge -S "$rd/munge.socket" >/dev/null 2>&1 && break
        sleep 0.1
    done
    munge -n -S "$rd/munge.socket" | unmunge -S "$rd/munge.socket" >/dev/null \
        || { tail_logs; die "munge round trip failed"; }

    # ---- slurm daemons (they daemonize and write their pid files) ----
    # (stdio detached so a caller capturing our output never waits on them)
    slurmctld -c -f "$CONF" </dev/null >>"$S/log/daemons-stdio.log" 2>&1 \
        || { tail_logs; die "slurmctld failed to start"; }
    slurmd -N localhost -f "$CONF" </dev/null >>"$S/log/daemons-stdio.log" 2>&1 \
        || { tail_logs; die "slurmd failed to start"; }

    local timeout=${LOCAL_SLURM_TIMEOUT:-60} state="" resumed=0
    while :; do
        state=$(sinfo -h -N -n localhost -o %T 2>/dev/null | head -n1 || true)
        case $state in
            idle|idle\*) [[ $state == idle ]] && break ;;
            down*|drain*|drained*)
                if (( ! resumed )); then
                    scontrol update nodename=localhost state=resume 2>/dev/null || true
                    resumed=1
                fi ;;
        esac
        if (( $(date +%s) - t0 > timeout )); then
            echo "node state: '${state}'" >&2
            sinfo -N -l >&2 || true
            scontrol show node localhost >&2 || true
            tail_logs
            die "node 'localhost' not idle after ${timeout}s"
        fi
        sleep 0.5
    done
    log "cluster up in $(( $(date +%s) - t0 ))s (statedir $S)"
    cmd_env
}

cmd_env() {
    echo "export SLURM_CONF=$CONF"
}

case $CMD in
    start) cmd_start ;;
    stop) cmd_stop; log "stopped (statedir $S)" ;;
    env) cmd_env ;;
    status) export SLURM_CONF=$CONF; sinfo -N -l; squeue ;;
    *) usage ;;
esac
