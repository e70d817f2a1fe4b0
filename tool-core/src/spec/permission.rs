//! Where a tool may run and what it may do: [`Mode`], [`Permission`] and [`PermissionSet`].

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::SpecError;

macro_rules! closed_set {
    (
        $(#[$meta:meta])*
        $name:ident, $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident => $text:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The snake_case name used in attributes, the CLI and JSON.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// Parses the snake_case name; the error lists the accepted names.
            pub fn parse(text: &str) -> Result<Self, SpecError> {
                match text {
                    $($text => Ok($name::$variant),)*
                    _ => Err(SpecError::UnknownValue {
                        what: $what,
                        value: text.to_owned(),
                        allowed: Self::ALL.iter().map(|v| v.as_str()).collect(),
                    }),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = SpecError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s)
            }
        }
    };
}

closed_set! {
    /// Where a tool may be offered. A session runs in exactly one mode; tools that do not list
    /// it are neither listed nor callable there.
    Mode, "mode" {
        /// An agent loop driven by a model (the default host).
        Agent => "agent",
        /// Served to MCP clients (`toolsmith serve`).
        Mcp => "mcp",
        /// Called by a person from the command line (`toolsmith call`).
        Cli => "cli",
    }
}

closed_set! {
    /// A capability a tool needs. A session's role grants a set of permissions; a call is refused
    /// with a `permission_error` when the tool or the chosen action needs one the role lacks.
    Permission, "permission" {
        /// Read files inside the workspace roots.
        ReadFiles => "read_files",
        /// Create or change files inside read-write roots.
        WriteFiles => "write_files",
        /// Delete files inside read-write roots.
        DeleteFiles => "delete_files",
        /// Run processes (the shell tool).
        ExecuteCommands => "execute_commands",
        /// Make network requests (the web tool).
        Network => "network",
        /// Read the agent's own prompts and name.
        ViewPrompts => "view_prompts",
        /// Change the agent's own prompts and name.
        ManagePrompts => "manage_prompts",
    }
}

/// A set of [`Permission`]s, small and copyable.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct PermissionSet(u32);

impl PermissionSet {
    /// No permission at all.
    pub const EMPTY: PermissionSet = PermissionSet(0);

    /// Every permission there is.
    pub fn all() -> Self {
        Permission::ALL.iter().copied().collect()
    }

    const fn bit(p: Permission) -> u32 {
        1 << (p as u32)
    }

    /// Adds a permission.
    pub fn insert(&mut self, p: Permission) {
        self.0 |= Self::bit(p);
    }

    /// Adds a permission, builder style.
    pub fn with(mut self, p: Permission) -> Self {
        self.insert(p);
        self
    }

    /// Whether the permission is in the set.
    pub fn contains(&self, p: Permission) -> bool {
        self.0 & Self::bit(p) != 0
    }

    /// Whether every permission of `other` is in this set.
    pub fn contains_all(&self, other: &PermissionSet) -> bool {
        self.0 & other.0 == other.0
    }

    /// The permissions of `other` missing from this set.
    pub fn missing(&self, other: &PermissionSet) -> PermissionSet {
        PermissionSet(other.0 & !self.0)
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.0 == 0
    }

    /// The permissions in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = Permission> + '_ {
        Permission::ALL
            .iter()
            .copied()
            .filter(|p| self.contains(*p))
    }
}

impl FromIterator<Permission> for PermissionSet {
    fn from_iter<I: IntoIterator<Item = Permission>>(iter: I) -> Self {
        let mut set = PermissionSet::EMPTY;
        for p in iter {
            set.insert(p);
        }
        set
    }
}

impl fmt::Debug for PermissionSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl Serialize for PermissionSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for PermissionSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let list = Vec::<Permission>::deserialize(d)?;
        Ok(list.into_iter().collect())
    }
}
