//! `impl Tool`: for the unit struct a `#[tool]` function gets, and for the type of a
//! `#[tool]` impl (one `call` method, or `#[action]` methods behind a dispatch `match`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn, Path, Type};

use super::{actions, params, respan, spec};
use crate::ast::{Arg, Signature, first_arg_span};
use crate::crate_path;
use crate::model::{ActionsModel, Call, FnTool, ImplTool, ImplToolForm, ParamsModel, ToolMeta};

/// The output type `<R as ToolReturn>::Ok`: a return type that is not a `Result` is
/// reported on the type; an output type missing `Serialize`, `JsonSchema` or `Render` is
/// reported by the `Tool` trait's own bounds on `T` in `Result<T, _>` (the `type Output`
/// item is spanned there), with those traits' hints.
fn output_ty(krate: &Path, ret: &Type) -> TokenStream {
    let span = first_arg_span(ret);
    let k_private = respan(crate_path::private(krate), span);
    quote_spanned!(span=> <#ret as #k_private::ToolReturn>::Ok)
}

/// The arguments of the user's function or method, in order: the context, the whole input,
/// or one parameter each (`param(i)` for the i-th named parameter).
fn call_args(
    krate: &Path,
    sig: &Signature,
    param: impl Fn(usize) -> TokenStream,
) -> Vec<TokenStream> {
    let mut i = 0;
    sig.args
        .iter()
        .map(|a| match a {
            Arg::Context(ty) => {
                let k_private = respan(crate_path::private(krate), ty.span());
                let f = quote_spanned! {ty.span()=>
                    <#ty as #k_private::ContextArg<'_>>::from_context
                };
                quote!(#f(__ctx))
            }
            Arg::Args(_) => quote!(__input),
            Arg::Param(_) => {
                let t = param(i);
                i += 1;
                t
            }
        })
        .collect()
}

/// The future of `callee(args)` as the tool's call, unwrapped.
fn direct_call(krate: &Path, ret: &Type, callee: TokenStream, args: &[TokenStream]) -> TokenStream {
    let private = crate_path::private(krate);
    quote_spanned! {ret.span()=>
        <#ret as #private::ToolReturn>::future(#callee(#(#args),*))
    }
}

/// Awaits `callee(args)` and turns its result into the tool's.
fn await_call(krate: &Path, ret: &Type, callee: TokenStream, args: &[TokenStream]) -> TokenStream {
    let private = crate_path::private(krate);
    quote_spanned! {ret.span()=>
        <#ret as #private::ToolReturn>::into_result(#callee(#(#args),*).await)
    }
}

/// The input type when it is one user type: `<T as ToolArgs>::This`.
fn args_input(krate: &Path, ty: &Type) -> TokenStream {
    let k_private = respan(crate_path::private(krate), ty.span());
    quote_spanned!(ty.span()=> <#ty as #k_private::ToolArgs>::This)
}

/// `spec()` for an input that may or may not be an enum of actions.
fn probed_spec(m: &ToolMeta, input_span: Span) -> TokenStream {
    let krate = &m.krate;
    let builder = spec::builder(m);
    let k = respan(krate, input_span);
    let k_private = respan(crate_path::private(krate), input_span);
    let private = crate_path::private(krate);
    let probe = quote_spanned! {input_span=>
        #k_private::Probe::<<Self as #k::Tool>::Input>::new()
    };
    quote! {
        #[allow(unused_imports)]
        use #private::{ProbeActions as _, ProbePlain as _};
        let __spec = #builder;
        let __probe = #probe;
        #private::with_actions(__spec, (&__probe).probe_actions())
    }
}

/// The assembled `impl Tool`: the types with the spans of the user's tokens they come
/// from, so a type that does not fit is reported there.
struct ToolImpl<'a> {
    krate: &'a Path,
    self_ty: TokenStream,
    /// `Input`: the type and the span to blame.
    input: (TokenStream, Span),
    /// `Output`: the type and the span to blame.
    output: (TokenStream, Span),
    spec: TokenStream,
    body: Body,
    /// Where a type that does not fit is blamed when the compiler checks `call` against the
    /// trait (the arguments type, else the output type).
    sig_span: Span,
}

/// The body of the generated `call`.
enum Body {
    /// The user's future itself, returned as the call's (a single call, whose result is
    /// already the tool's): one state machine fewer between the runtime and the user's code.
    Future(TokenStream),
    /// Statements that await the user's code, in an `async` block (the dispatch `match` of
    /// a polymorphic tool, whose arms are different futures).
    Block(TokenStream),
}

fn tool_impl(t: ToolImpl<'_>) -> TokenStream {
    let ToolImpl {
        krate,
        self_ty,
        input: (input, input_span),
        output: (output, output_span),
        spec,
        body,
        sig_span,
    } = t;
    let input_item = quote_spanned!(input_span=> type Input = #input;);
    let output_item = quote_spanned!(output_span=> type Output = #output;);
    // The names the body uses keep their own spans.
    let (slf, ctx, inp) = (quote!(self), quote!(__ctx), quote!(__input));
    let k = respan(krate, sig_span);
    let header = quote_spanned! {sig_span=>
        fn call(
            &#slf,
            #ctx: &#k::ToolContext,
            #inp: Self::Input,
        ) -> impl ::core::future::Future<
            Output = ::core::result::Result<Self::Output, #k::ToolError>,
        > + ::core::marker::Send
    };
    let (allow, inner) = match body {
        Body::Future(future) => (quote!(), future),
        Body::Block(body) => (
            quote!(#[allow(clippy::manual_async_fn)]),
            quote! {
                async move {
                    let _ = &__ctx;
                    #body
                }
            },
        ),
    };
    // The braces too: the signature's span runs up to the body's `{`.
    let method = quote_spanned!(sig_span=> #allow #header { #inner });
    quote! {
        #[automatically_derived]
        impl #krate::Tool for #self_ty {
            #input_item
            #output_item

            fn spec(&self) -> #krate::ToolSpec {
                #spec
            }

            #method
        }
    }
}

/// The input of a single-call tool: its `args` type, or a struct of its parameters.
struct SingleInput {
    /// The `Input` type and the span to blame for it.
    ty: (TokenStream, Span),
    /// Items to define beside the impl (the struct of parameters).
    defs: TokenStream,
    spec: TokenStream,
    /// The arguments of the call of the user's function.
    args: Vec<TokenStream>,
}

fn single_input(m: &ToolMeta, sig: &Signature, fallback_span: Span) -> SingleInput {
    let krate = &m.krate;
    match sig.args_type() {
        Some(ty) => SingleInput {
            ty: (args_input(krate, ty), ty.span()),
            defs: quote!(),
            spec: probed_spec(m, ty.span()),
            args: call_args(krate, sig, |_| quote!()),
        },
        None => {
            let ident = format_ident!("__ToolInput");
            let model = ParamsModel {
                krate: krate.clone(),
                ident: ident.clone(),
                schema_name: m.name.clone(),
                params: sig.params().cloned().collect(),
            };
            let fields: Vec<Ident> = sig.params().map(|p| p.ident.clone()).collect();
            let builder = spec::builder(m);
            let aliases = sig.params().flat_map(|p| {
                let name = &p.name;
                let negated = p.negated_aliases.iter();
                p.aliases
                    .iter()
                    .map(move |a| quote!(.arg_alias(#a, #name)))
                    .chain(negated.map(move |a| quote!(.negated_arg_alias(#a, #name))))
            });
            SingleInput {
                ty: (quote!(#ident), fallback_span),
                defs: params::input_struct(&model),
                spec: quote!(#builder #(#aliases)*),
                args: call_args(krate, sig, |i| {
                    let f = &fields[i];
                    quote!(__input.#f)
                }),
            }
        }
    }
}

/// A `#[tool]` function (`item`, as the user wrote it): the unit struct and its
/// `impl Tool`.
pub(super) fn function(t: &FnTool, item: &ItemFn) -> TokenStream {
    let FnTool {
        meta: m,
        call: Call { sig, ret },
        tool_ty,
    } = t;
    let krate = &m.krate;
    let vis = &item.vis;
    let fn_ident = &item.sig.ident;
    let input = single_input(m, sig, Span::call_site());
    let imp = tool_impl(ToolImpl {
        krate,
        self_ty: quote!(#tool_ty),
        input: input.ty,
        output: (output_ty(krate, ret), first_arg_span(ret)),
        spec: input.spec,
        body: Body::Future(direct_call(krate, ret, quote!(#fn_ident), &input.args)),
        sig_span: sig
            .args_type()
            .map_or_else(|| first_arg_span(ret), |t| t.span()),
    });
    let defs = input.defs;
    let ty: Type = syn::parse_quote!(#tool_ty);
    let reg = spec::registration(m, &ty, quote!(#tool_ty));
    let doc = format!(
        "The `{}` tool, generated by `#[tool]` from the function `{}`.",
        m.name,
        crate::ast::unraw(fn_ident)
    );
    quote! {
        #item

        #[doc = #doc]
        #[derive(
            ::core::clone::Clone,
            ::core::marker::Copy,
            ::core::fmt::Debug,
            ::core::default::Default
        )]
        #vis struct #tool_ty;

        const _: () = {
            #defs
            #imp
            #reg
        };
    }
}

/// A `#[tool]` impl: its `impl Tool` (the impl itself is the user's, emitted as written).
pub(super) fn implementation(t: &ImplTool) -> TokenStream {
    match &t.form {
        ImplToolForm::Single(call) => single(&t.meta, call, &t.self_ty),
        ImplToolForm::Polymorphic { actions, methods } => {
            polymorphic(&t.meta, actions, methods, &t.self_ty)
        }
    }
}

/// A `#[tool]` impl with one `call` method.
fn single(m: &ToolMeta, call: &Call, self_ty: &Type) -> TokenStream {
    let Call { sig, ret } = call;
    let krate = &m.krate;
    let input = single_input(m, sig, Span::call_site());
    let method = &sig.ident;
    let mut args = vec![quote!(self)];
    args.extend(input.args);
    let imp = tool_impl(ToolImpl {
        krate,
        self_ty: quote!(#self_ty),
        input: input.ty,
        output: (output_ty(krate, ret), first_arg_span(ret)),
        spec: input.spec,
        body: Body::Future(direct_call(krate, ret, quote!(<#self_ty>::#method), &args)),
        sig_span: sig
            .args_type()
            .map_or_else(|| first_arg_span(ret), |t| t.span()),
    });
    let defs = input.defs;
    let reg = registration(m, self_ty);
    quote! {
        const _: () = {
            #defs
            #imp
            #reg
        };
    }
}

fn registration(m: &ToolMeta, self_ty: &Type) -> TokenStream {
    let k_private = respan(crate_path::private(&m.krate), self_ty.span());
    let make = quote_spanned!(self_ty.span()=> <#self_ty as #k_private::AutoRegister>::make());
    spec::registration(m, self_ty, make)
}

/// A `#[tool]` impl with `#[action]` methods: the input enum, an output enum with one
/// variant per action, and the dispatch `match`.
fn polymorphic(
    m: &ToolMeta,
    model: &ActionsModel,
    methods: &[Call],
    self_ty: &Type,
) -> TokenStream {
    let krate = &m.krate;
    let input = &model.ident;
    let output = format_ident!("__ToolOutput");
    let enum_def = actions::enum_def(model);
    let enum_impls = actions::impls(model);
    let rets: Vec<&Type> = methods.iter().map(|c| &c.ret).collect();
    let out_enum = output_enum(krate, &output, model, &rets);
    let arms = model
        .actions
        .iter()
        .zip(methods)
        .map(|(a, Call { sig, ret })| {
            let v = &a.variant;
            let bindings: Vec<Ident> = (0..a.fields.len())
                .map(|i| format_ident!("__p{}", i))
                .collect();
            let pats = a.fields.iter().zip(&bindings).map(|(f, b)| {
                let field = &f.binding;
                quote!(#field: #b)
            });
            let method = &sig.ident;
            let mut args = vec![quote!(self)];
            args.extend(call_args(krate, sig, |i| {
                let b = &bindings[i];
                quote!(#b)
            }));
            let call = await_call(krate, ret, quote!(<#self_ty>::#method), &args);
            quote! {
                #input::#v { #(#pats),* } => {
                    ::core::result::Result::map(#call, #output::#v)
                }
            }
        });
    let builder = spec::builder(m);
    let imp = tool_impl(ToolImpl {
        krate,
        self_ty: quote!(#self_ty),
        input: (quote!(#input), Span::call_site()),
        output: (quote!(#output), Span::call_site()),
        spec: quote!(#builder.actions(<#input as #krate::Actions>::action_set())),
        body: Body::Block(quote! {
            match __input {
                #(#arms)*
            }
        }),
        sig_span: Span::call_site(),
    });
    let reg = registration(m, self_ty);
    quote! {
        const _: () = {
            #enum_def
            #enum_impls
            #out_enum
            #imp
            #reg
        };
    }
}

/// The output of a polymorphic impl: one variant per action holding its method's output,
/// serialized, rendered and described as that output (each through a helper whose bound is
/// blamed on the method's return type).
fn output_enum(krate: &Path, ident: &Ident, model: &ActionsModel, rets: &[&Type]) -> TokenStream {
    let private = crate_path::private(krate);
    let serde = quote!(#private::serde);
    let schemars = quote!(#private::schemars);
    let variants: Vec<&Ident> = model.actions.iter().map(|a| &a.variant).collect();
    let names = params::schema_names(&format!("{}Output", model.schema_name));
    let types: Vec<TokenStream> = rets.iter().map(|r| output_ty(krate, r)).collect();
    let helper = |name: &str, extra: TokenStream| -> Vec<TokenStream> {
        rets.iter()
            .zip(&types)
            .map(|(r, t)| {
                let span = first_arg_span(r);
                let f = params::private_fn(krate, span, name);
                quote_spanned!(span=> #f::<#t #extra>)
            })
            .collect()
    };
    let check = helper("check_output", quote!());
    let check = quote!(#(#check();)*);
    let ser = helper("output_serialize", quote!(, __S));
    let schema = helper("output_schema", quote!());
    let status = helper("output_status", quote!());
    let render = helper("output_render", quote!());
    let success = helper("output_is_success", quote!());
    quote! {
        /// The tool's output: the chosen action's.
        pub enum #ident {
            #(#variants(#types),)*
        }

        #[automatically_derived]
        impl #serde::Serialize for #ident {
            fn serialize<__S: #serde::Serializer>(
                &self,
                __serializer: __S,
            ) -> ::core::result::Result<__S::Ok, __S::Error> {
                #check
                match self {
                    #(Self::#variants(__o) => #ser(__o, __serializer),)*
                }
            }
        }

        #[automatically_derived]
        impl #krate::Render for #ident {
            fn status(&self) -> ::core::option::Option<::std::string::String> {
                #check
                match self {
                    #(Self::#variants(__o) => #status(__o),)*
                }
            }
            fn render(
                &self,
                __tracker: &mut #krate::ResourcesTracker,
            ) -> ::core::option::Option<::std::string::String> {
                #check
                match self {
                    #(Self::#variants(__o) => #render(__o, __tracker),)*
                }
            }
            fn is_success(&self) -> bool {
                #check
                match self {
                    #(Self::#variants(__o) => #success(__o),)*
                }
            }
            fn action_output(&self) -> ::core::option::Option<&dyn ::core::any::Any> {
                match self {
                    #(Self::#variants(__o) => ::core::option::Option::Some(__o),)*
                }
            }
        }

        #[automatically_derived]
        impl #schemars::JsonSchema for #ident {
            #names
            fn json_schema(__gen: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                #check
                #private::union_schema(::std::vec![#(#schema(__gen)),*])
            }
        }
    }
}
