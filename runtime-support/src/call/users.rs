//! Per-user upstream credentials (`--user-credentials FILE`): behind an authorization server,
//! each caller's upstream credential comes from a file the operator keeps, by the subject of
//! the caller's access token. The access token itself never reaches the upstream.
//!
//! The file is a JSON object from subject to credential, `{"alice": "…", "bob": "…"}`. Its
//! content is read again at most [`CHECK_EVERY`] apart and taken when it differs from the
//! last good one, whatever its modification time says (an edit within the same second, a
//! file copied with its old time), so users are added and removed without a restart; a file
//! that cannot be read or parsed leaves the last good one in force.

use crate::sync::{self, Unpoisoned as _};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::time::{Duration, Instant};

/// The longest a changed file goes unnoticed.
pub const CHECK_EVERY: Duration = Duration::from_secs(1);

/// The operator's store of upstream credentials by subject.
pub struct UserCredentials {
    path: PathBuf,
    kept: RwLock<Kept>,
}

struct Kept {
    /// When the file was last read.
    checked: Instant,
    /// The hash of the content last read, good or not.
    digest: [u8; 32],
    by_subject: HashMap<String, String>,
}

impl UserCredentials {
    /// The store in the file at `path`, read once now.
    ///
    /// # Errors
    ///
    /// A message for the operator when the file cannot be read or is not a JSON object of
    /// strings.
    pub fn open(path: &Path) -> Result<Self, String> {
        let text = read(path)?;
        let by_subject = parse(path, &text)?;
        warn_if_readable_by_others(path);
        Ok(Self {
            path: path.to_owned(),
            kept: RwLock::new(Kept {
                checked: Instant::now(),
                digest: Sha256::digest(&text).into(),
                by_subject,
            }),
        })
    }

    /// The credential on file for `subject`, the file read again first if it was last read
    /// [`CHECK_EVERY`] ago.
    pub fn credential(&self, subject: &str) -> Option<String> {
        if sync::read(&self.kept).checked.elapsed() >= CHECK_EVERY {
            self.check();
        }
        sync::read(&self.kept).by_subject.get(subject).cloned()
    }

    /// Reads the file, and takes it when its content changed and parses.
    fn check(&self) {
        let mut kept = self.kept.locked();
        // Another call may have checked while this one waited for the lock.
        if kept.checked.elapsed() < CHECK_EVERY {
            return;
        }
        kept.checked = Instant::now();
        let text = match read(&self.path) {
            Ok(text) => text,
            Err(why) => {
                tracing::warn!("user credentials kept as they were: {why}");
                return;
            }
        };
        let digest: [u8; 32] = Sha256::digest(&text).into();
        if digest == kept.digest {
            return;
        }
        // Not parsed again until the content changes once more.
        kept.digest = digest;
        match parse(&self.path, &text) {
            Ok(by_subject) => {
                kept.by_subject = by_subject;
                tracing::info!(path = %self.path.display(), "user credentials read again");
            }
            Err(why) => tracing::warn!("user credentials kept as they were: {why}"),
        }
    }
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|error| {
        format!(
            "cannot read the user credentials {}: {error}",
            path.display()
        )
    })
}

fn parse(path: &Path, text: &[u8]) -> Result<HashMap<String, String>, String> {
    serde_json::from_slice(text).map_err(|_| {
        format!(
            "the user credentials {} are not a JSON object from subject to credential, such as {{\"alice\": \"...\"}}",
            path.display()
        )
    })
}

/// Warns when anyone but the file's owner and group may read the credentials.
fn warn_if_readable_by_others(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if std::fs::metadata(path).is_ok_and(|metadata| metadata.permissions().mode() & 0o004 != 0)
        {
            tracing::warn!(path = %path.display(), "the user credentials are readable by every user of this machine; chmod o-r it");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_follow_the_files_content_whatever_its_time() {
        let dir = std::env::temp_dir().join(format!("aqlgen-users-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory");
        let path = dir.join("users.json");
        let write = |text: &str| {
            // Every write carries the same modification time, as a copy that keeps it does.
            std::fs::write(&path, text).expect("write");
            std::fs::File::options()
                .write(true)
                .open(&path)
                .and_then(|file| file.set_modified(std::time::UNIX_EPOCH))
                .expect("touch");
        };
        let later = || std::thread::sleep(CHECK_EVERY + Duration::from_millis(50));
        write(r#"{"alice": "key-a", "bob": "key-b"}"#);
        let store = UserCredentials::open(&path).expect("opens");
        assert_eq!(store.credential("alice").as_deref(), Some("key-a"));
        assert_eq!(store.credential("bob").as_deref(), Some("key-b"));
        write(r#"{"alice": "key-a"}"#);
        later();
        assert_eq!(store.credential("bob"), None, "a removed user loses access");
        write("not json");
        later();
        assert_eq!(
            store.credential("alice").as_deref(),
            Some("key-a"),
            "a broken file leaves the last good one"
        );
        assert!(UserCredentials::open(&dir.join("missing.json")).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
