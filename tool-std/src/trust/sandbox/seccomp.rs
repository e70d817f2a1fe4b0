//! The sandbox's seccomp filters: the system calls a command may not make answer `EPERM`
//! (its tools fail with "Operation not permitted" instead of being killed).
//!
//! Three filters are installed; the kernel runs them all and the strictest answer wins.
//!
//! - The **shared** filter, compiled by `seccompiler`, checks the architecture (a call of
//!   another ABI, such as 32-bit `int 0x80`, kills the process) and refuses the listed calls,
//!   some only with given arguments (a socket family, a mode).
//! - The **namespace** filter, also compiled by `seccompiler`, refuses mounts and new
//!   namespaces ([`MOUNTS`], and `unshare` and `clone` with a namespace flag, a rule per
//!   flag). It is a filter of its own because the sandbox makes mounts itself before the
//!   command starts: a call that mounts installs it after its mounts (the calls that mount
//!   nothing inherit it from their spawner thread).
//! - The **fallbacks** filter, seven instructions written here, refuses every x32 call
//!   (numbers with bit 30 set, which would otherwise reach the same kernel entry points under
//!   other numbers) and answers `clone3` and `openat2` with `ENOSYS`: their flags sit in
//!   memory a filter cannot read, and `ENOSYS` makes the C library fall back to `clone` and
//!   `openat`, whose flags the other filters check. It stays hand-written because
//!   `seccompiler` matches a call's number only for equality, and the x32 calls are a range.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
};

/// `fchmodat2` (Linux 6.6) and `setxattrat` (Linux 6.13) have one number on every
/// architecture since the table was unified; the `libc` crate does not name them on all of
/// them, and a call a filter leaves out is a call it allows.
const SYS_FCHMODAT2: i64 = 452;
const SYS_SETXATTRAT: i64 = 463;

/// Refused whatever their arguments.
const ALWAYS: &[i64] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_bpf,
    libc::SYS_kexec_load,
    libc::SYS_kexec_file_load,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    libc::SYS_reboot,
    libc::SYS_swapon,
    libc::SYS_swapoff,
    libc::SYS_acct,
    libc::SYS_chroot,
    libc::SYS_open_by_handle_at,
    libc::SYS_settimeofday,
    libc::SYS_clock_settime,
    libc::SYS_sethostname,
    libc::SYS_setdomainname,
    libc::SYS_vhangup,
    libc::SYS_setxattr,
    libc::SYS_lsetxattr,
    libc::SYS_fsetxattr,
    SYS_SETXATTRAT,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

/// Mounts and namespaces, refused whatever their arguments by the namespace filter (the
/// calls the sandbox itself makes before the command starts).
const MOUNTS: &[i64] = &[
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_move_mount,
    libc::SYS_open_tree,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_setns,
];

/// The sockets a command may make: its network, and whether `AF_UNIX` sockets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sockets {
    pub(crate) net: Net,
    /// Whether `socket(AF_UNIX)` is allowed (`socketpair` always is): a named or abstract
    /// socket reaches the host's services (the user's systemd manager, D-Bus, Docker, ssh and
    /// gpg agents), which act outside the sandbox.
    pub(crate) unix: bool,
}

impl Sockets {
    /// A dense index, for tables kept per kind of call.
    pub(crate) fn index(self) -> usize {
        self.net as usize * 2 + usize::from(self.unix)
    }

    /// How many values [`index`](Self::index) takes.
    pub(crate) const COUNT: usize = 6;
}

/// What the network is for a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Net {
    /// Only `AF_UNIX` sockets.
    Off,
    /// `AF_UNIX`, and TCP sockets of `AF_INET`/`AF_INET6` (which Landlock lets connect to the
    /// proxy's port only): no UDP, raw or packet sockets, so not even DNS leaves.
    Proxy,
    /// Every socket but `AF_VSOCK`, packet and raw ones.
    On,
}

/// The namespace flags of `clone` (all but `CLONE_NEWTIME`, whose bit is part of `clone`'s
/// exit signal).
const CLONE_NAMESPACES: u32 = (libc::CLONE_NEWNS
    | libc::CLONE_NEWCGROUP
    | libc::CLONE_NEWUTS
    | libc::CLONE_NEWIPC
    | libc::CLONE_NEWUSER
    | libc::CLONE_NEWPID
    | libc::CLONE_NEWNET) as u32;

/// The namespace flags of `unshare`: all of them.
const UNSHARE_NAMESPACES: u32 = CLONE_NAMESPACES | libc::CLONE_NEWTIME as u32;

const SET_ID: &[u64] = &[libc::S_ISUID as u64, libc::S_ISGID as u64];

/// Installs every filter on this thread (and so on everything it `exec`s and starts);
/// `no_new_privs` is set first by `seccompiler`.
pub(super) fn apply(sockets: Sockets) -> Result<(), String> {
    install_shared(sockets)?;
    install_namespaces()?;
    install_fallbacks()
}

/// Installs the shared filter for `sockets` on this thread; each program is compiled once
/// per process.
pub(super) fn install_shared(sockets: Sockets) -> Result<(), String> {
    static COMPILED: [OnceLock<Result<BpfProgram, String>>; Sockets::COUNT] =
        [const { OnceLock::new() }; Sockets::COUNT];
    let program = COMPILED[sockets.index()]
        .get_or_init(|| compile(sockets))
        .as_ref()
        .map_err(Clone::clone)?;
    install(program)
}

/// Installs the namespace filter on this thread.
pub(super) fn install_namespaces() -> Result<(), String> {
    static PROGRAM: OnceLock<Result<BpfProgram, String>> = OnceLock::new();
    let program = PROGRAM
        .get_or_init(namespaces)
        .as_ref()
        .map_err(Clone::clone)?;
    install(program)
}

/// Installs the fallbacks filter on this thread.
pub(super) fn install_fallbacks() -> Result<(), String> {
    static FALLBACKS: OnceLock<BpfProgram> = OnceLock::new();
    install(FALLBACKS.get_or_init(fallbacks))
}

fn install(program: &BpfProgram) -> Result<(), String> {
    seccompiler::apply_filter(program).map_err(|e| format!("seccomp: {e}"))
}

fn target() -> Result<TargetArch, String> {
    if cfg!(target_arch = "x86_64") {
        Ok(TargetArch::x86_64)
    } else if cfg!(target_arch = "aarch64") {
        Ok(TargetArch::aarch64)
    } else {
        Err("the seccomp filter is written for x86_64 and aarch64 only".to_owned())
    }
}

fn cond(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompCondition, String> {
    SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value).map_err(|e| e.to_string())
}

fn rule(conditions: Vec<SeccompCondition>) -> Result<SeccompRule, String> {
    SeccompRule::new(conditions).map_err(|e| e.to_string())
}

/// `arg & bit == bit`, one rule per bit.
fn any_bit(arg: u8, bits: &[u64]) -> Result<Vec<SeccompRule>, String> {
    bits.iter()
        .map(|&b| rule(vec![cond(arg, SeccompCmpOp::MaskedEq(b), b)?]))
        .collect()
}

/// The rules of the shared filter: system call number to the rules refusing it (an empty
/// list refuses it always).
pub(super) fn rules(sockets: Sockets) -> Result<BTreeMap<i64, Vec<SeccompRule>>, String> {
    use SeccompCmpOp::{Eq, MaskedEq, Ne};
    let mut rules = BTreeMap::new();
    for &nr in ALWAYS {
        rules.insert(nr, Vec::new());
    }

    let unix = libc::AF_UNIX as u64;
    let mut socket = Vec::new();
    if !sockets.unix {
        socket.push(rule(vec![cond(0, Eq, unix)?])?);
    }
    match sockets.net {
        // Nothing but (maybe) AF_UNIX.
        Net::Off => socket.push(rule(vec![cond(0, Ne, unix)?])?),
        // TCP only: Landlock's port rule governs TCP sockets and nothing else, so MPTCP,
        // SCTP and the like (any protocol but 0 and IPPROTO_TCP) would pass it.
        Net::Proxy => {
            socket.push(rule(vec![
                cond(0, Ne, unix)?,
                cond(0, Ne, libc::AF_INET as u64)?,
                cond(0, Ne, libc::AF_INET6 as u64)?,
            ])?);
            for family in [libc::AF_INET, libc::AF_INET6] {
                for kind in [
                    libc::SOCK_DGRAM,
                    libc::SOCK_RAW,
                    libc::SOCK_RDM,
                    libc::SOCK_SEQPACKET,
                    // SOCK_PACKET, long deprecated (and refused for AF_INET by the kernel).
                    10,
                ] {
                    socket.push(rule(vec![
                        cond(0, Eq, family as u64)?,
                        cond(1, MaskedEq(0xf), kind as u64)?,
                    ])?);
                }
                socket.push(rule(vec![
                    cond(0, Eq, family as u64)?,
                    cond(2, Ne, 0)?,
                    cond(2, Ne, libc::IPPROTO_TCP as u64)?,
                ])?);
            }
        }
        // No VSOCK, packet or raw IP sockets.
        Net::On => {
            for family in [libc::AF_VSOCK, libc::AF_PACKET] {
                socket.push(rule(vec![cond(0, Eq, family as u64)?])?);
            }
            for family in [libc::AF_INET, libc::AF_INET6] {
                socket.push(rule(vec![
                    cond(0, Eq, family as u64)?,
                    cond(1, MaskedEq(0xf), libc::SOCK_RAW as u64)?,
                ])?);
            }
        }
    }
    rules.insert(libc::SYS_socket, socket);
    // A connected pair of AF_UNIX sockets reaches nothing outside.
    rules.insert(libc::SYS_socketpair, vec![rule(vec![cond(0, Ne, unix)?])?]);

    // Personality: only the query (0xffffffff) and the default (PER_LINUX, 0).
    rules.insert(
        libc::SYS_personality,
        vec![rule(vec![cond(0, Ne, 0)?, cond(0, Ne, 0xffff_ffff)?])?],
    );

    // Set-user-ID and set-group-ID modes, by chmod or by creating a file or node with them.
    rules.insert(libc::SYS_fchmod, any_bit(1, SET_ID)?);
    rules.insert(libc::SYS_fchmodat, any_bit(2, SET_ID)?);
    rules.insert(SYS_FCHMODAT2, any_bit(2, SET_ID)?);
    rules.insert(libc::SYS_mknodat, any_bit(2, SET_ID)?);
    #[cfg(target_arch = "x86_64")]
    {
        rules.insert(libc::SYS_chmod, any_bit(1, SET_ID)?);
        rules.insert(libc::SYS_creat, any_bit(1, SET_ID)?);
        rules.insert(libc::SYS_mknod, any_bit(1, SET_ID)?);
    }
    let creating = |flags_arg: u8, mode_arg: u8| -> Result<Vec<SeccompRule>, String> {
        SET_ID
            .iter()
            .map(|&b| {
                rule(vec![
                    cond(
                        flags_arg,
                        MaskedEq(libc::O_CREAT as u64),
                        libc::O_CREAT as u64,
                    )?,
                    cond(mode_arg, MaskedEq(b), b)?,
                ])
            })
            .collect()
    };
    rules.insert(libc::SYS_openat, creating(2, 3)?);
    #[cfg(target_arch = "x86_64")]
    rules.insert(libc::SYS_open, creating(1, 2)?);
    Ok(rules)
}

/// The shared filter, compiled.
pub(super) fn compile(sockets: Sockets) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(
        rules(sockets)?,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        target()?,
    )
    .map_err(|e| format!("seccomp: {e}"))?;
    filter.try_into().map_err(|e| format!("seccomp: {e}"))
}

// Classic BPF, as the kernel's `linux/filter.h` spells it.
const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
const RET_K: u16 = 0x06;

/// The offset of the call's number in the kernel's `struct seccomp_data`.
const NR: u32 = 0;

/// The namespace filter, compiled: each of [`MOUNTS`] refused, `unshare` with any of
/// [`UNSHARE_NAMESPACES`] and `clone` with any of [`CLONE_NAMESPACES`] refused (a rule per
/// flag), everything else allowed; another architecture kills the process, as the shared
/// filter's check does.
pub(super) fn namespaces() -> Result<BpfProgram, String> {
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> =
        MOUNTS.iter().map(|&nr| (nr, Vec::new())).collect();
    for (nr, flags) in [
        (libc::SYS_unshare, UNSHARE_NAMESPACES),
        (libc::SYS_clone, CLONE_NAMESPACES),
    ] {
        let bits: Vec<u64> = (0..32)
            .map(|bit| 1u64 << bit)
            .filter(|b| u64::from(flags) & b != 0)
            .collect();
        rules.insert(nr, any_bit(0, &bits)?);
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        target()?,
    )
    .map_err(|e| format!("seccomp: {e}"))?;
    filter.try_into().map_err(|e| format!("seccomp: {e}"))
}

fn ret(k: u32) -> sock_filter {
    sock_filter {
        code: RET_K,
        jt: 0,
        jf: 0,
        k,
    }
}

/// The fallbacks filter: x32 calls refused, `clone3` and `openat2` answered `ENOSYS`.
pub(super) fn fallbacks() -> BpfProgram {
    const X32_BIT: u32 = 0x4000_0000;
    let jump = |code, jt, jf, k| sock_filter { code, jt, jf, k };
    vec![
        jump(LD_W_ABS, 0, 0, NR),                           // 0: the call's number
        jump(JGE_K, 3, 0, X32_BIT),                         // 1: x32 -> 5
        jump(JEQ_K, 3, 0, libc::SYS_clone3 as u32),         // 2: -> 6
        jump(JEQ_K, 2, 0, libc::SYS_openat2 as u32),        // 3: -> 6
        ret(libc::SECCOMP_RET_ALLOW),                       // 4
        ret(libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),  // 5
        ret(libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32), // 6
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSET_K: u16 = 0x45;

    // Offsets in `struct seccomp_data`: the architecture, and the low 32 bits of the first
    // argument (on a little-endian machine, which `target` checks).
    const ARCH: u32 = 4;
    const ARG0_LOW: u32 = 16;

    /// The architecture `target` names, as `seccomp_data` gives it (`AUDIT_ARCH_*`).
    const AUDIT_ARCH: u32 = if cfg!(target_arch = "aarch64") {
        183 | 0xc000_0000
    } else {
        62 | 0xc000_0000
    };

    /// Runs `program` as the kernel would on a call of `nr` with first argument `arg0`
    /// (the others 0), for the classic BPF instructions filters are made of; the answer it
    /// returns.
    fn run(program: &[sock_filter], arch: u32, nr: i64, arg0: u64) -> u32 {
        const ALU_AND_K: u16 = 0x54;
        const JA: u16 = 0x05;
        const JGT_K: u16 = 0x25;
        let load = |offset: u32| match offset {
            NR => nr as u32,
            ARCH => arch,
            ARG0_LOW => arg0 as u32,
            20 => (arg0 >> 32) as u32,
            8..=15 | 24..=63 => 0,
            other => panic!("no load at {other}"),
        };
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let op = &program[pc];
            let jump = |taken: bool| pc + 1 + usize::from(if taken { op.jt } else { op.jf });
            pc = match op.code {
                LD_W_ABS => {
                    acc = load(op.k);
                    pc + 1
                }
                ALU_AND_K => {
                    acc &= op.k;
                    pc + 1
                }
                JA => pc + 1 + op.k as usize,
                JEQ_K => jump(acc == op.k),
                JGT_K => jump(acc > op.k),
                JGE_K => jump(acc >= op.k),
                JSET_K => jump(acc & op.k != 0),
                RET_K => return op.k,
                other => panic!("unexpected instruction {other:#x}"),
            };
        }
    }

    const ALLOW: u32 = libc::SECCOMP_RET_ALLOW;
    const EPERM: u32 = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;

    #[test]
    fn the_shared_filter_compiles_with_and_without_the_network() {
        for net in [Net::Off, Net::Proxy, Net::On] {
            for unix in [false, true] {
                let program = compile(Sockets { net, unix }).unwrap();
                assert!(program.len() > 50, "{}", program.len());
                assert!(program.len() < 4096, "within the kernel's limit");
            }
        }
        let rules = rules(Sockets {
            net: Net::Off,
            unix: false,
        })
        .unwrap();
        for nr in [
            libc::SYS_ptrace,
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
            libc::SYS_bpf,
            SYS_SETXATTRAT,
        ] {
            assert!(
                rules.get(&nr).is_some_and(Vec::is_empty),
                "{nr} always refused"
            );
        }
        for nr in MOUNTS.iter().chain([&libc::SYS_unshare, &libc::SYS_clone]) {
            assert!(!rules.contains_key(nr), "{nr} is the namespace filter's");
        }
    }

    #[test]
    fn the_namespace_filter_refuses_mounts_and_new_namespaces_only() {
        let program = namespaces().unwrap();
        let answer = |nr, arg0| run(&program, AUDIT_ARCH, nr, arg0);
        for &nr in MOUNTS {
            assert_eq!(answer(nr, 0), EPERM, "{nr}");
        }
        for flag in [
            libc::CLONE_NEWNS,
            libc::CLONE_NEWCGROUP,
            libc::CLONE_NEWUTS,
            libc::CLONE_NEWIPC,
            libc::CLONE_NEWUSER,
            libc::CLONE_NEWPID,
            libc::CLONE_NEWNET,
        ] {
            let flag = flag as u64;
            assert_eq!(answer(libc::SYS_unshare, flag), EPERM, "unshare {flag:#x}");
            assert_eq!(answer(libc::SYS_clone, flag | 17), EPERM, "clone {flag:#x}");
            // The upper half of the argument does not hide a flag.
            assert_eq!(answer(libc::SYS_unshare, flag | 1 << 40), EPERM);
        }
        let time = libc::CLONE_NEWTIME as u64;
        assert_eq!(
            answer(libc::SYS_unshare, time),
            EPERM,
            "unshare CLONE_NEWTIME"
        );
        // Without a namespace flag: a thread, a fork (SIGCHLD is 17, which shares
        // CLONE_NEWTIME's bit in clone), the file table.
        let thread = (libc::CLONE_VM | libc::CLONE_FS | libc::CLONE_THREAD) as u64;
        assert_eq!(answer(libc::SYS_clone, thread), ALLOW);
        assert_eq!(answer(libc::SYS_clone, 17 | time), ALLOW);
        assert_eq!(answer(libc::SYS_unshare, libc::CLONE_FILES as u64), ALLOW);
        for nr in [
            libc::SYS_read,
            libc::SYS_openat,
            libc::SYS_execve,
            libc::SYS_ptrace,
        ] {
            assert_eq!(answer(nr, u64::MAX), ALLOW, "{nr} is not this filter's");
        }
        // Another architecture is killed, as the shared filter kills it.
        assert_eq!(
            run(&program, 0x4000_0003, libc::SYS_read, 0),
            libc::SECCOMP_RET_KILL_PROCESS
        );
    }

    #[test]
    fn the_fallbacks_filter_refuses_x32_and_sends_clone3_and_openat2_back() {
        let program = fallbacks();
        let answer = |nr| run(&program, AUDIT_ARCH, nr, 0);
        let enosys = libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32;
        assert_eq!(answer(libc::SYS_clone3), enosys);
        assert_eq!(answer(libc::SYS_openat2), enosys);
        assert_eq!(answer(0x4000_0000 | libc::SYS_read), EPERM);
        assert_eq!(answer(libc::SYS_read), ALLOW);
    }
}
