//! Where a report goes, written so that it never harms what is already there.
//!
//! - `-` is standard output.
//! - A regular file (or a path where nothing is yet) is written whole or not at all: into a
//!   temporary file of a unique name in the same directory, then renamed over the path, so a
//!   reader never sees half a report and two runs writing the same path never share a
//!   temporary file. Missing directories are made.
//! - Anything else that exists (a symlink, a device such as `/dev/stdout`, a FIFO) is opened
//!   and written through, never replaced: a symlink keeps pointing where it pointed, and its
//!   target receives the report.
//! - A directory is refused.
//!
//! [`Destination::check`] tells, before a run makes its first request, whether the report
//! could be written, so an unwritable path costs no run.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Where one report is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// `-`: standard output.
    Stdout,
    /// A path on the file system.
    Path(PathBuf),
}

impl Destination {
    /// The destination `path` names: `-` is standard output; a path that names a directory
    /// (one that exists, or one written with a trailing `/`) is refused.
    pub fn parse(path: &Path) -> Result<Destination, String> {
        if path.as_os_str() == "-" {
            return Ok(Destination::Stdout);
        }
        let text = path.as_os_str().to_string_lossy();
        let trailing = text.ends_with('/') || text.ends_with(std::path::MAIN_SEPARATOR);
        if trailing || path.is_dir() || path.file_name().is_none() {
            return Err(format!(
                "{} is a directory: name a file in it, e.g. {}",
                path.display(),
                path.join("report.json").display()
            ));
        }
        Ok(Destination::Path(path.to_path_buf()))
    }

    /// How the destination is named in messages.
    pub fn shown(&self) -> String {
        match self {
            Destination::Stdout => "standard output".to_string(),
            Destination::Path(path) => path.display().to_string(),
        }
    }

    /// Whether the destination can be written, found without writing it: the directory of a
    /// file to be replaced exists (or can be made) and takes a new file; a symlink, device or
    /// FIFO is writable. A missing directory is made.
    pub fn check(&self) -> io::Result<()> {
        let Destination::Path(path) = self else {
            return Ok(());
        };
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.is_dir() => Err(io::Error::other("it is a directory")),
            Ok(meta) if meta.is_file() => probe_directory(path),
            Ok(meta) if meta.file_type().is_symlink() => match std::fs::metadata(path) {
                Ok(target) if target.is_dir() => {
                    Err(io::Error::other("it is a symlink to a directory"))
                }
                Ok(_) => writable(path),
                // A dangling symlink: its target is made in the target's directory.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    let target = std::fs::read_link(path)?;
                    let target = match path.parent() {
                        Some(parent) if target.is_relative() => parent.join(target),
                        _ => target,
                    };
                    probe_directory(&target)
                }
                Err(e) => Err(e),
            },
            Ok(_) => writable(path),
            Err(e) if e.kind() == io::ErrorKind::NotFound => probe_directory(path),
            Err(e) => Err(e),
        }
    }

    /// Writes `bytes` to the destination (see the module's documentation for how).
    pub fn write(&self, bytes: &[u8]) -> io::Result<()> {
        match self {
            Destination::Stdout => {
                let mut out = io::stdout().lock();
                out.write_all(bytes)?;
                out.flush()
            }
            Destination::Path(path) => match std::fs::symlink_metadata(path) {
                Ok(meta) if meta.is_dir() => Err(io::Error::other("it is a directory")),
                Ok(meta) if meta.is_file() => replace(path, bytes),
                Ok(_) => write_through(path, bytes),
                Err(e) if e.kind() == io::ErrorKind::NotFound => replace(path, bytes),
                Err(e) => Err(e),
            },
        }
    }
}

/// The directory a file at `path` is written in (`.` for a bare file name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Makes the directory of `path` if it is missing, and makes (then removes) a temporary file in
/// it: the only test that holds for every user, root on a read-only file system included.
fn probe_directory(path: &Path) -> io::Result<()> {
    let dir = directory_of(path);
    std::fs::create_dir_all(dir)?;
    temporary_in(dir, path).map(drop)
}

/// A new temporary file beside `path`, of a name no other writer uses.
fn temporary_in(dir: &Path, path: &Path) -> io::Result<tempfile::NamedTempFile> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    // The report is not a secret: the permissions of a file made the ordinary way (0666 less
    // the umask), not the temporary file's 0600.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// Writes a regular file whole or not at all: a temporary file in the same directory, renamed
/// over `path`. A failed write leaves neither the temporary file nor a changed `path`.
fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = directory_of(path);
    std::fs::create_dir_all(dir)?;
    let mut file = temporary_in(dir, path)?;
    file.write_all(bytes)?;
    file.flush()?;
    file.persist(path).map(drop).map_err(|e| e.error)
}

/// Opens what `path` names (a symlink is followed) and writes into it.
fn write_through(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    file.write_all(bytes)?;
    file.flush()
}

/// Whether what `path` names may be written (a device or FIFO is not opened: opening a FIFO
/// waits for its reader).
#[cfg(unix)]
fn writable(path: &Path) -> io::Result<()> {
    rustix::fs::access(path, rustix::fs::Access::WRITE_OK).map_err(io::Error::from)
}

#[cfg(not(unix))]
fn writable(path: &Path) -> io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.permissions().readonly() {
        return Err(io::Error::from(io::ErrorKind::PermissionDenied));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_regular_file_is_replaced_and_leaves_nothing_beside_it() {
        let dir = dir();
        let path = dir.path().join("report.json");
        std::fs::write(&path, "old").unwrap();
        let destination = Destination::parse(&path).unwrap();
        destination.check().unwrap();
        destination.write(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(names(dir.path()), ["report.json"]);
    }

    #[test]
    fn missing_directories_are_made() {
        let dir = dir();
        let path = dir.path().join("a/b/report.json");
        let destination = Destination::parse(&path).unwrap();
        destination.check().unwrap();
        destination.write(b"x").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "x");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_written_through_and_kept() {
        let dir = dir();
        let target = dir.path().join("target.json");
        std::fs::write(&target, "old and longer").unwrap();
        let link = dir.path().join("stdout");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let destination = Destination::parse(&link).unwrap();
        destination.check().unwrap();
        destination.write(b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_link(&link).unwrap(), target);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names(dir.path()), ["stdout", "target.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_dangling_symlink_makes_its_target() {
        let dir = dir();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("made.json", &link).unwrap();
        let destination = Destination::parse(&link).unwrap();
        destination.check().unwrap();
        destination.write(b"x").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("made.json")).unwrap(),
            "x"
        );
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn a_device_is_written_through() {
        let null = Path::new("/dev/null");
        if !null.exists() {
            return;
        }
        let destination = Destination::parse(null).unwrap();
        destination.check().unwrap();
        destination.write(b"x").unwrap();
        assert!(!std::fs::symlink_metadata(null).unwrap().is_file());
    }

    #[test]
    fn a_directory_is_refused() {
        let dir = dir();
        let error = Destination::parse(dir.path()).unwrap_err();
        assert!(error.contains("is a directory"), "{error}");
        let slash = PathBuf::from(format!("{}/missing/", dir.path().display()));
        assert!(Destination::parse(&slash).is_err());
        assert_eq!(
            Destination::parse(Path::new("-")).unwrap(),
            Destination::Stdout
        );
    }

    #[test]
    fn a_path_under_a_file_is_found_unwritable_before_writing() {
        let dir = dir();
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        let destination = Destination::parse(&file.join("report.json")).unwrap();
        assert!(destination.check().is_err());
        assert!(destination.write(b"x").is_err());
    }

    #[test]
    fn concurrent_writers_of_one_path_never_collide() {
        let dir = dir();
        let path = dir.path().join("report.json");
        let writers: Vec<_> = (0..10)
            .map(|i| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let body = format!("{i}").repeat(10_000);
                    for _ in 0..10 {
                        Destination::Path(path.clone())
                            .write(body.as_bytes())
                            .unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.len(), 10_000);
        let first = text.chars().next().unwrap();
        assert!(text.chars().all(|c| c == first), "a report of one writer");
        assert_eq!(names(dir.path()), ["report.json"]);
    }
}
