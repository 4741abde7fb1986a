#!/bin/sh
# t0930-batch: sharded analysis and exact merges, and cluster/loopscope-batch
# locally and on a real single-node Slurm (slurm-wlm and munge, started
# here as root and stopped at the end, even on failure).
#
# The oracle is `loopscope analyze` of each whole bundle and `merge` of
# those profiles: every sharded or batched result must equal it byte for
# byte.  Shard counts come from testdata/lp_threads.c: main and the 4
# threads it creates are 5 threads, so it is cut into min(n, 5) shards;
# the other programs are single-threaded (one shard).  Task counts: 6
# single-threaded bundles + 4 shards of lp_threads = 10 tasks.
. "$LSTOP/tests/lib.sh"
TD=$BUILD/testdata
BATCH=$LSTOP/cluster/loopscope-batch
cd "$T_TMP" || exit 1
t_need_recorder

PROGS="calls nested lp_trips lp_calls lp_recur recursion"
for p in $PROGS lp_threads; do
	"$LOOPSCOPE" record -q -o "$T_TMP/$p.lsc" -- "$TD/$p" >/dev/null 2>&1
	"$LOOPSCOPE" analyze -q -o "w-$p.lsprof" "$T_TMP/$p.lsc"
done
t_eq "plan: lp_threads has 5 threads: 4 shards of at most 4" 4 \
	"$("$LOOPSCOPE" analyze --plan-shards=4 lp_threads.lsc)"
t_eq "plan: ... and 5 of at most 8" 5 "$("$LOOPSCOPE" analyze --plan-shards=8 lp_threads.lsc)"
t_eq "plan: calls is one thread: 1 shard" 1 "$("$LOOPSCOPE" analyze --plan-shards=4 calls.lsc)"

T=$T_TMP/lp_threads.lsc
for k in 0 1 2 3; do
	"$LOOPSCOPE" analyze -q --shard=$k/4 -o s$k.lsprof "$T"
done
t_eq "4 shards hold the 5 threads" 5 "$(cat s0.lsprof s1.lsprof s2.lsprof s3.lsprof | grep -c '^thread	')"
t_ok "merge of the 4 shards" "$LOOPSCOPE" merge -o m1.lsprof s0.lsprof s1.lsprof s2.lsprof s3.lsprof
t_ok "... is the whole bundle's profile, byte for byte" cmp w-lp_threads.lsprof m1.lsprof
"$LOOPSCOPE" merge -o m23.lsprof s3.lsprof s1.lsprof
"$LOOPSCOPE" merge -o m2.lsprof s2.lsprof m23.lsprof s0.lsprof
t_ok "... in another order and grouping too" cmp w-lp_threads.lsprof m2.lsprof
"$LOOPSCOPE" merge -o m20.lsprof s2.lsprof s0.lsprof
"$LOOPSCOPE" merge -o m3.lsprof m23.lsprof m20.lsprof
t_ok "... and as two merged pairs" cmp w-lp_threads.lsprof m3.lsprof
t_grep "the merge holds the whole bundle: shard 0 of 1" "^part	0	[0-9a-f-]*	0	1$" m3.lsprof
t_eq "a shard holds shard 2 of 4" 1 "$(grep -c '^part	0	[0-9a-f-]*	2	4$' s2.lsprof)"

t_fail "a shard merged twice is refused" "$LOOPSCOPE" merge -o x.lsprof s1.lsprof m23.lsprof
t_grep "... naming both inputs" "^loopscope: cannot merge 'm23.lsprof': it holds shard 1/4 of bundle [0-9a-f-]*, which 's1.lsprof' holds already" last.err
t_fail "a shard and the whole bundle are refused" "$LOOPSCOPE" merge -o x.lsprof w-lp_threads.lsprof s0.lsprof
t_grep "... as parts cut two ways" "cannot merge 's0.lsprof': it holds shard 0/4 of bundle .* and 'w-lp_threads.lsprof' bundle .*: parts of one bundle cut two ways may overlap" last.err
t_fail "--shard=4/4 is refused" "$LOOPSCOPE" analyze --shard=4/4 "$T"
t_grep "... with the valid range" "^loopscope: --shard: '4/4' is not <k>/<n> with k from 0 to n-1 and n from 1 to 65536$" last.err

# A per-CPU bundle (lsb_percpu, as t0205): its threads cross streams.
"$LOOPSCOPE" record -q --no-retcomp -o nr.lsc -- "$TD/lp_threads" >/dev/null 2>&1
"$BUILD/tests/lsb_percpu" -c 2 -m pc.lsc nr.lsc >/dev/null 2>&1
t_eq "plan: a per-CPU bundle is one shard" 1 "$("$LOOPSCOPE" analyze --plan-shards=4 pc.lsc)"
t_fail "a per-CPU bundle is not cut" "$LOOPSCOPE" analyze --shard=1/2 pc.lsc
t_grep "... and says why" "^loopscope: 'pc.lsc' has per-CPU streams, whose threads cross streams: it is analyzed whole (--shard=0/1)$" last.err

# The oracle of the batches: analyze + merge of the 7 whole bundles.
set --
for p in $PROGS lp_threads; do set -- "$@" "w-$p.lsprof"; done
"$LOOPSCOPE" merge -o ref.lsprof "$@"
for p in $PROGS lp_threads; do echo "$T_TMP/$p.lsc"; done >list

# --local: the same tasks on this machine's cores.
t_ok "batch --local" "$BATCH" --local --shards=4 --loopscope="$LOOPSCOPE" -o loc.lsprof @list
t_grep "... 10 tasks" "^loopscope-batch: 10 tasks, 10 to run (0 done before)$" last.err
t_ok "... the profile of analyze + merge, byte for byte" cmp ref.lsprof loc.lsprof
rm loc.lsprof.d/part/6-2.lsprof
head -c 300 loc.lsprof.d/part/1-0.lsprof >cut && mv cut loc.lsprof.d/part/1-0.lsprof
t_ok "batch --local again, a partial profile lost and one cut" \
	"$BATCH" --local --shards=4 --loopscope="$LOOPSCOPE" -o loc.lsprof @list
t_grep "... redoes those two only" "^loopscope-batch: 10 tasks, 2 to run (8 done before)$" last.err
t_ok "... the same profile" cmp ref.lsprof loc.lsprof
printf '#!/bin/sh\ncase "$*" in *--shard=*) exit 3 ;; esac\nexec "%s" "$@"\n' "$LOOPSCOPE" >broken
chmod +x broken
rm loc.lsprof.d/part/0-0.lsprof
t_fail "a task that fails" "$BATCH" --local --shards=4 --loopscope="$T_TMP/broken" -o loc.lsprof @list
t_grep "... is reported with its log" "^loopscope-batch: task 0 ($T_TMP/calls.lsc, shard 0/1) failed: see $T_TMP/loc.lsprof.d/log/task-0.log$" last.err
t_fail "another bundle list in the same work directory" \
	"$BATCH" --local --loopscope="$LOOPSCOPE" -o loc.lsprof calls.lsc
t_grep "... is refused" "holds the tasks of other bundles or shards: use another --work" last.err

# Real Slurm: one node of this machine's CPUs, in a directory of ours.
slurm_skip() {
	echo "ok 1000 # skip Slurm: $1"
	exit 0
}
[ "$(id -u)" = 0 ] || slurm_skip "not root"
for c in munged slurmctld slurmd sbatch squeue scancel; do
	command -v $c >/dev/null 2>&1 || slurm_skip "no $c (Debian packages slurm-wlm, munge)"
done
S=$T_TMP/slurm
mkdir -p "$S/state" "$S/spool"
stop_slurm() {
	for f in "$S/slurmd.pid" "$S/slurmctld.pid" "$S/munged.pid"; do
		[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	sleep 1
}
trap stop_slurm EXIT INT TERM
dd if=/dev/urandom of="$S/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$S/munge.key"
# Ports of this test's own (from its pid), apart from a system Slurm's.
port=$((20000 + ($$ % 20000) * 2))
H=$(hostname -s)
cat >"$S/slurm.conf" <<EOF
ClusterName=t0930
SlurmctldHost=$H
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$S/munge.sock
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
NodeName=$H CPUs=$(getconf _NPROCESSORS_ONLN) State=UNKNOWN
PartitionName=t0930 Nodes=$H Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$S/slurm.conf"
munged -f --socket="$S/munge.sock" --key-file="$S/munge.key" --pid-file="$S/munged.pid" \
	--seed-file="$S/munge.seed" --log-file="$S/munged.log" || slurm_skip "munged does not start"
slurmctld -f "$S/slurm.conf" || slurm_skip "slurmctld does not start"
slurmd -f "$S/slurm.conf" || slurm_skip "slurmd does not start"
n=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
	n=$((n + 1))
	[ $n -lt 30 ] || slurm_skip "the node never became idle (see $S/slurmctld.log)"
	sleep 1
done

t_ok "batch on Slurm" "$BATCH" --shards=4 --loopscope="$LOOPSCOPE" -p t0930 -t 10:00 \
	-o slurm.lsprof @list
t_grep "... one job array of 10 tasks" "^loopscope-batch: job array [0-9]*: tasks 0,1,2,3,4,5,6,7,8,9$" last.err
t_ok "... the profile of analyze + merge, byte for byte" cmp ref.lsprof slurm.lsprof

# A task cancelled on purpose: shard 2 of lp_threads (task 8) waits for
# its cancel; the wrapper says its array task (an array task's
# SLURM_JOB_ID may be the whole array's).
cat >hold <<EOF
#!/bin/sh
case "\$*" in
*--shard=2/4*lp_threads.lsc) echo "\${SLURM_ARRAY_JOB_ID}_\${SLURM_ARRAY_TASK_ID}" >"$T_TMP/held.tmp"; mv "$T_TMP/held.tmp" "$T_TMP/held"; sleep 120 ;;
esac
exec "$LOOPSCOPE" "\$@"
EOF
chmod +x hold
"$BATCH" --shards=4 --loopscope="$T_TMP/hold" -o held.lsprof @list 2>held.err &
bp=$!
n=0
while [ ! -s held ] && [ $n -lt 60 ]; do n=$((n + 1)); sleep 1; done
t_ok "the held task runs" test -s held
scancel "$(cat held)"
wait $bp
t_eq "batch exits 1 when a task was cancelled" 1 $?
t_grep "... and names it with its log" "^loopscope-batch: task 8 ($T_TMP/lp_threads.lsc, shard 2/4) failed: see $T_TMP/held.lsprof.d/log/task-8.log$" held.err
t_ok "... no merged profile" test ! -e held.lsprof
t_ok "a re-run" "$BATCH" --shards=4 --loopscope="$LOOPSCOPE" -o held.lsprof @list
t_grep "... runs the cancelled task only" "^loopscope-batch: 10 tasks, 1 to run (9 done before)$" last.err
t_ok "... and completes the profile of analyze + merge" cmp ref.lsprof held.lsprof
