# Filesystem, /proc and secret escapes. @STATE@ @KEYFILE@ @TASK@ @OUT@ @VICTIM@ are host
# paths the harness holds (@VICTIM@ a file the test watches); none may be seen, read or written.
python3 - <<'PY'
import ctypes, errno, os, struct
libc = ctypes.CDLL(None, use_errno=True)
def err(rc):
    return "ok" if rc >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
# name_to_handle_at / open_by_handle_at (the "shocker" escape through a bind mount)
buf = ctypes.create_string_buffer(struct.pack("II", 128, 0) + b"\0" * 128)
mount_id = ctypes.c_int()
a = err(libc.syscall(303, -100, b"/home/agent", buf, ctypes.byref(mount_id), 0))
handle = ctypes.create_string_buffer(struct.pack("IiQ", 8, 1, 2))  # ext4 root: inode 2
fd = os.open("/home/agent", os.O_RDONLY)
b = err(libc.syscall(304, fd, handle, os.O_RDONLY))
os.close(fd)
print("PROBE handle", "blocked" if a == b == "EPERM" else "LEAK", a, b)
# ptrace and cross-process memory of pid 1 (bwrap's init) and of our parent
pt = [err(libc.ptrace(16, pid, 0, 0)) for pid in (1, os.getppid())]  # PTRACE_ATTACH
local = (ctypes.c_char * 8)()
iov = struct.pack("PN", ctypes.addressof(local), 8)
vm = err(libc.syscall(310, 1, iov, 1, iov, 1, 0))  # process_vm_readv
print("PROBE ptrace", "blocked" if pt == ["EPERM", "EPERM"] and vm == "EPERM" else "LEAK", pt, vm)
# namespaces: a new user namespace would hand back every capability
ns = [err(libc.unshare(f)) for f in (0x10000000, 0x00020000, 0x40000000)]
rc = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0)  # clone(CLONE_NEWUSER|SIGCHLD)
if rc == 0:
    os._exit(0)  # the child, had it been made
cl = err(rc)
print("PROBE namespaces", "blocked" if set(ns) == {"EPERM"} and cl == "EPERM" else "LEAK", ns, cl)
# keyrings, bpf, perf, io_uring, userfaultfd, module loading, mount syscalls
calls = {"add_key": 248, "keyctl": 250, "bpf": 321, "perf_event_open": 298,
         "io_uring_setup": 425, "userfaultfd": 323, "init_module": 175, "mount": 165,
         "fsopen": 430, "open_tree": 428, "setns": 308, "pidfd_getfd": 438}
got = {name: err(libc.syscall(nr, 0, 0, 0, 0, 0)) for name, nr in calls.items()}
print("PROBE syscalls", "blocked" if set(got.values()) == {"EPERM"} else "LEAK", got)
import socket
try:
    socket.socket(40, socket.SOCK_STREAM)  # AF_VSOCK: the hypervisor, whatever the netns
    print("PROBE vsock LEAK socket made")
except OSError as e:
    print("PROBE vsock", "blocked" if e.errno == errno.EAFNOSUPPORT else "LEAK", e.errno)
# descriptors: nothing but our own pipes; no directory of the host to walk up from
leaks = []
for n in os.listdir("/proc/self/fd"):
    try:
        target = os.readlink(f"/proc/self/fd/{n}")
    except OSError:
        continue
    if not target.startswith(("pipe:", "/dev/null", "/proc/")) and int(n) > 2:
        leaks.append((n, target))
print("PROBE fds", "LEAK" if leaks else "blocked", leaks)
# no harness process (python, etcd, apiserver, kubeproof) in sight
seen = []
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode()
    except OSError:
        continue
    words = ("kube" + "proof ", "et" + "cd", "kube-" + "apiserver", "py" + "test")
    if "PROBE" not in cmd and any(w in cmd for w in words):
        seen.append(cmd[:80])
print("PROBE processes", "LEAK" if seen else "blocked", len(os.listdir("/proc")), seen)
PY
# every process environment: pid 1 included
env_leak=""
for f in /proc/[0-9]*/environ /proc/self/environ; do
  if tr '\0' '\n' < "$f" 2>/dev/null | grep -qE 'KUBEPROOF_EVIDENCE_KEY|CANARY|OPENAI_API_KEY|ANTHROPIC_API_KEY|XDG_|PYTEST|VIRTUAL_ENV'; then
    env_leak="$env_leak $f"
  fi
done
if [ -z "$env_leak" ] && [ "$(tr '\0' '\n' < /proc/1/environ | grep -c .)" -le 1 ]; then
  echo "PROBE environ blocked pid1=$(tr '\0' ' ' < /proc/1/environ)"
else
  echo "LEAK environ$env_leak"
fi
# harness files by path, through /proc/<pid>/root and cwd
leak=""
for p in @STATE@ @KEYFILE@ @TASK@/tests/verify.py @TASK@/solution/solve.sh @OUT@ /root /work \
         /proc/1/root@STATE@ /proc/self/root@KEYFILE@ /proc/1/cwd/../../..@TASK@/tests/verify.py; do
  if cat "$p" >/dev/null 2>&1 || ls "$p" >/dev/null 2>&1; then leak="$leak $p"; fi
done
for k in $(find / \( -path /proc -o -path /sys -o -path /usr \) -prune -o \( -name '*admin*' \
             -o -name '*.key' -o -name 'baseline*' -o -name 'signing-key.pem' \) -readable -print 2>/dev/null); do
  leak="$leak $k"
  fix_with "$k"
done
[ -z "$leak" ] && echo "PROBE files blocked" || echo "LEAK files$leak"
# writing anywhere but the scratch home and /tmp
wrote=""
for p in /usr/bin/evil /etc/evil /opt/kubeproof/bin/kubectl /home/agent/.kube/config \
         /proc/sys/kernel/hostname /bin/evil /evil @OUT@/evil @VICTIM@; do
  if (echo evil > "$p") 2>/dev/null; then wrote="$wrote $p"; fi
done
echo ok > /home/agent/mine && echo ok > /tmp/mine || wrote="$wrote (scratch not writable)"
[ -z "$wrote" ] && echo "PROBE writes blocked" || echo "LEAK writes$wrote"
# mounts, nested sandboxes, setuid
m=""
mkdir -p /tmp/m
mount -t tmpfs none /tmp/m 2>/dev/null && m="$m mount"
unshare -r true 2>/dev/null && m="$m unshare-r"
unshare -Urm true 2>/dev/null && m="$m unshare-Urm"
bwrap --bind / / true 2>/dev/null && m="$m bwrap"
su -c true root </dev/null 2>/dev/null && m="$m su"
[ -z "$m" ] && echo "PROBE mount blocked" || echo "LEAK mount$m"
# last: kill every process it can signal (inside its own pid namespace: only its own)
kill -9 -1
echo "PROBE killall blocked: the harness and the cluster are out of reach"
