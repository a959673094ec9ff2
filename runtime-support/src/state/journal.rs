//! The in-process store's optional file (`--state file:PATH`): an append-only journal of
//! JSON lines, so tokens, counters, blocks and the cursor key survive a restart.
//!
//! Every write appends one line per entry (`{"k":…,"v":…,"u":<expiry, unix ms>}`) before the
//! map changes, so what the process acted on is on file first; the last line of a key wins.
//! A line is one `write` to a file opened for appending: it survives the process being killed
//! (the kernel holds it), not the machine losing power (no `fsync` per call, which would cost
//! milliseconds each). Opening replays the file, drops what has expired and a torn last line,
//! and rewrites it with the live entries; it is rewritten the same way whenever it has grown
//! to several times what is live. A sidecar `PATH.lock`, locked for the life of the process,
//! keeps a second process off the same file.
//!
//! Plain files rather than an embedded database: the store is a handful of expiring strings
//! written on gated calls, and a journal is all that takes, with nothing to migrate.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::{Unavailable, unix_millis};

/// One stored string and when it expires.
pub(super) struct Entry {
    pub(super) value: String,
    pub(super) until: SystemTime,
}

/// The journal is rewritten when it holds this many lines and more than
/// [`GROWTH`] times the live entries.
const COMPACT_FLOOR: usize = 10_000;
/// See [`COMPACT_FLOOR`].
const GROWTH: usize = 4;

/// One line of the file.
#[derive(Serialize, Deserialize)]
struct Line<'a> {
    k: Cow<'a, str>,
    v: Cow<'a, str>,
    u: u64,
}

/// The open journal of one store.
pub(super) struct Journal {
    path: PathBuf,
    file: File,
    /// Held, not read: its lock keeps other processes off `path`.
    _lock: File,
    /// Lines in the file.
    lines: usize,
    /// Whether the last append failed (the store then reports itself unavailable).
    failed: bool,
}

impl Journal {
    /// Locks and replays the journal at `path` (created when missing), and rewrites it with
    /// the entries still live at `now`, which it returns.
    ///
    /// # Errors
    ///
    /// A sentence for the operator: the file cannot be read or written, or another process
    /// holds it.
    pub(super) fn open(
        path: &Path,
        now: SystemTime,
    ) -> Result<(Self, HashMap<String, Entry>), String> {
        let failed = |doing: &str, error: std::io::Error| {
            format!("state file {}: cannot {doing}: {error}", path.display())
        };
        // A symlink is followed once, here: the lock and every rewrite are the file's own,
        // so a process reaching it by another name, or replacing the link, is refused.
        let resolved = resolve(path)?;
        let path = resolved.as_path();
        if path.is_dir() {
            return Err(format!(
                "state file {}: is a directory; name a file in it, e.g. {}",
                path.display(),
                path.join("state.jsonl").display()
            ));
        }
        let lock_path = sidecar(path, "lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|error| failed("create its lock file", error))?;
        lock.try_lock().map_err(|error| match error {
            TryLockError::WouldBlock => format!(
                "state file {}: another process is using it (it holds {})",
                path.display(),
                lock_path.display()
            ),
            TryLockError::Error(error) => failed("lock it", error),
        })?;
        let entries = match File::open(path) {
            Ok(file) => {
                let replayed = replay(BufReader::new(file), now, path)
                    .map_err(|error| failed("read it", error))?;
                // Lines, none of them an entry: some other file, which a rewrite would destroy.
                if replayed.entry_lines == 0 && replayed.other_lines > 0 {
                    return Err(format!(
                        "state file {}: holds no state entry, so it is not an aqlgen state file; \
                         name a new file or move this one away",
                        path.display()
                    ));
                }
                replayed.entries
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => HashMap::new(),
            Err(error) => return Err(failed("open it", error)),
        };
        let file = rewrite(path, &entries).map_err(|error| failed("rewrite it", error))?;
        let journal = Self {
            path: path.to_owned(),
            file,
            _lock: lock,
            lines: entries.len(),
            failed: false,
        };
        Ok((journal, entries))
    }

    /// Appends `writes` as one `write`; on failure nothing may be changed in memory.
    pub(super) fn append<'a>(
        &mut self,
        writes: impl Iterator<Item = (&'a str, &'a str, SystemTime)>,
    ) -> Result<(), Unavailable> {
        // After a failed write, start on a fresh line: a torn fragment stays a line of its own.
        let mut text = if self.failed {
            String::from("\n")
        } else {
            String::new()
        };
        let mut count = 0;
        for (key, value, until) in writes {
            push_line(&mut text, key, value, until);
            count += 1;
        }
        match self.file.write_all(text.as_bytes()) {
            Ok(()) => {
                self.lines += count;
                self.failed = false;
                Ok(())
            }
            Err(error) => {
                if !self.failed {
                    tracing::error!(
                        path = %self.path.display(),
                        %error,
                        "cannot append to the state file; calls needing state are refused"
                    );
                }
                self.failed = true;
                Err(Unavailable)
            }
        }
    }

    /// Whether the last append succeeded.
    #[cfg(feature = "http")]
    pub(super) fn healthy(&self) -> bool {
        !self.failed
    }

    /// Rewrites the file with `entries` once it has grown well past them.
    pub(super) fn compact_if_grown(&mut self, entries: &HashMap<String, Entry>) {
        if self.lines < COMPACT_FLOOR || self.lines <= GROWTH * entries.len() {
            return;
        }
        match rewrite(&self.path, entries) {
            Ok(file) => {
                self.file = file;
                self.lines = entries.len();
            }
            Err(error) => tracing::warn!(
                path = %self.path.display(),
                %error,
                "cannot compact the state file; appending to it as it is"
            ),
        }
    }
}

/// The file `path` names: itself, or the file its symlinks lead to (which must exist), or,
/// for a file yet to be made, `path` in its directory with the directory's links resolved.
fn resolve(path: &Path) -> Result<PathBuf, String> {
    match fs::symlink_metadata(path) {
        Ok(_) => fs::canonicalize(path).map_err(|error| {
            format!(
                "state file {}: is a link to a file which cannot be reached ({error}); name the file itself",
                path.display()
            )
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let parent = path
                .parent()
                .filter(|parent| !parent.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let directory = fs::canonicalize(parent).map_err(|error| {
                format!(
                    "state file {}: its directory cannot be reached: {error}",
                    path.display()
                )
            })?;
            Ok(match path.file_name() {
                Some(name) => directory.join(name),
                None => directory,
            })
        }
        Err(error) => Err(format!("state file {}: cannot read it: {error}", path.display())),
    }
}

/// `PATH.<suffix>` beside `path`.
fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(suffix);
    PathBuf::from(name)
}

fn push_line(text: &mut String, key: &str, value: &str, until: SystemTime) {
    let line = Line {
        k: Cow::Borrowed(key),
        v: Cow::Borrowed(value),
        u: unix_millis(until),
    };
    // A struct of strings and a number always serializes.
    if let Ok(json) = serde_json::to_string(&line) {
        text.push_str(&json);
        text.push('\n');
    }
}

/// What replaying a journal found.
struct Replayed {
    /// The last line of each key, unless expired.
    entries: HashMap<String, Entry>,
    /// Lines that are entries.
    entry_lines: usize,
    /// Lines that are not (a torn write), skipped.
    other_lines: usize,
}

/// Replays a journal; a line that is not an entry (a write torn by a crash or a full disk) is
/// skipped with a warning.
fn replay(reader: impl BufRead, now: SystemTime, path: &Path) -> std::io::Result<Replayed> {
    let mut entries = HashMap::new();
    let (mut entry_lines, mut other_lines) = (0, 0);
    // Lines as bytes: one that is not UTF-8 (a torn write, a stray byte) is skipped like any
    // other line that is no entry, not a reason to refuse to start.
    for (index, line) in reader.split(b'\n').enumerate() {
        let line = line?;
        if line.is_empty() || line == b"\r" {
            continue;
        }
        match serde_json::from_slice::<Line<'_>>(&line) {
            Ok(Line { k, v, u }) => {
                entry_lines += 1;
                entries.insert(
                    k.into_owned(),
                    Entry {
                        value: v.into_owned(),
                        until: SystemTime::UNIX_EPOCH + Duration::from_millis(u),
                    },
                );
            }
            Err(_) => {
                other_lines += 1;
                tracing::warn!(
                    path = %path.display(),
                    line = index + 1,
                    "skipping a state file line which is not an entry"
                );
            }
        }
    }
    entries.retain(|_, entry| entry.until > now);
    Ok(Replayed {
        entries,
        entry_lines,
        other_lines,
    })
}

/// Writes `entries` to `PATH.new`, syncs it and renames it over `path`; returns the new file
/// open for appending.
fn rewrite(path: &Path, entries: &HashMap<String, Entry>) -> std::io::Result<File> {
    let fresh = sidecar(path, "new");
    let mut text = String::new();
    for (key, entry) in entries {
        push_line(&mut text, key, &entry.value, entry.until);
    }
    let mut file = File::create(&fresh)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    drop(file);
    fs::rename(&fresh, path)?;
    OpenOptions::new().append(true).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_path(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("aqlgen-journal-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("a temp dir");
        dir.join("state.jsonl")
    }

    #[test]
    fn entries_survive_reopening_and_expired_or_torn_lines_do_not() {
        let path = temp_path("reopen");
        let now = SystemTime::now();
        let later = now + Duration::from_secs(60);
        {
            let (mut journal, entries) = Journal::open(&path, now).expect("opens");
            assert!(entries.is_empty());
            journal
                .append([("a", "1", later), ("gone", "x", now)].into_iter())
                .expect("appends");
            journal
                .append([("a", "2", later)].into_iter())
                .expect("appends");
        }
        let mut file = OpenOptions::new().append(true).open(&path).expect("opens");
        file.write_all(br#"{"k":"torn","v":"#).expect("writes");
        drop(file);

        let (_journal, entries) =
            Journal::open(&path, now + Duration::from_millis(1)).expect("reopens");
        assert_eq!(entries.len(), 1);
        assert_eq!(entries["a"].value, "2");
        let rewritten = fs::read_to_string(&path).expect("reads");
        assert_eq!(rewritten.lines().count(), 1, "{rewritten}");
    }

    #[test]
    fn a_directory_is_refused_before_anything_is_written() {
        let path = temp_path("directory");
        let dir = path.parent().expect("a parent");
        let error = Journal::open(dir, SystemTime::now())
            .err()
            .expect("a directory is refused");
        assert!(error.contains("is a directory"), "{error}");
        assert!(!sidecar(dir, "lock").exists());
    }

    #[test]
    fn a_file_with_no_entry_is_left_as_it_is() {
        let path = temp_path("foreign");
        fs::write(&path, "[server]\nport = 8080\n").expect("writes");
        let error = Journal::open(&path, SystemTime::now())
            .err()
            .expect("refused");
        assert!(error.contains("not an aqlgen state file"), "{error}");
        assert_eq!(
            fs::read_to_string(&path).expect("reads"),
            "[server]\nport = 8080\n"
        );
    }

    #[test]
    fn a_second_process_cannot_open_the_same_file() {
        let path = temp_path("locked");
        let (_held, _) = Journal::open(&path, SystemTime::now()).expect("opens");
        let error = Journal::open(&path, SystemTime::now())
            .err()
            .expect("refused while held");
        assert!(error.contains("another process"), "{error}");
    }

    /// The lock is the file's own, whatever name reaches it: a link to a locked file is
    /// refused, so no second process keeps state of its own beside the first.
    #[test]
    fn a_link_leads_to_the_same_lock() {
        let path = temp_path("link");
        let link = path.with_file_name("link.jsonl");
        let (_held, _) = Journal::open(&path, SystemTime::now()).expect("opens");
        std::os::unix::fs::symlink(&path, &link).expect("a symlink");
        let error = Journal::open(&link, SystemTime::now())
            .err()
            .expect("refused through the link");
        assert!(error.contains("another process"), "{error}");
        assert!(
            fs::symlink_metadata(&link)
                .expect("still there")
                .is_symlink(),
            "the link is left as it is"
        );
        let dangling = path.with_file_name("dangling.jsonl");
        std::os::unix::fs::symlink(path.with_file_name("nowhere.jsonl"), &dangling)
            .expect("a symlink");
        let error = Journal::open(&dangling, SystemTime::now())
            .err()
            .expect("a dangling link is refused");
        assert!(error.contains("cannot be reached"), "{error}");
    }

    #[test]
    fn a_line_that_is_not_utf8_is_skipped() {
        let path = temp_path("bytes");
        let later = SystemTime::now() + Duration::from_secs(60);
        {
            let (mut journal, _) = Journal::open(&path, SystemTime::now()).expect("opens");
            journal
                .append([("a", "1", later)].into_iter())
                .expect("appends");
        }
        let mut file = OpenOptions::new().append(true).open(&path).expect("opens");
        file.write_all(b"\xff\xfe not text\n").expect("writes");
        drop(file);
        let (_journal, entries) = Journal::open(&path, SystemTime::now()).expect("starts");
        assert_eq!(entries["a"].value, "1");
    }

    #[test]
    fn a_grown_journal_is_rewritten_with_what_is_live() {
        let path = temp_path("compact");
        let later = SystemTime::now() + Duration::from_secs(60);
        let (mut journal, mut entries) = Journal::open(&path, SystemTime::now()).expect("opens");
        for round in 0..COMPACT_FLOOR {
            let value = round.to_string();
            journal
                .append([("counter", value.as_str(), later)].into_iter())
                .expect("appends");
            entries.insert(
                "counter".to_owned(),
                Entry {
                    value,
                    until: later,
                },
            );
        }
        journal.compact_if_grown(&entries);
        journal
            .append([("other", "x", later)].into_iter())
            .expect("appends");
        let text = fs::read_to_string(&path).expect("reads");
        assert_eq!(text.lines().count(), 2, "{text}");
        let (_, reopened) = {
            drop(journal);
            Journal::open(&path, SystemTime::now()).expect("reopens")
        };
        assert_eq!(reopened["counter"].value, (COMPACT_FLOOR - 1).to_string());
        assert_eq!(reopened["other"].value, "x");
    }
}
