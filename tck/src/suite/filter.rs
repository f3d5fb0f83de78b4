//! Which checks a run selects: the weakest level, id globs, bindings and versions.

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::suite::check::{Binding, Check, Level, ProtocolVersion};

/// Which checks to run.
#[derive(Debug, Clone)]
pub struct Filter {
    /// The weakest level to run.
    pub level: Level,
    /// Id globs (`tasks.*`); empty means all.
    pub select: Vec<String>,
    /// Bindings to test (`--binding`); empty means every binding the card declares.
    pub bindings: Vec<Binding>,
    /// Protocol versions to test (`--protocol-version`); empty means every version the card declares.
    pub versions: Vec<ProtocolVersion>,
}

impl Default for Filter {
    fn default() -> Self {
        Filter {
            level: Level::May,
            select: Vec::new(),
            bindings: Vec::new(),
            versions: Vec::new(),
        }
    }
}

impl Filter {
    fn globs(&self) -> Result<Option<GlobSet>, String> {
        if self.select.is_empty() {
            return Ok(None);
        }
        let mut builder = GlobSetBuilder::new();
        for pattern in &self.select {
            builder.add(Glob::new(pattern).map_err(|e| format!("bad --select {pattern:?}: {e}"))?);
        }
        builder.build().map(Some).map_err(|e| e.to_string())
    }

    /// Whether the filter keeps the check `id` of `level` (the client mode's checks, which are
    /// not in the catalogue).
    pub fn keeps(&self, id: &str, level: Level) -> Result<bool, String> {
        let globs = self.globs()?;
        Ok(level <= self.level && globs.as_ref().is_none_or(|g| g.is_match(id)))
    }

    /// The checks of `catalog` this filter keeps, in catalogue order.
    pub fn apply<'a, Run>(&self, catalog: &'a [Check<Run>]) -> Result<Vec<&'a Check<Run>>, String> {
        let globs = self.globs()?;
        let kept: Vec<&Check<Run>> = catalog
            .iter()
            .filter(|c| c.level <= self.level)
            .filter(|c| globs.as_ref().is_none_or(|g| g.is_match(c.id)))
            .collect();
        if let (Some(globs), true) = (&globs, kept.is_empty()) {
            let matching = catalog.iter().filter(|c| globs.is_match(c.id)).count();
            return Err(if matching == 0 {
                format!(
                    "--select {:?} matches no check (see `a2a-tck list`)",
                    self.select
                )
            } else {
                format!(
                    "--select {:?} matches {matching} check(s), all weaker than --level {}",
                    self.select,
                    self.level.as_str().to_lowercase()
                )
            });
        }
        Ok(kept)
    }
}
