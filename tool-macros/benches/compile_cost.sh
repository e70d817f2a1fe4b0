#!/usr/bin/env bash
# Compile cost of the macros, as a crate author feels it in the edit-compile loop: a crate of
# N tools, each with two parameters (`String` and `Option<i64>`), doc comments and a read-only
# annotation, written three ways:
#
#   macro_tools   `#[tool]` functions
#   manual_tools  the same tools as hand-written `impl Tool` (same spec and registration)
#   rmcp_tools    the same tools on rmcp 3.11's `#[tool_router]` / `#[tool]`, with
#                 `Parameters<ArgsN>` and a structured `Json<Out>` result (rmcp is a
#                 dependency of this generated crate only, never of the workspace)
#
# All three crates live in one throwaway workspace with one target directory. Dependencies
# are built first (and are shared), then each crate is rebuilt RUNS times after touching its
# source, so only the crate itself is measured: `cargo check` (expansion and type checking)
# and `cargo build` (with code generation), best of RUNS each. With `cargo llvm-lines`
# installed (`cargo install cargo-llvm-lines`; it works on stable), it also counts the
# functions each crate instantiates (the "copies" column: monomorphized functions, the
# stable stand-in for nightly's `-Zprint-mono-items`), in all and per tool. Not part of the
# test suite; needs crates.io for rmcp.
#
#   tool-macros/benches/compile_cost.sh            # N=100, RUNS=3, dev profile
#   N=50 RUNS=5 PROFILE=release tool-macros/benches/compile_cost.sh
#   KEEP=1 tool-macros/benches/compile_cost.sh     # keep the generated crates to look at
#
# CARGO_TARGET_DIR is honoured for the dependency cache (default: a fresh temp dir, so the
# first run builds the dependencies, which takes a few minutes).
set -euo pipefail

N=${N:-100}
RUNS=${RUNS:-3}
PROFILE=${PROFILE:-dev}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/toolsmith-compile-cost.XXXXXX")
if [ -n "${KEEP:-}" ]; then
    echo "keeping the generated crates in $WORK" >&2
else
    trap 'rm -rf "$WORK"' EXIT
fi
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$WORK/target}
CRATES=(macro_tools manual_tools rmcp_tools)

deps() {
    case $1 in
    rmcp_tools)
        cat <<TOML
[dependencies]
rmcp = { version = "=3.11.0", default-features = false, features = ["macros", "server"] }
serde = { version = "1", features = ["derive"] }
serde_json = "1"
TOML
        ;;
    *)
        cat <<TOML
[dependencies]
toolsmith = { path = "$ROOT", default-features = false }
schemars = "1.2"
serde = { version = "1", features = ["derive"] }
serde_json = "1"
TOML
        ;;
    esac
}

for name in "${CRATES[@]}"; do
    mkdir -p "$WORK/$name/src"
    { printf '[package]\nname = "%s"\nversion = "0.1.0"\nedition = "2024"\n\n' "$name"; deps "$name"; } \
        >"$WORK/$name/Cargo.toml"
done
cat >"$WORK/Cargo.toml" <<TOML
[workspace]
members = ["macro_tools", "manual_tools", "rmcp_tools"]
resolver = "3"
TOML
cp "$ROOT/Cargo.lock" "$WORK/Cargo.lock"

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
    limit: Option<i64>,
) -> ToolResult<Out> {
    Ok(Out { text: format!("$i:{query}:{limit:?}") })
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
    limit: Option<i64>,
}

/// Tool number $i: echo the query.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tool$i;

impl Tool for Tool$i {
    type Input = Args$i;
    type Output = Out;
    fn spec(&self) -> ToolSpec {
        ToolSpec::new("tool_$i", "Tool number $i: echo the query.")
            .category("bench")
            .annotations(Annotations::new().read_only(true))
    }
    async fn call(&self, _ctx: &ToolContext, args: Args$i) -> Result<Out, ToolError> {
        let Args$i { query, limit } = args;
        Ok(Out { text: format!("$i:{query}:{limit:?}") })
    }
}

toolsmith::submit_tool!(Tool$i);
RS
    done
} >"$WORK/manual_tools/src/lib.rs"

{
    cat <<'RS'
#![allow(missing_docs, dead_code, unused_imports)]
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::{ErrorData, schemars, tool, tool_router};

#[derive(serde::Serialize, schemars::JsonSchema)]
pub struct Out {
    pub text: String,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct Server;
RS
    for i in $(seq 1 "$N"); do
        cat <<RS

#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Args$i {
    /// The query.
    query: String,
    /// At most this many results.
    limit: Option<i64>,
}
RS
    done
    printf '\n#[tool_router(server_handler)]\nimpl Server {'
    for i in $(seq 1 "$N"); do
        cat <<RS

    /// Tool number $i: echo the query.
    #[tool(annotations(read_only_hint = true))]
    async fn tool_$i(
        &self,
        Parameters(Args$i { query, limit }): Parameters<Args$i>,
    ) -> Result<Json<Out>, ErrorData> {
        Ok(Json(Out { text: format!("$i:{query}:{limit:?}") }))
    }
RS
    done
    echo '}'
} >"$WORK/rmcp_tools/src/lib.rs"

cd "$WORK"
echo "building the shared dependencies ($PROFILE profile, target $CARGO_TARGET_DIR)..." >&2
cargo build --quiet --profile "$PROFILE" --workspace
cargo check --quiet --profile "$PROFILE" --workspace

# Best of RUNS wall times of `cargo $1` on crate $2 after touching its source.
measure() {
    local cmd=$1 name=$2 best="" t0 t1 dt
    for _ in $(seq 1 "$RUNS"); do
        touch "$WORK/$name/src/lib.rs"
        t0=$(date +%s.%N)
        cargo "$cmd" --quiet --profile "$PROFILE" -p "$name"
        t1=$(date +%s.%N)
        dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
        best=$(awk -v d="$dt" -v b="$best" 'BEGIN { print (b == "" || d < b) ? d : b }')
    done
    echo "$best"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

declare -A check build
for name in "${CRATES[@]}"; do
    check[$name]=$(measure check "$name")
    build[$name]=$(measure build "$name")
done

printf '%d tools, %s profile, best of %d rebuilds of the crate alone:\n' "$N" "$PROFILE" "$RUNS"
printf '  %-26s %10s %10s\n' "" "check (s)" "build (s)"
printf '  %-26s %10s %10s\n' "#[tool] functions" "${check[macro_tools]}" "${build[macro_tools]}"
printf '  %-26s %10s %10s\n' "hand-written impl Tool" "${check[manual_tools]}" "${build[manual_tools]}"
printf '  %-26s %10s %10s\n' "rmcp 3.11 #[tool_router]" "${check[rmcp_tools]}" "${build[rmcp_tools]}"
printf '  %-26s %10s %10s\n' "ratio macro / manual" \
    "$(ratio "${check[macro_tools]}" "${check[manual_tools]}")" \
    "$(ratio "${build[macro_tools]}" "${build[manual_tools]}")"
printf '  %-26s %10s %10s\n' "ratio macro / rmcp" \
    "$(ratio "${check[macro_tools]}" "${check[rmcp_tools]}")" \
    "$(ratio "${build[macro_tools]}" "${build[rmcp_tools]}")"

if cargo llvm-lines --version >/dev/null 2>&1; then
    echo "functions instantiated (cargo llvm-lines, copies; lines of LLVM IR):"
    for name in "${CRATES[@]}"; do
        # The TOTAL row: `lines (100%) copies (100%) (TOTAL)`; the numbers in order.
        total=$(cargo llvm-lines --profile "$PROFILE" -p "$name" --lib 2>/dev/null |
            awk '/\(TOTAL\)/ {
                n = 0
                for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) v[++n] = $i
                print v[2] " " v[1]; exit
            }')
        read -r copies lines <<<"$total"
        printf '  %-26s %8s copies (%s per tool), %9s lines\n' "$name" "$copies" \
            "$(awk -v c="$copies" -v n="$N" 'BEGIN { printf "%.1f", c / n }')" "$lines"
    done
else
    echo "(install cargo-llvm-lines to count the functions each crate instantiates)"
fi
