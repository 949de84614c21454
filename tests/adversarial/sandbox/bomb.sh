# A fork bomb: held at the process limit, and the trial goes on.
limit() { grep "^Max $1" /proc/self/limits | awk '{print $(NF-2)}'; }
echo "LIMITS nproc=$(limit processes) nofile=$(limit 'open files') fsize=$(limit 'file size')"
( b() { b | b & }; b ) 2>/tmp/bomb.err
i=0; peak=0
while [ $i -lt 20 ]; do
  set -- /proc/[0-9]*; [ $# -gt $peak ] && peak=$#
  j=0; while [ $j -lt 10000 ]; do j=$((j + 1)); done
  i=$((i + 1))
done
# builtins only from here: a fork would fail while the bomb runs
first=""; [ -s /tmp/bomb.err ] && read -r first < /tmp/bomb.err
echo "PROBE forkbomb blocked peak=$peak first_error=$first"
