# Memory, /tmp and the scratch home filled: each stopped at its limit.
python3 -c 'x = b"x" * (12 << 30); print(len(x))' >/dev/null 2>&1
echo "PROBE memory exit=$?"
dd if=/dev/zero of=/tmp/fill bs=1M count=600 2>/dev/null
echo "PROBE tmp exit=$? size=$(du -m /tmp/fill | cut -f1)"
rm -f /tmp/fill
(dd if=/dev/zero of="$HOME/one" bs=1M count=400 2>/dev/null)
echo "PROBE filesize exit=$? size=$(du -m "$HOME/one" | cut -f1)"
rm -f "$HOME/one"
echo "PROBE disk starting"
n=0
while [ $n -lt 8 ]; do
  dd if=/dev/zero of="$HOME/fill$n" bs=1M count=200 2>/dev/null
  n=$((n + 1))
  echo "PROBE disk wrote $n"
done
echo "LEAK disk never stopped"
