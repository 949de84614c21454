"""The seccomp filter every sandboxed agent command runs under, as a classic BPF program
handed to bubblewrap (`--seccomp FD`), which installs it after its own setup, right before it
runs the command (with no_new_privs set).

The filter denies what an unprivileged process has no business doing in a benchmark sandbox
and what has been used to break out of containers: file handles (`open_by_handle_at` through
a bind mount reads the whole host filesystem), ptrace and cross-process memory access, every
mount API, new namespaces (a fresh user namespace hands back every capability), keyrings,
bpf, perf, module and kexec loading, userfaultfd and io_uring (whose operations seccomp never
sees), clock and swap changes, and sockets of families other than unix, IPv4, IPv6 and
netlink (AF_VSOCK reaches the hypervisor whatever the network namespace). Denied calls fail
with EPERM (clone3 with ENOSYS, so libc falls back to clone, whose flags the filter can see);
a call made through another ABI (i386 `int 0x80`, x32) never reaches the table and kills the
process or fails.

Syscall numbers: x86_64 from the kernel's arch/x86/entry/syscalls/syscall_64.tbl (as
<asm/unistd_64.h>), aarch64 from include/uapi/asm-generic/unistd.h; struct seccomp_data and
the return values from include/uapi/linux/seccomp.h, the BPF opcodes from
include/uapi/linux/bpf_common.h, the AUDIT_ARCH_* values from include/uapi/linux/audit.h.
"""

import errno
import os
import platform
import struct

# include/uapi/linux/bpf_common.h
BPF_LD, BPF_JMP, BPF_RET = 0x00, 0x05, 0x06
BPF_W, BPF_ABS, BPF_K = 0x00, 0x20, 0x00
BPF_JEQ, BPF_JGE, BPF_JSET = 0x10, 0x30, 0x40

# include/uapi/linux/seccomp.h
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
NR, ARCH, ARG0 = 0, 4, 16  # offsets in struct seccomp_data (args[0]'s low word, little-endian)

X32_SYSCALL_BIT = 0x40000000  # arch/x86/include/uapi/asm/unistd.h

# include/uapi/linux/sched.h: the namespace flags clone() must not carry (NEWNS, NEWCGROUP,
# NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET, NEWTIME)
CLONE_NEW = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000
CLONE_NEW |= 0x40000000 | 0x00000080

# include/linux/socket.h: the address families a kubectl user needs
ALLOWED_FAMILIES = (1, 2, 10, 16)  # AF_UNIX, AF_INET, AF_INET6, AF_NETLINK

# name: (x86_64, aarch64); None where the architecture has no such call
SYSCALLS: dict[str, tuple[int | None, int | None]] = {
    "open_by_handle_at": (304, 265),
    "name_to_handle_at": (303, 264),
    "ptrace": (101, 117),
    "process_vm_readv": (310, 270),
    "process_vm_writev": (311, 271),
    "pidfd_getfd": (438, 438),
    "kcmp": (312, 272),
    "mount": (165, 40),
    "umount2": (166, 39),
    "pivot_root": (155, 41),
    "chroot": (161, 51),
    "move_mount": (429, 429),
    "open_tree": (428, 428),
    "fsopen": (430, 430),
    "fsconfig": (431, 431),
    "fsmount": (432, 432),
    "fspick": (433, 433),
    "mount_setattr": (442, 442),
    "unshare": (272, 97),
    "setns": (308, 268),
    "keyctl": (250, 219),
    "add_key": (248, 217),
    "request_key": (249, 218),
    "bpf": (321, 280),
    "perf_event_open": (298, 241),
    "userfaultfd": (323, 282),
    "io_uring_setup": (425, 425),
    "io_uring_enter": (426, 426),
    "io_uring_register": (427, 427),
    "kexec_load": (246, 104),
    "kexec_file_load": (320, 294),
    "init_module": (175, 105),
    "finit_module": (313, 273),
    "delete_module": (176, 106),
    "swapon": (167, 224),
    "swapoff": (168, 225),
    "reboot": (169, 142),
    "syslog": (103, 116),
    "acct": (163, 89),
    "settimeofday": (164, 170),
    "clock_settime": (227, 112),
    "clock_adjtime": (305, 266),
    "adjtimex": (159, 171),
    "quotactl": (179, 60),
    "lookup_dcookie": (212, 18),
    "fanotify_init": (300, 262),
    "nfsservctl": (180, 42),
    "vhangup": (153, 58),
    "iopl": (172, None),
    "ioperm": (173, None),
    "uselib": (134, None),
}
DENIED = tuple(SYSCALLS)
CLONE = (56, 220)
CLONE3 = (435, 435)
SOCKET = (41, 198)

# include/uapi/linux/audit.h: AUDIT_ARCH_X86_64, AUDIT_ARCH_AARCH64
ARCHES = {"x86_64": (0xC000003E, 0), "aarch64": (0xC00000B7, 1)}


class Unsupported(Exception):
    """No filter for this machine's architecture."""


def _stmt(code: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, 0, 0, k)


def _jump(code: int, k: int, jt: int, jf: int) -> bytes:
    return struct.pack("<HBBI", BPF_JMP | code | BPF_K, jt, jf, k)


def _load(offset: int) -> bytes:
    return _stmt(BPF_LD | BPF_W | BPF_ABS, offset)


def _ret(value: int) -> bytes:
    return _stmt(BPF_RET | BPF_K, value)


def _deny(nr: int, value: int) -> list[bytes]:
    """if nr == A: return value (else fall through)."""
    return [_jump(BPF_JEQ, nr, 0, 1), _ret(value)]


def program(machine: str | None = None) -> bytes:
    """The filter for `machine` (default: this one) as struct sock_filter[] bytes."""
    machine = machine or platform.machine()
    if machine not in ARCHES:
        raise Unsupported(f"no seccomp filter for {machine} (x86_64 and aarch64 only)")
    audit_arch, column = ARCHES[machine]
    eperm = RET_ERRNO | errno.EPERM
    code = [_load(ARCH), _jump(BPF_JEQ, audit_arch, 1, 0), _ret(RET_KILL_PROCESS), _load(NR)]
    if machine == "x86_64":  # the x32 ABI shares AUDIT_ARCH_X86_64
        code += [_jump(BPF_JGE, X32_SYSCALL_BIT, 0, 1), _ret(eperm)]
    for name in DENIED:
        nr = SYSCALLS[name][column]
        if nr is not None:
            code += _deny(nr, eperm)
    code += _deny(CLONE3[column], RET_ERRNO | errno.ENOSYS)
    # clone(flags, ...): no namespace flags
    code += [
        _jump(BPF_JEQ, CLONE[column], 0, 3),
        _load(ARG0),
        _jump(BPF_JSET, CLONE_NEW, 0, 1),
        _ret(eperm),
    ]
    # socket(family, ...): only the families in ALLOWED_FAMILIES (A holds nr or args[0])
    n = len(ALLOWED_FAMILIES)
    code += [_load(NR), _jump(BPF_JEQ, SOCKET[column], 0, n + 2), _load(ARG0)]
    for i, family in enumerate(ALLOWED_FAMILIES):
        code.append(_jump(BPF_JEQ, family, n - i, 0))
    code += [_ret(RET_ERRNO | errno.EAFNOSUPPORT), _ret(RET_ALLOW)]
    return b"".join(code)


def memfd(machine: str | None = None) -> int:
    """A file descriptor holding the program, positioned at its start, for `--seccomp FD`."""
    fd = os.memfd_create("kubeproof-seccomp", 0)
    os.write(fd, program(machine))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
