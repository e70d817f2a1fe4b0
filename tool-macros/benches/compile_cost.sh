#!/usr/bin/env bash
# Compile cost of the macros: builds a crate of N `#[tool]` functions and a crate of the N
# equivalent hand-written `impl Tool` tools (same parameters, doc comments, spec and
# registration), and prints the wall time of each crate's own compilation and their ratio.
#
# Both crates live in one throwaway workspace with one target directory. Dependencies are
# built first (and are shared), then each crate is rebuilt RUNS times after touching its
# source, so only the crate itself is measured. Not part of the test suite.
#
#   tool-macros/benches/compile_cost.sh            # N=100, RUNS=3, dev profile
#   N=50 RUNS=5 PROFILE=release tool-macros/benches/compile_cost.sh
#
# CARGO_TARGET_DIR is honoured for the dependency cache (default: a fresh temp dir, so the
# first run builds the dependencies, which takes a few minutes).
set -euo pipefail

N=${N:-100}
RUNS=${RUNS:-3}
PROFILE=${PROFILE:-dev}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/toolsmith-compile-cost.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$WORK/target}

deps() {
    cat <<TOML
[dependencies]
toolsmith = { path = "$ROOT", default-features = false }
async-trait = "0.1.89"
schemars = "1.2"
serde = { version = "1", features = ["derive"] }
serde_json = "1"
TOML
}

mkdir -p "$WORK/macro_tools/src" "$WORK/manual_tools/src"
cat >"$WORK/Cargo.toml" <<TOML
[workspace]
members = ["macro_tools", "manual_tools"]
resolver = "3"
TOML
cp "$ROOT/Cargo.lock" "$WORK/Cargo.lock"
for name in macro_tools manual_tools; do
    { printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2024"\n\n' "$name"; deps; } \
        >"$WORK/$name/Cargo.toml"
done

common() {
    cat <<'RS'
#![allow(missing_docs, dead_code, unused_imports)]
use toolsmith::{Render, ToolContext, ToolError, ToolResult};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {
    pub text: String,
}
impl Render for Out {}
RS
}

{
    common
    echo 'use toolsmith::tool;'
    for i in $(seq 1 "$N"); do
        cat <<RS

/// Tool number $i: echo the query.
#[tool(category = "bench", read_only)]
pub async fn tool_$i(
    _ctx: &ToolContext,
    /// The query.
    query: String,
    /// At most this many results.
    limit: Option<u32>,
    /// Whether to say more.
    verbose: bool,
) -> ToolResult<Out> {
    Ok(Out { text: format!("$i:{query}:{limit:?}:{verbose}") })
}
RS
    done
} >"$WORK/macro_tools/src/lib.rs"

{
    common
    echo 'use toolsmith::{Annotations, Tool, ToolSpec};'
    for i in $(seq 1 "$N"); do
        cat <<RS

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args$i {
    /// The query.
    query: String,
    /// At most this many results.
    limit: Option<u32>,
    /// Whether to say more.
    verbose: bool,
}

/// Tool number $i: echo the query.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tool$i;

#[async_trait::async_trait]
impl Tool for Tool$i {
    type Input = Args$i;
    type Output = Out;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("tool_$i", "Tool number $i: echo the query.")
            .category("bench")
            .annotations(Annotations::new().read_only(true))
    }
    async fn call(&self, _ctx: &ToolContext, args: Args$i) -> Result<Out, ToolError> {
        let Args$i { query, limit, verbose } = args;
        Ok(Out { text: format!("$i:{query}:{limit:?}:{verbose}") })
    }
}

toolsmith::submit_tool!(Tool$i);
RS
    done
} >"$WORK/manual_tools/src/lib.rs"

cd "$WORK"
echo "building the shared dependencies ($PROFILE profile, target $CARGO_TARGET_DIR)..." >&2
cargo build --quiet --profile "$PROFILE" --workspace

measure() {
    local name=$1 best="" t0 t1 dt
    for _ in $(seq 1 "$RUNS"); do
        touch "$WORK/$name/src/lib.rs"
        t0=$(date +%s.%N)
        cargo build --quiet --profile "$PROFILE" -p "$name"
        t1=$(date +%s.%N)
        dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
        best=$(awk -v d="$dt" -v b="$best" 'BEGIN { print (b == "" || d < b) ? d : b }')
    done
    echo "$best"
}

macro=$(measure macro_tools)
manual=$(measure manual_tools)
printf '%d tools, %s profile, best of %d rebuilds of the crate alone:\n' "$N" "$PROFILE" "$RUNS"
printf '  #[tool] functions:        %6.2f s\n' "$macro"
printf '  hand-written impl Tool:   %6.2f s\n' "$manual"
printf '  ratio (macro / manual):   %6.2f\n' "$(awk -v a="$macro" -v b="$manual" 'BEGIN { print a / b }')"
