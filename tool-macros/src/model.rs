//! Validated data, the only input of code generation (`expand/`). Every value here has
//! passed the rules of `check/`.

use syn::{Ident, LitStr, Path, Type};

use crate::ast::{Param, Signature};
use crate::attr::DefaultValue;

/// A `#[tool]` function: its metadata, its signature and the unit struct it gets.
pub(crate) struct FnTool {
    pub(crate) meta: ToolMeta,
    pub(crate) call: Call,
    /// The generated unit struct (`GrepTool` for `fn grep`).
    pub(crate) tool_ty: Ident,
}

/// A `#[tool]` impl: its metadata, its type and the methods a call goes to.
pub(crate) struct ImplTool {
    pub(crate) meta: ToolMeta,
    pub(crate) self_ty: Type,
    pub(crate) form: ImplToolForm,
}

/// The methods of a `#[tool]` impl a call goes to.
pub(crate) enum ImplToolForm {
    /// One `call` method.
    Single(Box<Call>),
    /// `#[action]` methods: the input enum they make, and each method in the order of the
    /// actions.
    Polymorphic {
        actions: ActionsModel,
        methods: Vec<Call>,
    },
}

/// A function or method the generated `call` calls.
pub(crate) struct Call {
    pub(crate) sig: Signature,
    /// The return type, `Result<T, ToolError>` (checked by the compiler, through a trait).
    pub(crate) ret: Type,
}

/// A `#[derive(Action)]` enum: an enum of actions, or a closed set of values.
pub(crate) enum ActionEnum {
    Actions(ActionsModel),
    Choice(ChoiceModel),
}

/// Where the tool's description comes from.
pub(crate) enum Description {
    /// A `description = "..."` or the doc comments.
    Text(String),
    /// `description_file = "..."`: embedded with `include_str!`, relative to the crate root.
    File(LitStr),
}

/// The validated `#[tool(...)]` metadata.
pub(crate) struct ToolMeta {
    pub(crate) krate: Path,
    pub(crate) name: String,
    pub(crate) description: Description,
    /// `Mode` variant identifiers.
    pub(crate) modes: Vec<Ident>,
    /// `Permission` variant identifiers.
    pub(crate) permissions: Vec<Ident>,
    pub(crate) requires_approval: bool,
    pub(crate) category: Option<String>,
    pub(crate) toolsets: Vec<String>,
    pub(crate) aliases: Vec<String>,
    pub(crate) user_facing: Option<bool>,
    pub(crate) suppress_execution_animation: Option<bool>,
    pub(crate) read_only: bool,
    pub(crate) destructive: bool,
    pub(crate) idempotent: bool,
    pub(crate) open_world: bool,
    pub(crate) timeout_ms: Option<u64>,
    /// Parameter names echoed into every error (`error_context(..)`).
    pub(crate) error_context: Vec<String>,
    /// The result is text alone: no output schema, no structured content (`text_output`).
    pub(crate) text_output: bool,
    /// Providers with a tool search load the definition only when found (`defer_loading`).
    pub(crate) defer_loading: bool,
    /// The OpenAI Responses namespace (`namespace = "..."`).
    pub(crate) namespace: Option<String>,
    pub(crate) register: bool,
    pub(crate) constructor: Option<Path>,
}

/// One parameter of a union of action parameters: its first declaration.
pub(crate) struct SlotModel {
    pub(crate) name: String,
    pub(crate) ty: Type,
    pub(crate) doc: String,
    pub(crate) default: Option<DefaultValue>,
    /// The examples and range of the first declaration that gives them.
    pub(crate) examples: Vec<syn::Expr>,
    pub(crate) range: Option<Box<crate::constraint::Range>>,
}

/// One field of an action: which slot it reads, and its own default.
pub(crate) struct FieldModel {
    pub(crate) binding: Ident,
    pub(crate) slot: usize,
    pub(crate) default: Option<DefaultValue>,
    /// For a later declaration of a shared parameter: its own type, which must be the
    /// slot's (checked, and converted through that check so a mismatch is reported once).
    pub(crate) own_ty: Option<Type>,
}

/// One action.
pub(crate) struct ActionModel {
    pub(crate) name: String,
    pub(crate) variant: Ident,
    pub(crate) description: String,
    pub(crate) fields: Vec<FieldModel>,
    pub(crate) permissions: Vec<Ident>,
    pub(crate) requires_approval: bool,
    pub(crate) read_only: bool,
}

/// An enum of actions: derived, or generated from a `#[tool]` impl's `#[action]` methods.
pub(crate) struct ActionsModel {
    pub(crate) krate: Path,
    /// The enum's name.
    pub(crate) ident: Ident,
    /// The name of the schema (`schema_name`).
    pub(crate) schema_name: String,
    pub(crate) tag: String,
    pub(crate) actions: Vec<ActionModel>,
    pub(crate) slots: Vec<SlotModel>,
    pub(crate) serialize: bool,
}

/// A unit-only `Action` enum: a closed set of strings.
pub(crate) struct ChoiceModel {
    pub(crate) krate: Path,
    pub(crate) ident: Ident,
    pub(crate) doc: String,
    pub(crate) values: Vec<(Ident, String)>,
}

/// The parameters of a plain tool function, as one generated input struct.
pub(crate) struct ParamsModel {
    pub(crate) krate: Path,
    pub(crate) ident: Ident,
    pub(crate) schema_name: String,
    pub(crate) params: Vec<Param>,
}
