# A fork bomb: held at the process limit, and the trial goes on.
limit() { grep "^Max $1" /proc/self/limits | awk '{print $(NF-2)}'; }
echo "LIMITS nproc=$(limit processes) nofile=$(limit 'open files') fsize=$(limit 'file size')"
( b() { b | b & }; b ) 2>/tmp/bomb.err
# Watch for three seconds of wall time, not a number of iterations: the bomb's processes share
# the agent's one CPU, and a counted loop could outlast the step's time budget under load.
# Builtins and redirections only (no fork while the bomb runs); /proc/uptime is the clock.
read t0 _ < /proc/uptime; t0=${t0%.*}; now=$t0; peak=0
while [ $((now - t0)) -lt 3 ]; do
  set -- /proc/[0-9]*; [ $# -gt $peak ] && peak=$#
  read now _ < /proc/uptime; now=${now%.*}
done
first=""; [ -s /tmp/bomb.err ] && read -r first < /tmp/bomb.err
echo "PROBE forkbomb blocked peak=$peak first_error=$first"
