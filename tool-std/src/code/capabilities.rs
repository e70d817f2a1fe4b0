//! What this client tells a server it can take: hierarchical document symbols, markdown or
//! plain hover text, links for definitions, diagnostics with their versions, call
//! hierarchy; no dynamic registration, no edits.

use lsp_types::{
    CallHierarchyClientCapabilities, ClientCapabilities, DocumentSymbolClientCapabilities,
    GotoCapability, HoverClientCapabilities, MarkupKind, PublishDiagnosticsClientCapabilities,
    ReferenceClientCapabilities, TextDocumentClientCapabilities,
    TextDocumentSyncClientCapabilities, WorkspaceClientCapabilities,
    WorkspaceSymbolClientCapabilities,
};

/// The client capabilities sent with `initialize`.
pub(crate) fn client_capabilities() -> ClientCapabilities {
    let text_document = TextDocumentClientCapabilities {
        synchronization: Some(TextDocumentSyncClientCapabilities {
            dynamic_registration: Some(false),
            will_save: Some(false),
            will_save_wait_until: Some(false),
            did_save: Some(false),
        }),
        hover: Some(HoverClientCapabilities {
            dynamic_registration: Some(false),
            content_format: Some(vec![MarkupKind::PlainText, MarkupKind::Markdown]),
        }),
        definition: Some(GotoCapability {
            dynamic_registration: Some(false),
            link_support: Some(true),
        }),
        references: Some(ReferenceClientCapabilities {
            dynamic_registration: Some(false),
        }),
        document_symbol: Some(DocumentSymbolClientCapabilities {
            hierarchical_document_symbol_support: Some(true),
            ..DocumentSymbolClientCapabilities::default()
        }),
        publish_diagnostics: Some(PublishDiagnosticsClientCapabilities {
            related_information: Some(false),
            version_support: Some(true),
            ..PublishDiagnosticsClientCapabilities::default()
        }),
        call_hierarchy: Some(CallHierarchyClientCapabilities {
            dynamic_registration: Some(false),
        }),
        ..TextDocumentClientCapabilities::default()
    };
    ClientCapabilities {
        text_document: Some(text_document),
        workspace: Some(WorkspaceClientCapabilities {
            workspace_folders: Some(true),
            configuration: Some(true),
            symbol: Some(WorkspaceSymbolClientCapabilities {
                dynamic_registration: Some(false),
                ..WorkspaceSymbolClientCapabilities::default()
            }),
            ..WorkspaceClientCapabilities::default()
        }),
        ..ClientCapabilities::default()
    }
}
