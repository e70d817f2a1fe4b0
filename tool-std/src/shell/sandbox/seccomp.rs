//! The sandbox's seccomp filters: the system calls a command may not make answer `EPERM`
//! (its tools fail with "Operation not permitted" instead of being killed).
//!
//! Two filters are installed. The first, compiled by `seccompiler`, checks the architecture
//! (a call of another ABI, such as 32-bit `int 0x80`, kills the process) and refuses the
//! listed calls, some only with given arguments (a socket family, a namespace flag, a mode).
//! The second, four instructions written here, refuses every x32 call (numbers with bit 30
//! set, which would otherwise reach the same kernel entry points under other numbers) and
//! answers `clone3` and `openat2` with `ENOSYS`: their flags sit in memory a filter cannot
//! read, and `ENOSYS` makes the C library fall back to `clone` and `openat`, whose flags the
//! first filter checks.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch, sock_filter,
};

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
    #[cfg(target_arch = "x86_64")]
    libc::SYS_iopl,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_ioperm,
];

/// Mounts and namespaces, refused whatever their arguments: the calls the sandbox itself
/// makes before the command starts, so their rules are a part of their own
/// ([`Part::Namespaces`]).
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

/// Which rules of the first filter a compiled program holds. The kernel's cost of installing
/// a filter grows with its length, so the part every call shares is installed once on a
/// thread that starts the calls' threads, which inherit it (see `spawner`), and a call that
/// mounts adds the namespace part after its mounts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    /// Every rule.
    All,
    /// Every rule but those on mounts and namespaces.
    Shared,
    /// The rules on mounts and namespaces only.
    Namespaces,
}

/// The namespace flags of `unshare` (all of them) and `clone` (all but `CLONE_NEWTIME`,
/// whose bit is part of `clone`'s exit signal).
const CLONE_NAMESPACES: &[u64] = &[
    libc::CLONE_NEWNS as u64,
    libc::CLONE_NEWCGROUP as u64,
    libc::CLONE_NEWUTS as u64,
    libc::CLONE_NEWIPC as u64,
    libc::CLONE_NEWUSER as u64,
    libc::CLONE_NEWPID as u64,
    libc::CLONE_NEWNET as u64,
];

const SET_ID: &[u64] = &[libc::S_ISUID as u64, libc::S_ISGID as u64];

/// Installs both filters on this thread (and so on everything it `exec`s and starts);
/// `no_new_privs` is set first by `seccompiler`.
pub(super) fn apply(network: Net) -> Result<(), String> {
    install(network, Part::All)?;
    install_fallbacks()
}

/// Installs `part` of the first filter on this thread. Each program is compiled once per
/// process.
pub(super) fn install(network: Net, part: Part) -> Result<(), String> {
    type Compiled = OnceLock<Result<BpfProgram, String>>;
    static COMPILED: [Compiled; 9] = [const { OnceLock::new() }; 9];
    let slot = network as usize * 3
        + match part {
            Part::All => 0,
            Part::Shared => 1,
            Part::Namespaces => 2,
        };
    let program = COMPILED[slot]
        .get_or_init(|| compile(network, part))
        .as_ref()
        .map_err(Clone::clone)?;
    seccompiler::apply_filter(program).map_err(|e| format!("seccomp: {e}"))
}

/// Installs the second filter on this thread.
pub(super) fn install_fallbacks() -> Result<(), String> {
    static FALLBACKS: OnceLock<BpfProgram> = OnceLock::new();
    seccompiler::apply_filter(FALLBACKS.get_or_init(fallbacks)).map_err(|e| format!("seccomp: {e}"))
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

/// The rules of the first filter: system call number to the rules refusing it (an empty
/// list refuses it always).
pub(super) fn rules(network: Net, part: Part) -> Result<BTreeMap<i64, Vec<SeccompRule>>, String> {
    let mut rules = BTreeMap::new();
    if part != Part::Shared {
        namespace_rules(&mut rules)?;
    }
    if part != Part::Namespaces {
        shared_rules(network, &mut rules)?;
    }
    Ok(rules)
}

fn namespace_rules(rules: &mut BTreeMap<i64, Vec<SeccompRule>>) -> Result<(), String> {
    for &nr in MOUNTS {
        rules.insert(nr, Vec::new());
    }
    // New namespaces, user namespaces among them.
    let mut unshare = CLONE_NAMESPACES.to_vec();
    unshare.push(libc::CLONE_NEWTIME as u64);
    rules.insert(libc::SYS_unshare, any_bit(0, &unshare)?);
    rules.insert(libc::SYS_clone, any_bit(0, CLONE_NAMESPACES)?);
    Ok(())
}

fn shared_rules(network: Net, rules: &mut BTreeMap<i64, Vec<SeccompRule>>) -> Result<(), String> {
    use SeccompCmpOp::{Eq, MaskedEq, Ne};
    for &nr in ALWAYS {
        rules.insert(nr, Vec::new());
    }

    // Sockets: only AF_UNIX without the network; with it, no VSOCK, packet or raw IP sockets.
    let unix = libc::AF_UNIX as u64;
    if network == Net::Proxy {
        let mut socket = vec![rule(vec![
            cond(0, Ne, unix)?,
            cond(0, Ne, libc::AF_INET as u64)?,
            cond(0, Ne, libc::AF_INET6 as u64)?,
        ])?];
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
        }
        rules.insert(libc::SYS_socket, socket);
    } else if network == Net::On {
        let mut socket = Vec::new();
        for family in [libc::AF_VSOCK, libc::AF_PACKET] {
            socket.push(rule(vec![cond(0, Eq, family as u64)?])?);
        }
        for family in [libc::AF_INET, libc::AF_INET6] {
            socket.push(rule(vec![
                cond(0, Eq, family as u64)?,
                cond(1, MaskedEq(0xf), libc::SOCK_RAW as u64)?,
            ])?);
        }
        rules.insert(libc::SYS_socket, socket);
    } else {
        rules.insert(libc::SYS_socket, vec![rule(vec![cond(0, Ne, unix)?])?]);
    }
    rules.insert(libc::SYS_socketpair, vec![rule(vec![cond(0, Ne, unix)?])?]);

    // Personality: only the query (0xffffffff) and the default (PER_LINUX, 0).
    rules.insert(
        libc::SYS_personality,
        vec![rule(vec![cond(0, Ne, 0)?, cond(0, Ne, 0xffff_ffff)?])?],
    );

    // Set-user-ID and set-group-ID modes, by chmod or by creating a file with them.
    rules.insert(libc::SYS_fchmod, any_bit(1, SET_ID)?);
    rules.insert(libc::SYS_fchmodat, any_bit(2, SET_ID)?);
    #[cfg(target_arch = "x86_64")]
    {
        rules.insert(libc::SYS_fchmodat2, any_bit(2, SET_ID)?);
        rules.insert(libc::SYS_chmod, any_bit(1, SET_ID)?);
        rules.insert(libc::SYS_creat, any_bit(1, SET_ID)?);
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
    Ok(())
}

/// The first filter, or a part of it, compiled.
pub(super) fn compile(network: Net, part: Part) -> Result<BpfProgram, String> {
    let filter = SeccompFilter::new(
        rules(network, part)?,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        target()?,
    )
    .map_err(|e| format!("seccomp: {e}"))?;
    filter.try_into().map_err(|e| format!("seccomp: {e}"))
}

/// The second filter: x32 calls refused, `clone3` and `openat2` answered `ENOSYS`.
pub(super) fn fallbacks() -> BpfProgram {
    const LD_W_ABS: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const JGE_K: u16 = 0x35;
    const RET_K: u16 = 0x06;
    const RET_ALLOW: u32 = 0x7fff_0000;
    const RET_ERRNO: u32 = 0x0005_0000;
    const X32_BIT: u32 = 0x4000_0000;
    let op = |code, jt, jf, k| sock_filter { code, jt, jf, k };
    vec![
        op(LD_W_ABS, 0, 0, 0),                            // 0: the call's number
        op(JGE_K, 3, 0, X32_BIT),                         // 1: x32 -> 5
        op(JEQ_K, 3, 0, libc::SYS_clone3 as u32),         // 2: -> 6
        op(JEQ_K, 2, 0, libc::SYS_openat2 as u32),        // 3: -> 6
        op(RET_K, 0, 0, RET_ALLOW),                       // 4
        op(RET_K, 0, 0, RET_ERRNO | libc::EPERM as u32),  // 5
        op(RET_K, 0, 0, RET_ERRNO | libc::ENOSYS as u32), // 6
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_filters_compile_with_and_without_the_network() {
        for network in [Net::Off, Net::Proxy, Net::On] {
            let program = compile(network, Part::All).unwrap();
            assert!(program.len() > 50, "{}", program.len());
            assert!(program.len() < 4096, "within the kernel's limit");
        }
        let rules = rules(Net::Off, Part::All).unwrap();
        // The two parts together are the whole.
        let mut parts = super::rules(Net::Off, Part::Shared).unwrap();
        let namespaces = super::rules(Net::Off, Part::Namespaces).unwrap();
        assert!(namespaces.contains_key(&libc::SYS_mount));
        assert!(!parts.contains_key(&libc::SYS_mount));
        assert!(!parts.contains_key(&libc::SYS_unshare));
        let count = parts.len() + namespaces.len();
        parts.extend(namespaces);
        assert_eq!(parts.len(), count, "no call is in both parts");
        assert_eq!(
            parts.keys().collect::<Vec<_>>(),
            rules.keys().collect::<Vec<_>>()
        );
        for nr in [
            libc::SYS_ptrace,
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
            libc::SYS_mount,
            libc::SYS_bpf,
        ] {
            assert!(
                rules.get(&nr).is_some_and(Vec::is_empty),
                "{nr} always refused"
            );
        }
        assert_eq!(rules[&libc::SYS_unshare].len(), 8);
        assert_eq!(fallbacks().len(), 7);
    }
}
