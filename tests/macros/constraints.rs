//! `#[param(example = .., range(min = .., max = ..))]`: the schema carries them, validation
//! enforces the range, the example call in an error and the provider exports show the
//! examples; an input struct's own schemars attributes do the same.

use serde_json::{Value, json};
use toolsmith::provider::{Format, export};
use toolsmith::{Action, Registry, Render, ToolResult, tool};

use crate::support::macros::{call, session};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Paced {
    laps: u32,
}
impl Render for Paced {}

/// Set the pace of a run.
#[tool(register = false)]
async fn pace(
    /// Minutes per lap.
    #[param(range(min = 5, max = 30), example = 12.5)]
    target: f64,
    /// How many laps.
    #[param(range(min = 1, max = 100), example = 3, example = 10)]
    laps: Option<u32>,
    /// What the run is called.
    #[param(example = "morning")]
    name: Option<String>,
) -> ToolResult<Paced> {
    let _ = (target, name);
    Ok(Paced {
        laps: laps.unwrap_or(1),
    })
}

fn pace_spec() -> toolsmith::ToolSpec {
    let registry = Registry::builder().register(PaceTool).build().unwrap();
    toolsmith::ToolSpec::clone(registry.get("pace").unwrap().spec())
}

#[test]
fn the_schema_carries_examples_and_ranges() {
    let spec = pace_spec();
    let props = &spec.input_schema["properties"];
    assert_eq!(props["target"]["minimum"], json!(5));
    assert_eq!(props["target"]["maximum"], json!(30));
    assert_eq!(props["target"]["examples"], json!([12.5]));
    assert_eq!(props["laps"]["minimum"], json!(1));
    assert_eq!(props["laps"]["maximum"], json!(100));
    assert_eq!(props["laps"]["examples"], json!([3, 10]));
    assert_eq!(props["name"]["examples"], json!(["morning"]));
    assert!(props["name"].get("minimum").is_none());
}

#[tokio::test]
async fn validation_enforces_the_range_and_the_error_offers_the_example() {
    let registry = Registry::builder().register(PaceTool).build().unwrap();
    let session = session(registry);
    let out = call(&session, "pace", json!({"target": 1.5})).await;
    let text = out.to_string();
    assert!(
        text.contains("`target` must be a number from 5 to 30, got 1.5"),
        "{text}"
    );
    assert!(text.contains("pace(target=12.5)"), "{text}");
    let out = call(&session, "pace", json!({"target": 10, "laps": 101})).await;
    assert!(
        out.to_string()
            .contains("`laps` must be an integer from 1 to 100, got 101"),
        "{out}"
    );
    let out = call(&session, "pace", json!({"target": 30, "laps": 100})).await;
    assert_eq!(out["laps"], json!(100), "{out}");
}

#[test]
fn anthropic_exports_the_examples_as_input_examples() {
    let out = export(&pace_spec(), Format::Anthropic).unwrap();
    let entry = out.as_json().unwrap();
    assert_eq!(
        entry["input_examples"],
        json!([
            {"target": 12.5, "laps": 3, "name": "morning"},
            {"target": 12.5, "laps": 10, "name": "morning"}
        ])
    );
}

/// Pick a gear.
#[derive(Action, Debug)]
enum Gear {
    /// Shift to a gear.
    Shift {
        /// The gear, 1 to 5.
        #[param(range(min = 1, max = 5), example = 2)]
        gear: u8,
    },
    /// Coast.
    Coast,
}

/// Ride a bike.
#[tool(register = false)]
async fn ride(args: Gear) -> ToolResult<Paced> {
    let laps = match args {
        Gear::Shift { gear } => u32::from(gear),
        Gear::Coast => 0,
    };
    Ok(Paced { laps })
}

#[tokio::test]
async fn an_actions_parameter_takes_a_range_and_an_example() {
    let registry = Registry::builder().register(RideTool).build().unwrap();
    let spec = toolsmith::ToolSpec::clone(registry.get("ride").unwrap().spec());
    let gear = &spec.input_schema["properties"]["gear"];
    assert_eq!(
        (&gear["minimum"], &gear["maximum"], &gear["examples"]),
        (&json!(1), &json!(5), &json!([2]))
    );
    let session = session(registry);
    let out = call(&session, "ride", json!({"action": "shift", "gear": 9})).await;
    let text = out.to_string();
    assert!(
        text.contains("`gear` must be an integer from 1 to 5, got 9"),
        "{text}"
    );
    assert!(text.contains("gear=2"), "{text}");
}

/// An input struct of its own, with schemars' attributes.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Climb {
    /// Metres.
    #[schemars(range(min = 10, max = 900), example = 250)]
    height: u32,
}

/// Climb a hill.
#[tool(register = false)]
async fn climb(args: Climb) -> ToolResult<Paced> {
    Ok(Paced { laps: args.height })
}

#[tokio::test]
async fn an_input_structs_schemars_range_and_example_count_too() {
    let registry = Registry::builder().register(ClimbTool).build().unwrap();
    let spec = toolsmith::ToolSpec::clone(registry.get("climb").unwrap().spec());
    let out = export(&spec, Format::Anthropic).unwrap();
    assert_eq!(
        out.as_json().unwrap()["input_examples"],
        json!([{"height": 250}])
    );
    let session = session(registry);
    let out = call(&session, "climb", json!({"height": 5})).await;
    let text = out.to_string();
    assert!(
        text.contains("`height` must be an integer from 10 to 900, got 5"),
        "{text}"
    );
    assert!(text.contains("climb(height=250)"), "{text}");
    let ok: Value = call(&session, "climb", json!({"height": 900})).await;
    assert_eq!(ok["laps"], json!(900), "{ok}");
}
