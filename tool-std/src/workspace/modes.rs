//! File modes and identities, which Unix has and other systems have in part: the one place
//! the workspace asks for them, so that the rest of it reads the same everywhere.

use std::io;

use cap_std::fs::{File, Metadata, OpenOptions};

/// The permission bits of `m` (`0o644`...). Elsewhere than Unix: `0o444` for a read-only
/// file, `0o644` otherwise (the one bit such systems keep).
pub(crate) fn mode_of(m: &Metadata) -> u32 {
    #[cfg(unix)]
    {
        cap_std::fs::MetadataExt::mode(m) & 0o7777
    }
    #[cfg(not(unix))]
    {
        if m.permissions().readonly() {
            0o444
        } else {
            0o644
        }
    }
}

/// The file's inode number on Unix; 0 (unknown) elsewhere, where a replacement is told by
/// its size and time alone.
pub(crate) fn identity_of(m: &Metadata) -> u64 {
    #[cfg(unix)]
    {
        cap_std::fs::MetadataExt::ino(m)
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        0
    }
}

/// Makes `options` create a file only its owner can read and write (Unix's `0o600`; the
/// system's default elsewhere, where the directory's access rules apply).
pub(crate) fn owner_only(options: &mut OpenOptions) {
    #[cfg(unix)]
    cap_std::fs::OpenOptionsExt::mode(options, 0o600);
    #[cfg(not(unix))]
    let _ = options;
}

/// Gives `file` the permission bits `mode` (elsewhere than Unix: read-only when `mode` lets
/// nobody write).
pub(crate) fn set_mode(file: &File, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    let permissions = cap_std::fs::Permissions::from_std(
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(mode),
    );
    #[cfg(not(unix))]
    let permissions = {
        let mut permissions = file.metadata()?.permissions();
        permissions.set_readonly(mode & 0o222 == 0);
        permissions
    };
    file.set_permissions(permissions)
}
