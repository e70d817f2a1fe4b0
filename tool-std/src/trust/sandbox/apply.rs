//! Applying a plan: the helper restricts its own process as the plan says, then `exec`s the
//! shell; [`confine_call_thread`] restricts one thread of the server, which then starts the
//! shell.
//!
//! The order matters. Mounts come first (Landlock and the seccomp filter both forbid them),
//! then the working directory is entered again (so that paths resolve through the new mounts),
//! then Landlock, then the seccomp filters, then `exec`. Every step is a safe call; on any
//! failure the helper prints why, prefixed with [`HELPER_FAILED_PREFIX`], and exits with
//! [`HELPER_FAILED`], so nothing runs unrestricted.

use std::ffi::OsString;
use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, LandlockStatus, NetPort,
    PathBeneath, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use rustix::fs::{FileType, Mode, OFlags};
use rustix::mount::{MountFlags, MountPropagationFlags};

use super::plan::{BindKind, Plan};
use super::seccomp;
use super::{HELPER_FAILED, HELPER_FAILED_PREFIX};

/// The Landlock ABI whose rights are asked for (the newest this code was tested with); an
/// older kernel enforces what it has.
const TARGET_ABI: ABI = ABI::V6;

/// The oldest Landlock ABI accepted: ABI 3 added truncation, without which a command could
/// empty any file it may read.
const MIN_ABI: ABI = ABI::V3;

/// Runs the helper with this process's arguments; never returns.
pub(super) fn helper_main() -> ! {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let code = match run(&args) {
        Ok(code) => code,
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "{HELPER_FAILED_PREFIX}{message}");
            HELPER_FAILED
        }
    };
    std::process::exit(code)
}

fn run(args: &[OsString]) -> Result<i32, String> {
    let Some(first) = args.first() else {
        return Err(
            "started without a plan; this program is the bash tool's sandbox helper \
                    and is started by it"
                .to_owned(),
        );
    };
    if first == "probe" {
        return probe();
    }
    let plan: Plan = first
        .to_str()
        .ok_or("the plan is not UTF-8")
        .and_then(|s| serde_json::from_str(s).map_err(|_| "the plan is not valid"))
        .map_err(|e| format!("{e}; the helper and the server are different versions?"))?;
    let (program, rest) = args
        .get(1..)
        .and_then(<[OsString]>::split_first)
        .ok_or("no program to run was given")?;
    apply(&plan)?;
    let error = std::process::Command::new(program).args(rest).exec();
    Err(format!(
        "cannot run {}: {error}",
        Path::new(program).display()
    ))
}

/// Applies every restriction of the plan to this process.
fn apply(plan: &Plan) -> Result<(), String> {
    if !plan.binds.is_empty() {
        enter_mount_namespace()?;
        mount_all(plan)?;
    }
    std::env::set_current_dir(&plan.cwd)
        .map_err(|e| format!("cannot enter {}: {e}", plan.cwd.display()))?;
    drop_capabilities()?;
    landlock(plan)?;
    seccomp::apply(plan.sockets())
}

/// Applies the call's own restrictions to the calling thread, a thread made for this alone
/// by the spawner, which holds the seccomp filters already (see `spawner`): a command it
/// then starts inherits them all (Landlock domains, seccomp filters, `no_new_privs`, the
/// bounding set and the mount namespace are kept per thread), while the other threads of the
/// process keep their rights.
///
/// A plan with mounts needs a mount namespace of the thread's own, which only a process with
/// `CAP_SYS_ADMIN` can make from a thread (an unprivileged process needs a user namespace,
/// which the kernel makes only for a single-threaded process): see [`fits_a_thread`]. Its
/// spawner left the namespace filter out; it is added here, after the mounts. The working
/// directory is not entered (it is shared by the process's threads); the command is started
/// in it instead, which resolves it through the mounts.
pub(super) fn confine_call_thread(plan: &Plan) -> Result<(), String> {
    let mounts = !plan.binds.is_empty();
    if mounts {
        if !fits_a_thread(plan) {
            return Err(
                "this plan mounts over protected paths, which an unprivileged process can only \
                 do in the helper"
                    .to_owned(),
            );
        }
        // `unshare` is deprecated in rustix only because `CLONE_FILES` can break the
        // descriptors of other threads; it is not asked for here (`CLONE_NEWNS` unshares the
        // thread's file-system information, its root and working directory, only).
        #[expect(deprecated, reason = "never with CLONE_FILES")]
        rustix::thread::unshare(rustix::thread::UnshareFlags::NEWNS)
            .map_err(|e| format!("cannot make a mount namespace: {e}"))?;
        make_mounts_private()?;
        mount_all(plan)?;
    }
    // The capabilities went on the spawner, whose threads inherit its empty bounding set
    // (the thread's own effective capabilities, which make the mounts, stay).
    landlock(plan)?;
    if mounts {
        seccomp::install_namespaces()?;
    }
    Ok(())
}

/// Whether [`confine_call_thread`] can apply the plan: always when it mounts nothing; with
/// mounts, only in a process running as root.
pub(crate) fn fits_a_thread(plan: &Plan) -> bool {
    plan.binds.is_empty() || rustix::process::geteuid().is_root()
}

fn mount_all(plan: &Plan) -> Result<(), String> {
    for bind in &plan.binds {
        mount(&bind.path, &bind.kind).map_err(|e| {
            format!(
                "cannot mount over {} to protect it: {e}",
                bind.path.display()
            )
        })?;
    }
    Ok(())
}

/// Leaves the command no capability: a command started by root would keep every capability
/// in the bounding set across `exec` (with `CAP_SYS_PTRACE` or `CAP_SYS_ADMIN` it could read
/// other processes' memory maps and environments, the server's included, which Landlock keeps
/// from a command without them; with `CAP_MKNOD`, `CAP_DAC_OVERRIDE` or `CAP_FSETID` it could
/// reach devices, override file modes or keep set-user-ID bits). Root empties its bounding
/// set, so the shell `exec`'d next runs as user 0 with no capability; any user clears the
/// ambient set, which would otherwise carry capabilities across `exec`.
pub(super) fn drop_capabilities() -> Result<(), String> {
    use rustix::thread::CapabilitySet;
    rustix::thread::clear_ambient_capability_set()
        .or_else(|e| {
            if e == rustix::io::Errno::INVAL {
                Ok(())
            } else {
                Err(e)
            }
        })
        .map_err(|e| format!("cannot clear the ambient capabilities: {e}"))?;
    if !rustix::process::geteuid().is_root() {
        return Ok(());
    }
    for capability in CapabilitySet::all().iter() {
        match rustix::thread::remove_capability_from_bounding_set(capability) {
            // A capability this kernel does not know cannot be held either.
            Ok(()) | Err(rustix::io::Errno::INVAL) => {}
            Err(e) => return Err(format!("cannot drop the capability {capability:?}: {e}")),
        }
    }
    Ok(())
}

/// Checks what the kernel offers by applying a small plan to this process, and prints the
/// result as JSON.
fn probe() -> Result<i32, String> {
    let mount_namespace = enter_mount_namespace().is_ok();
    let plan = Plan {
        cwd: "/".into(),
        read: vec!["/".into()],
        deny_read: Vec::new(),
        write: vec!["/dev/null".into()],
        binds: Vec::new(),
        network: false,
        proxy_port: None,
        unix_sockets: false,
    };
    let abi = landlock(&plan)?;
    seccomp::apply(plan.sockets())?;
    let json = serde_json::json!({
        "landlock_abi": abi,
        "seccomp": true,
        "mount_namespace": mount_namespace,
    });
    println!("{json}");
    Ok(0)
}

/// A private mount namespace (in a user namespace of its own when not root, mapping the
/// user's ids onto themselves), with every mount private so nothing done here is seen
/// outside.
fn enter_mount_namespace() -> Result<(), String> {
    use rustix::thread::UnshareFlags;
    let (uid, gid) = (rustix::process::getuid(), rustix::process::getgid());
    let flags = if rustix::process::geteuid().is_root() {
        UnshareFlags::NEWNS
    } else {
        UnshareFlags::NEWUSER | UnshareFlags::NEWNS
    };
    // `unshare` is deprecated in rustix only because `CLONE_FILES` can break the descriptors
    // of other threads; this process has one thread and does not ask for it.
    #[expect(deprecated, reason = "single-threaded, and never with CLONE_FILES")]
    rustix::thread::unshare(flags).map_err(|e| {
        format!(
            "cannot make a mount namespace ({e}); unprivileged user namespaces may be switched \
             off (sysctl kernel.unprivileged_userns_clone, or an AppArmor restriction)"
        )
    })?;
    if flags.contains(UnshareFlags::NEWUSER) {
        let write = |file: &str, text: String| {
            std::fs::write(file, text).map_err(|e| format!("cannot write {file}: {e}"))
        };
        write("/proc/self/setgroups", "deny".to_owned())?;
        write("/proc/self/uid_map", format!("{0} {0} 1", uid.as_raw()))?;
        write("/proc/self/gid_map", format!("{0} {0} 1", gid.as_raw()))?;
    }
    make_mounts_private()
}

/// Makes every mount of this (new) namespace private, so nothing mounted here is seen
/// outside.
fn make_mounts_private() -> Result<(), String> {
    rustix::mount::mount_change(
        "/",
        MountPropagationFlags::PRIVATE | MountPropagationFlags::REC,
    )
    .map_err(|e| format!("cannot make the mounts private: {e}"))
}

fn mount(path: &Path, kind: &BindKind) -> rustix::io::Result<()> {
    match kind {
        BindKind::Pin => rustix::mount::mount_bind(path, path),
        BindKind::ReadOnly => {
            rustix::mount::mount_bind(path, path)?;
            remount_read_only(path)
        }
        BindKind::Mask { source } => {
            rustix::mount::mount_bind(source, path)?;
            remount_read_only(path)
        }
    }
}

/// Makes the bind mount at `path` read-only, keeping the flags the kernel does not let a
/// user namespace drop (`nosuid`, `nodev`, `noexec`, the access-time mode).
fn remount_read_only(path: &Path) -> rustix::io::Result<()> {
    use rustix::fs::StatVfsMountFlags as S;
    let have = rustix::fs::statvfs(path)?.f_flag;
    let mut flags = MountFlags::BIND | MountFlags::RDONLY;
    for (vfs, mount) in [
        (S::NOSUID, MountFlags::NOSUID),
        (S::NODEV, MountFlags::NODEV),
        (S::NOEXEC, MountFlags::NOEXEC),
        (S::NOATIME, MountFlags::NOATIME),
        (S::NODIRATIME, MountFlags::NODIRATIME),
        (S::RELATIME, MountFlags::RELATIME),
    ] {
        if have.contains(vfs) {
            flags |= mount;
        }
    }
    rustix::mount::mount_remount(path, flags, "")
}

/// Restricts this process with Landlock: read where the plan grants reading, everything
/// where it grants writing, signals and abstract UNIX sockets scoped to the sandbox. Returns
/// the ABI in force.
fn landlock(plan: &Plan) -> Result<i32, String> {
    let fail = |e: landlock::RulesetError| format!("Landlock: {e}");
    let all = AccessFs::from_all(TARGET_ABI);
    let read = AccessFs::from_read(TARGET_ABI);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)
        .map_err(fail)?
        .scope(Scope::from_all(TARGET_ABI))
        .map_err(fail)?;
    if plan.proxy_port.is_some() {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(TARGET_ABI))
            .map_err(fail)?;
    }
    let mut ruleset = ruleset.create().map_err(fail)?;
    if let Some(port) = plan.proxy_port {
        ruleset = ruleset
            .add_rule(NetPort::new(port, AccessNet::ConnectTcp))
            .map_err(fail)?;
    }
    // Device nodes are never made: a root command would reach a disk through one.
    let write = all & !(AccessFs::MakeBlock | AccessFs::MakeChar);
    for (paths, access) in [(&plan.read, read), (&plan.write, write)] {
        for path in paths.iter() {
            let Some((fd, is_dir)) = open_path(path)? else {
                continue;
            };
            let access = if is_dir {
                access
            } else {
                access & AccessFs::from_file(TARGET_ABI)
            };
            ruleset = ruleset
                .add_rule(PathBeneath::new(fd, access))
                .map_err(fail)?;
        }
    }
    let status = ruleset.restrict_self().map_err(fail)?;
    let abi = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => effective_abi,
        LandlockStatus::NotEnabled => {
            return Err(
                "Landlock is built into this kernel but not enabled (add `landlock` to \
                        the lsm= boot parameter)"
                    .to_owned(),
            );
        }
        LandlockStatus::NotImplemented => {
            return Err(
                "this kernel has no Landlock (Linux 5.13 or later, built with \
                        CONFIG_SECURITY_LANDLOCK)"
                    .to_owned(),
            );
        }
    };
    if plan.proxy_port.is_some() && abi < ABI::V4 {
        return Err(format!(
            "this kernel's Landlock (ABI {}) cannot limit connections to the network proxy's \
             port (ABI 4, Linux 6.7); give commands the whole network or none",
            abi as i32
        ));
    }
    if status.ruleset == RulesetStatus::NotEnforced || abi < MIN_ABI {
        return Err(format!(
            "this kernel's Landlock (ABI {}) is older than ABI {} (Linux 6.2), which the \
             sandbox needs",
            abi as i32, MIN_ABI as i32
        ));
    }
    Ok(abi as i32)
}

/// Opens `path` for a rule, without following a link; `None` when it is gone or is a link.
fn open_path(path: &Path) -> Result<Option<(OwnedFd, bool)>, String> {
    let flags = OFlags::PATH | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    let fd = match rustix::fs::open(path, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) => return Ok(None),
        Err(e) => return Err(format!("cannot open {}: {e}", path.display())),
    };
    let kind = rustix::fs::fstat(&fd)
        .map(|st| FileType::from_raw_mode(st.st_mode))
        .map_err(|e| format!("cannot inspect {}: {e}", path.display()))?;
    match kind {
        FileType::Symlink => Ok(None),
        FileType::Directory => Ok(Some((fd, true))),
        _ => Ok(Some((fd, false))),
    }
}
