//! The tool-name renames read from the registry: they map every old name like the standard ones,
//! those of every linked tool cover the standard ones, and a store migrates with them.

use tool_std::prompt::{
    AgentStore, Direction, MemoryAgentStore, NewAgent, STANDARD_RENAMES, ToolRenames,
    migrate_enabled_tools,
};

use crate::support::inventory_registry;
use crate::support::prompt::registry;

#[test]
fn renames_from_the_registry_map_every_old_name_like_the_standard_ones() {
    let registry = registry();
    let from_registry = ToolRenames::from_registry(&registry).unwrap();
    let standard = ToolRenames::standard();
    let (new_name, old_names) = STANDARD_RENAMES
        .iter()
        .find(|(name, _)| *name == "prompt_manager")
        .unwrap();
    for old in *old_names {
        assert_eq!(from_registry.new_name(old), Some(*new_name), "{old}");
        assert_eq!(from_registry.new_name(old), standard.new_name(old), "{old}");
    }
    assert_eq!(
        from_registry.rollback_names("prompt_manager"),
        standard.rollback_names("prompt_manager")
    );
    assert_eq!(
        from_registry.rollback_names("prompt_manager"),
        ["view_system_prompt", "update_system_prompt"]
    );
    assert_eq!(from_registry.new_name("prompt_manager"), None);
}

#[test]
fn renames_from_every_linked_tool_cover_the_standard_ones() {
    // Every tool this crate registers through `inventory`, as the command line builds it.
    let registry = inventory_registry();
    let renames = ToolRenames::from_registry(&registry).unwrap();
    let standard = ToolRenames::standard();
    for (new_name, old_names) in STANDARD_RENAMES {
        assert!(
            registry.get(new_name).is_some(),
            "`{new_name}` is registered"
        );
        for old in *old_names {
            assert_eq!(renames.new_name(old), Some(*new_name), "{old}");
        }
        assert_eq!(
            renames.rollback_names(new_name),
            standard.rollback_names(new_name),
            "{new_name}"
        );
    }
    // Forward and rollback agree with the standard renames on a whole list.
    let stored: Vec<String> = ["ViewSystemPromptTool", "grep", "web_fetch", "WebSearchTool"]
        .map(String::from)
        .to_vec();
    for direction in [Direction::Forward, Direction::Rollback] {
        assert_eq!(
            renames.rewrite(&stored, direction),
            standard.rewrite(&stored, direction)
        );
    }
    assert_eq!(
        renames.rewrite(&stored, Direction::Forward),
        ["prompt_manager", "grep", "web"]
    );
}

#[tokio::test]
async fn migrating_a_store_with_the_registrys_renames() {
    let store = MemoryAgentStore::new();
    let old = store
        .create(NewAgent::new("default", "Old").with_enabled_tools([
            "ViewSystemPromptTool",
            "UpdateSystemPromptTool",
            "WebSearchTool",
            "WebFetchTool",
        ]))
        .await
        .unwrap();
    let renames = ToolRenames::from_registry(&inventory_registry()).unwrap();
    let report = migrate_enabled_tools(&store, &renames, Direction::Forward)
        .await
        .unwrap();
    assert_eq!(report.changes.len(), 1);
    let migrated = store.get_by_id(old.id).await.unwrap().unwrap();
    assert_eq!(migrated.enabled_tools, ["prompt_manager", "web"]);
    // Idempotent.
    let again = migrate_enabled_tools(&store, &renames, Direction::Forward)
        .await
        .unwrap();
    assert!(again.changes.is_empty());
}
