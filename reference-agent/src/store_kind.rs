//! Where the agent keeps its tasks (`--store memory|sqlite:PATH`), and each principal's.

/// Where the agent keeps its tasks (`--store`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum StoreKind {
    /// In memory: a restart forgets everything.
    #[default]
    Memory,
    /// A SQLite database at this path (created if missing): tasks, their history and
    /// artifacts, contexts and what an open task needs to resume survive a restart.
    Sqlite(std::path::PathBuf),
}

impl StoreKind {
    /// The store of the principal at `index` of the bearer tokens (0 = the first, whose store
    /// is this one): under SQLite, `PATH.principal-N` (N = index + 1) beside `PATH`.
    pub fn for_principal(&self, index: usize) -> StoreKind {
        match self {
            StoreKind::Sqlite(path) if index > 0 => {
                let mut name = path.as_os_str().to_owned();
                name.push(format!(".principal-{}", index + 1));
                StoreKind::Sqlite(name.into())
            }
            other => other.clone(),
        }
    }
}

impl std::str::FromStr for StoreKind {
    type Err = String;

    /// `memory` or `sqlite:PATH`.
    fn from_str(text: &str) -> Result<Self, String> {
        match text.split_once(':') {
            _ if text == "memory" => Ok(StoreKind::Memory),
            Some(("sqlite", path)) if !path.is_empty() => Ok(StoreKind::Sqlite(path.into())),
            _ => Err(format!("expected `memory` or `sqlite:PATH`, got {text:?}")),
        }
    }
}
