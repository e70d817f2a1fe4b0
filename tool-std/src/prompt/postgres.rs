//! [`PostgresAgentStore`]: agents in the Postgres database replicas share (feature
//! `postgres`).
//!
//! # Design
//!
//! - **Beside the other shared state.** The tables (`toolsmith_agents`,
//!   `toolsmith_agent_former_names`) live in the database of a
//!   [`PostgresStore`], created and upgraded by its
//!   versioned migrations (component `tool-std/agents`; a newer schema is refused), and the
//!   store's pool serves them.
//! - **The same rules as the other stores.** Limits are checked before anything is written;
//!   `UNIQUE (account, name)` backs the name rule (a violation is
//!   [`StoreError::NameTaken`]), and `CHECK` constraints bound the lengths (in bytes, four per
//!   character of the limit) and require `enabled_tools` to be a JSON array.
//! - **Any text round-trips.** Names, accounts and prompts are kept as their UTF-8 bytes
//!   (`BYTEA`), since Postgres `TEXT` cannot hold the NUL character that the other stores
//!   keep; read them with `convert_from(name, 'UTF8')`.
//! - **Atomic across replicas.** Every write is one transaction; an update reads the row
//!   `FOR UPDATE`, so two replicas changing one agent queue behind each other, and
//!   [`AgentStore::compare_and_set_enabled_tools`] compares and writes under that lock.
//!   Creating an agent that another replica creates at the same moment gives both the same
//!   agent ([`AgentStore::get_or_create`]).
//! - **Renames are remembered**, as in the SQLite store: the last
//!   [`MAX_FORMER_NAMES`] names per agent.

use async_trait::async_trait;
use tool_core::postgres::deadpool_postgres::tokio_postgres::{self, GenericClient, Row};
use tool_core::postgres::{PostgresError, PostgresStore};

use super::store::{
    Agent, AgentStore, MAX_FORMER_NAMES, NewAgent, PromptField, StoreError, SwapOutcome,
};

/// The migrations of the agent tables: step *n* takes them from version *n* to *n + 1*.
const MIGRATIONS: &[&str] = &["
CREATE TABLE toolsmith_agents (
    id                       BIGSERIAL PRIMARY KEY,
    account                  BYTEA NOT NULL,
    name                     BYTEA NOT NULL
                             CHECK (octet_length(name) > 0 AND octet_length(name) <= 40000),
    system_prompt            BYTEA CHECK (octet_length(system_prompt) <= 200000),
    reflection_prompt        BYTEA CHECK (octet_length(reflection_prompt) <= 40000),
    memory_reflection_prompt BYTEA CHECK (octet_length(memory_reflection_prompt) <= 40000),
    enabled_tools            TEXT NOT NULL DEFAULT '[]'
                             CHECK (jsonb_typeof(enabled_tools::jsonb) = 'array'),
    UNIQUE (account, name)
);
CREATE SEQUENCE toolsmith_agent_renames;
CREATE TABLE toolsmith_agent_former_names (
    account  BYTEA NOT NULL,
    name     BYTEA NOT NULL,
    agent_id BIGINT NOT NULL REFERENCES toolsmith_agents (id) ON DELETE CASCADE,
    seq      BIGINT NOT NULL DEFAULT nextval('toolsmith_agent_renames'),
    PRIMARY KEY (account, name)
);
CREATE INDEX toolsmith_agent_former_names_agent ON toolsmith_agent_former_names (agent_id, seq);
"];

/// The component name of the agent tables' migrations.
pub const COMPONENT: &str = "tool-std/agents";

const COLUMNS: &str =
    "id, account, name, system_prompt, reflection_prompt, memory_reflection_prompt, enabled_tools";

/// An [`AgentStore`] in Postgres, shared by every replica on the database. Cheap to clone.
/// See the [module documentation](self) for the design.
///
/// ```no_run
/// use tool_core::postgres::{PostgresConfig, PostgresStore};
/// use tool_std::prompt::{AgentStore, PostgresAgentStore};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let shared = PostgresStore::connect("postgres://toolsmith@db/toolsmith", PostgresConfig::default()).await?;
/// let store = PostgresAgentStore::open(&shared).await?;
/// let sage = store.get_or_create("default", "Sage").await?;
/// # let _ = sage;
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct PostgresAgentStore {
    store: PostgresStore,
}

fn backend(operation: &'static str) -> impl Fn(tokio_postgres::Error) -> StoreError {
    move |e| {
        if e.code() == Some(&tokio_postgres::error::SqlState::LOCK_NOT_AVAILABLE) {
            return StoreError::Busy;
        }
        StoreError::backend(operation, e)
    }
}

fn unreachable(operation: &'static str) -> impl Fn(PostgresError) -> StoreError {
    move |e| StoreError::backend(operation, e)
}

fn is_unique_violation(e: &tokio_postgres::Error) -> bool {
    e.code() == Some(&tokio_postgres::error::SqlState::UNIQUE_VIOLATION)
}

fn decode(row: &Row) -> Result<Agent, StoreError> {
    let id: i64 = row.get(0);
    let tools: String = row.get(6);
    let enabled_tools = serde_json::from_str(&tools).map_err(|err| StoreError::Corrupt {
        id,
        detail: format!("enabled_tools is not a JSON list of tool names ({err})"),
    })?;
    let text = |i: usize| -> Result<Option<String>, StoreError> {
        row.get::<_, Option<Vec<u8>>>(i)
            .map(|bytes| {
                String::from_utf8(bytes).map_err(|_| StoreError::Corrupt {
                    id,
                    detail: format!("column {} is not UTF-8", row.columns()[i].name()),
                })
            })
            .transpose()
    };
    Ok(Agent {
        id,
        account: text(1)?.unwrap_or_default(),
        name: text(2)?.unwrap_or_default(),
        system_prompt: text(3)?,
        reflection_prompt: text(4)?,
        memory_reflection_prompt: text(5)?,
        enabled_tools,
    })
}

/// Text as the tables keep it.
fn bytes(text: &str) -> &[u8] {
    text.as_bytes()
}

fn opt_bytes(text: &Option<String>) -> Option<&[u8]> {
    text.as_deref().map(str::as_bytes)
}

fn encode_tools(tools: &[String]) -> Result<String, StoreError> {
    serde_json::to_string(tools).map_err(|err| StoreError::backend("encoding enabled_tools", err))
}

async fn select(
    client: &impl GenericClient,
    operation: &'static str,
    filter: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Result<Option<Agent>, StoreError> {
    let row = client
        .query_opt(
            &format!("SELECT {COLUMNS} FROM toolsmith_agents WHERE {filter}"),
            params,
        )
        .await
        .map_err(backend(operation))?;
    row.as_ref().map(decode).transpose()
}

async fn by_name(
    client: &impl GenericClient,
    operation: &'static str,
    account: &str,
    name: &str,
) -> Result<Option<Agent>, StoreError> {
    select(
        client,
        operation,
        "account = $1 AND name = $2",
        &[&bytes(account), &bytes(name)],
    )
    .await
}

async fn by_former_name(
    client: &impl GenericClient,
    operation: &'static str,
    account: &str,
    name: &str,
) -> Result<Option<Agent>, StoreError> {
    select(
        client,
        operation,
        "id = (SELECT agent_id FROM toolsmith_agent_former_names WHERE account = $1 AND name = $2)",
        &[&bytes(account), &bytes(name)],
    )
    .await
}

/// `name` is now a current name in `account`: no agent keeps it as a former one.
async fn forget_former_name(
    client: &impl GenericClient,
    operation: &'static str,
    account: &str,
    name: &str,
) -> Result<(), StoreError> {
    client
        .execute(
            "DELETE FROM toolsmith_agent_former_names WHERE account = $1 AND name = $2",
            &[&bytes(account), &bytes(name)],
        )
        .await
        .map_err(backend(operation))?;
    Ok(())
}

impl PostgresAgentStore {
    /// The agent store on `store`'s database, its tables brought to this build's schema.
    ///
    /// Errors: [`StoreError::Backend`] when the server cannot be reached or holds a newer
    /// schema (the message says which, and what to do).
    pub async fn open(store: &PostgresStore) -> Result<Self, StoreError> {
        store
            .migrate(COMPONENT, MIGRATIONS)
            .await
            .map_err(unreachable("opening the agent tables"))?;
        Ok(PostgresAgentStore {
            store: store.clone(),
        })
    }

    /// The shared store the agents live in.
    pub fn store(&self) -> &PostgresStore {
        &self.store
    }

    async fn client(
        &self,
        operation: &'static str,
    ) -> Result<tool_core::postgres::deadpool_postgres::Object, StoreError> {
        self.store.client().await.map_err(unreachable(operation))
    }

    async fn insert(
        client: &impl GenericClient,
        agent: NewAgent,
    ) -> Result<Option<Agent>, StoreError> {
        const OPERATION: &str = "creating an agent";
        let tools = encode_tools(&agent.enabled_tools)?;
        let row = client
            .query_opt(
                "INSERT INTO toolsmith_agents (account, name, system_prompt, reflection_prompt, \
                 memory_reflection_prompt, enabled_tools) VALUES ($1, $2, $3, $4, $5, $6) \
                 ON CONFLICT (account, name) DO NOTHING RETURNING id",
                &[
                    &bytes(&agent.account),
                    &bytes(&agent.name),
                    &opt_bytes(&agent.system_prompt),
                    &opt_bytes(&agent.reflection_prompt),
                    &opt_bytes(&agent.memory_reflection_prompt),
                    &tools,
                ],
            )
            .await
            .map_err(backend(OPERATION))?;
        let Some(row) = row else {
            return Ok(None);
        };
        forget_former_name(client, OPERATION, &agent.account, &agent.name).await?;
        Ok(Some(agent.into_agent(row.get(0))))
    }

    /// Runs `write` on agent `id`'s row, locked, in one transaction.
    async fn locked<T>(
        &self,
        operation: &'static str,
        id: i64,
        write: impl AsyncFnOnce(
            &tokio_postgres::Transaction<'_>,
            Agent,
        ) -> Result<(T, bool), StoreError>,
    ) -> Result<T, StoreError> {
        let mut client = self.client(operation).await?;
        let tx = client.transaction().await.map_err(backend(operation))?;
        let current = select(&*tx, operation, "id = $1 FOR UPDATE", &[&id])
            .await?
            .ok_or(StoreError::NotFound { id })?;
        let (value, commit) = write(&tx, current).await?;
        if commit {
            tx.commit().await.map_err(backend(operation))?;
        }
        Ok(value)
    }
}

#[async_trait]
impl AgentStore for PostgresAgentStore {
    async fn get_by_id(&self, id: i64) -> Result<Option<Agent>, StoreError> {
        const OPERATION: &str = "reading an agent";
        let client = self.client(OPERATION).await?;
        select(&**client, OPERATION, "id = $1", &[&id]).await
    }

    async fn get_by_name(&self, account: &str, name: &str) -> Result<Option<Agent>, StoreError> {
        const OPERATION: &str = "reading an agent";
        let client = self.client(OPERATION).await?;
        by_name(&**client, OPERATION, account, name).await
    }

    async fn get_by_former_name(
        &self,
        account: &str,
        name: &str,
    ) -> Result<Option<Agent>, StoreError> {
        const OPERATION: &str = "reading an agent";
        let client = self.client(OPERATION).await?;
        by_former_name(&**client, OPERATION, account, name).await
    }

    async fn create(&self, agent: NewAgent) -> Result<Agent, StoreError> {
        const OPERATION: &str = "creating an agent";
        agent.validate()?;
        let (account, name) = (agent.account.clone(), agent.name.clone());
        let mut client = self.client(OPERATION).await?;
        let tx = client.transaction().await.map_err(backend(OPERATION))?;
        let created = Self::insert(&*tx, agent)
            .await?
            .ok_or(StoreError::NameTaken { account, name })?;
        tx.commit().await.map_err(backend(OPERATION))?;
        Ok(created)
    }

    async fn get_or_create(&self, account: &str, name: &str) -> Result<Agent, StoreError> {
        const OPERATION: &str = "creating an agent";
        let mut client = self.client(OPERATION).await?;
        if let Some(agent) = by_name(&**client, OPERATION, account, name).await? {
            return Ok(agent);
        }
        if let Some(agent) = by_former_name(&**client, OPERATION, account, name).await? {
            return Ok(agent);
        }
        let new = NewAgent::new(account, name);
        new.validate()?;
        let tx = client.transaction().await.map_err(backend(OPERATION))?;
        let created = Self::insert(&*tx, new).await?;
        tx.commit().await.map_err(backend(OPERATION))?;
        match created {
            Some(agent) => Ok(agent),
            // Another replica created it meanwhile: that one.
            None => by_name(&**client, OPERATION, account, name)
                .await?
                .ok_or_else(|| {
                    StoreError::backend(
                        OPERATION,
                        format!("agent '{name}' was taken and then disappeared; try again"),
                    )
                }),
        }
    }

    async fn list(&self) -> Result<Vec<Agent>, StoreError> {
        const OPERATION: &str = "listing agents";
        let client = self.client(OPERATION).await?;
        let rows = client
            .query(
                &format!("SELECT {COLUMNS} FROM toolsmith_agents ORDER BY id"),
                &[],
            )
            .await
            .map_err(backend(OPERATION))?;
        rows.iter().map(decode).collect()
    }

    async fn list_account(&self, account: &str) -> Result<Vec<Agent>, StoreError> {
        const OPERATION: &str = "listing agents";
        let client = self.client(OPERATION).await?;
        let rows = client
            .query(
                &format!("SELECT {COLUMNS} FROM toolsmith_agents WHERE account = $1 ORDER BY id"),
                &[&bytes(account)],
            )
            .await
            .map_err(backend(OPERATION))?;
        rows.iter().map(decode).collect()
    }

    async fn update_field(
        &self,
        id: i64,
        field: PromptField,
        value: &str,
    ) -> Result<Agent, StoreError> {
        const OPERATION: &str = "updating an agent";
        field.validate(value)?;
        self.locked(OPERATION, id, async |tx, current| {
            // The column name comes from a closed enum, never from the caller's text.
            let update = format!(
                "UPDATE toolsmith_agents SET {} = $1 WHERE id = $2",
                field.column()
            );
            match tx.execute(&update, &[&bytes(value), &id]).await {
                Ok(_) => {}
                Err(e) if is_unique_violation(&e) => {
                    return Err(StoreError::NameTaken {
                        account: current.account,
                        name: value.to_owned(),
                    });
                }
                Err(e) => return Err(backend(OPERATION)(e)),
            }
            if field == PromptField::Name && current.name != value {
                record_rename(tx, id, &current.account, &current.name, value).await?;
            }
            let agent = select(tx, OPERATION, "id = $1", &[&id])
                .await?
                .ok_or(StoreError::NotFound { id })?;
            Ok((agent, true))
        })
        .await
    }

    async fn set_enabled_tools(&self, id: i64, tools: &[String]) -> Result<Agent, StoreError> {
        const OPERATION: &str = "updating enabled tools";
        let encoded = encode_tools(tools)?;
        self.locked(OPERATION, id, async |tx, mut current| {
            tx.execute(
                "UPDATE toolsmith_agents SET enabled_tools = $1 WHERE id = $2",
                &[&encoded, &id],
            )
            .await
            .map_err(backend(OPERATION))?;
            current.enabled_tools = tools.to_vec();
            Ok((current, true))
        })
        .await
    }

    async fn compare_and_set_enabled_tools(
        &self,
        id: i64,
        expected: &[String],
        new: &[String],
    ) -> Result<SwapOutcome, StoreError> {
        const OPERATION: &str = "updating enabled tools";
        let encoded = encode_tools(new)?;
        self.locked(OPERATION, id, async |tx, mut current| {
            if current.enabled_tools != expected {
                return Ok((SwapOutcome::Stale(current), false));
            }
            tx.execute(
                "UPDATE toolsmith_agents SET enabled_tools = $1 WHERE id = $2",
                &[&encoded, &id],
            )
            .await
            .map_err(backend(OPERATION))?;
            current.enabled_tools = new.to_vec();
            Ok((SwapOutcome::Swapped(current), true))
        })
        .await
    }
}

/// Records that agent `id` of `account` was called `old` before being renamed to `new`,
/// keeping its last [`MAX_FORMER_NAMES`] former names.
async fn record_rename(
    tx: &tokio_postgres::Transaction<'_>,
    id: i64,
    account: &str,
    old: &str,
    new: &str,
) -> Result<(), StoreError> {
    const OPERATION: &str = "renaming an agent";
    forget_former_name(tx, OPERATION, account, new).await?;
    tx.execute(
        "INSERT INTO toolsmith_agent_former_names (account, name, agent_id) VALUES ($1, $2, $3) \
         ON CONFLICT (account, name) DO UPDATE SET agent_id = excluded.agent_id, \
         seq = nextval('toolsmith_agent_renames')",
        &[&bytes(account), &bytes(old), &id],
    )
    .await
    .map_err(backend(OPERATION))?;
    tx.execute(
        "DELETE FROM toolsmith_agent_former_names WHERE agent_id = $1 AND seq NOT IN \
         (SELECT seq FROM toolsmith_agent_former_names WHERE agent_id = $1 \
          ORDER BY seq DESC LIMIT $2)",
        &[&id, &(MAX_FORMER_NAMES as i64)],
    )
    .await
    .map_err(backend(OPERATION))?;
    Ok(())
}
