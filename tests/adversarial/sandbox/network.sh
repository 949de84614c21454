# Who the agent is and where it can connect. @OTHER@: another cluster's apiserver host on this
# machine; @GATEWAY@: this machine's default gateway.
server=$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')
echo "IDENTITY uid=$(id -u) gid=$(id -g) groups=$(id -G) user=$(id -un)"
grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs|Seccomp):' /proc/self/status | tr -d '\t' | sed 's/^/STATUS /'
echo "ROUTES $(tail -n +2 /proc/net/route | wc -l) $(tail -n +2 /proc/net/ipv6_route 2>/dev/null | grep -vc ' lo$')"
/usr/sbin/ip -o route show table all 2>/dev/null | grep -v ' dev lo ' | sed 's/^/ROUTE /'
echo "LINKS $(/usr/sbin/ip -o link 2>/dev/null | awk -F': ' '{print $2}' | tr '\n' ' ')"
kubectl get --raw /version >/dev/null 2>&1 && echo "PROBE apiserver reachable $server"
SERVER="$server" python3 - <<'PY'
import errno, os, socket
from urllib.parse import urlsplit
own = urlsplit(os.environ["SERVER"]).hostname
targets = [(own, 2379), (own, 2380), (own, 10257), (own, 10259), ("127.0.0.1", 2379),
           ("127.0.0.1", 6443), ("@OTHER@", 6443), ("@OTHER@", 2379), ("@OTHER@", 10257),
           ("@GATEWAY@", 80), ("1.1.1.1", 443), ("8.8.8.8", 53), ("2606:4700:4700::1111", 443)]
for host, port in targets:
    try:
        socket.create_connection((host, port), timeout=3).close()
        print("LEAK net", f"{host}:{port}", "connected")
    except OSError as e:
        print("PROBE net", f"{host}:{port}", "blocked", errno.errorcode.get(e.errno, e))
try:
    socket.getaddrinfo("example.com", 443)
    print("LEAK dns resolved")
except OSError as e:
    print("PROBE dns blocked", e)
PY
# the harness's forwarder: a flood of connections is refused past its cap, and it still serves
SERVER="$server" python3 - <<'PY'
import os, socket, time
from urllib.parse import urlsplit
url = urlsplit(os.environ["SERVER"])
held = []
for _ in range(200):
    try:
        held.append(socket.create_connection((url.hostname, url.port), timeout=3))
    except OSError:
        break
time.sleep(1)
refused = 0
for s in held:
    s.setblocking(False)
    try:
        if s.recv(1) == b"":  # closed at once: over the harness's cap
            refused += 1
    except BlockingIOError:
        pass  # still open, the apiserver waiting for a TLS hello
    except OSError:
        refused += 1
print("FLOOD held", len(held) - refused, "refused", refused)
for s in held:
    s.close()
PY
kubectl get --raw /version >/dev/null 2>&1 && echo "PROBE flood blocked apiserver still served"
