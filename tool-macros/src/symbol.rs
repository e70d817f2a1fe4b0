//! Every attribute key and closed-set value the macros accept, named once.

/// Keys of `#[tool(...)]`.
pub(crate) mod tool {
    pub(crate) const NAME: &str = "name";
    pub(crate) const DESCRIPTION: &str = "description";
    pub(crate) const DESCRIPTION_FILE: &str = "description_file";
    pub(crate) const MODES: &str = "modes";
    pub(crate) const PERMISSIONS: &str = "permissions";
    pub(crate) const REQUIRES_APPROVAL: &str = "requires_approval";
    pub(crate) const CATEGORY: &str = "category";
    pub(crate) const TOOLSETS: &str = "toolsets";
    pub(crate) const ALIASES: &str = "aliases";
    pub(crate) const USER_FACING: &str = "user_facing";
    pub(crate) const SUPPRESS_EXECUTION_ANIMATION: &str = "suppress_execution_animation";
    pub(crate) const READ_ONLY: &str = "read_only";
    pub(crate) const DESTRUCTIVE: &str = "destructive";
    pub(crate) const IDEMPOTENT: &str = "idempotent";
    pub(crate) const OPEN_WORLD: &str = "open_world";
    pub(crate) const TIMEOUT: &str = "timeout";
    pub(crate) const ERROR_CONTEXT: &str = "error_context";
    pub(crate) const TEXT_OUTPUT: &str = "text_output";
    pub(crate) const DEFER_LOADING: &str = "defer_loading";
    pub(crate) const NAMESPACE: &str = "namespace";
    pub(crate) const REGISTER: &str = "register";
    pub(crate) const CONSTRUCTOR: &str = "constructor";
    pub(crate) const TOOL_TYPE: &str = "tool_type";
    pub(crate) const CRATE: &str = "crate";

    /// In the order the documentation lists them.
    pub(crate) const ALL: &[&str] = &[
        NAME,
        DESCRIPTION,
        DESCRIPTION_FILE,
        MODES,
        PERMISSIONS,
        REQUIRES_APPROVAL,
        CATEGORY,
        TOOLSETS,
        ALIASES,
        USER_FACING,
        SUPPRESS_EXECUTION_ANIMATION,
        READ_ONLY,
        DESTRUCTIVE,
        IDEMPOTENT,
        OPEN_WORLD,
        TIMEOUT,
        ERROR_CONTEXT,
        TEXT_OUTPUT,
        DEFER_LOADING,
        NAMESPACE,
        REGISTER,
        CONSTRUCTOR,
        TOOL_TYPE,
        CRATE,
    ];
}

/// Keys of `#[action(...)]` on a variant of an `Action` enum or a method of a `#[tool]` impl.
pub(crate) mod action {
    pub(crate) const RENAME: &str = "rename";
    pub(crate) const DESCRIPTION: &str = "description";
    pub(crate) const REQUIRES_APPROVAL: &str = "requires_approval";
    pub(crate) const PERMISSIONS: &str = "permissions";
    pub(crate) const READ_ONLY: &str = "read_only";

    pub(crate) const ALL: &[&str] = &[
        RENAME,
        DESCRIPTION,
        REQUIRES_APPROVAL,
        PERMISSIONS,
        READ_ONLY,
    ];
}

/// Keys of `#[action(...)]` on an `Action` enum itself.
pub(crate) mod enum_ {
    pub(crate) const TAG: &str = "tag";
    pub(crate) const SERIALIZE: &str = "serialize";
    pub(crate) const CRATE: &str = "crate";

    pub(crate) const ALL: &[&str] = &[TAG, SERIALIZE, CRATE];
}

/// Keys of `#[param(...)]` on a field of an action or a parameter of a tool function.
pub(crate) mod param {
    pub(crate) const RENAME: &str = "rename";
    pub(crate) const DEFAULT: &str = "default";
    pub(crate) const DESCRIPTION: &str = "description";
    pub(crate) const ALIAS: &str = "alias";
    pub(crate) const NEGATED_ALIAS: &str = "negated_alias";
    pub(crate) const EXAMPLE: &str = "example";
    pub(crate) const RANGE: &str = "range";

    pub(crate) const ALL: &[&str] = &[
        RENAME,
        DEFAULT,
        DESCRIPTION,
        ALIAS,
        NEGATED_ALIAS,
        EXAMPLE,
        RANGE,
    ];
}

/// Attribute names the macros read and strip.
pub(crate) const ACTION: &str = "action";
pub(crate) const PARAM: &str = "param";
pub(crate) const ARGS: &str = "args";
pub(crate) const DOC: &str = "doc";

/// The parameter name that makes a lone parameter the whole input.
pub(crate) const ARGS_PARAM: &str = "args";
/// The method that makes a `#[tool]` impl a single-call tool.
pub(crate) const CALL_METHOD: &str = "call";
/// The discriminator parameter unless `#[action(tag = "...")]` says otherwise.
pub(crate) const DEFAULT_TAG: &str = "action";

/// `tool_core::Mode`: attribute spelling and variant, in declaration order. Kept in step with
/// tool-core by a test that declares a tool with every mode.
pub(crate) const MODES: &[(&str, &str)] = &[("agent", "Agent"), ("mcp", "Mcp"), ("cli", "Cli")];

/// `tool_core::Permission`: attribute spelling and variant, in declaration order.
pub(crate) const PERMISSIONS: &[(&str, &str)] = &[
    ("read_files", "ReadFiles"),
    ("write_files", "WriteFiles"),
    ("delete_files", "DeleteFiles"),
    ("execute_commands", "ExecuteCommands"),
    ("network", "Network"),
    ("view_prompts", "ViewPrompts"),
    ("manage_prompts", "ManagePrompts"),
];

/// The longest tool, alias, action or parameter name providers accept.
pub(crate) const MAX_NAME_LEN: usize = 64;
