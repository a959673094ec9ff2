//! Per-user upstream credentials (`--user-credentials FILE`): behind an authorization server,
//! each caller's upstream credential comes from a file the operator keeps, by the subject of
//! the caller's access token. The access token itself never reaches the upstream.
//!
//! The file is a JSON object from subject to credential, `{"alice": "…", "bob": "…"}`. It is
//! read again when its modification time changes, so users are added and removed without a
//! restart; a file that cannot be read or parsed leaves the last good one in force.

use crate::sync::{self, Unpoisoned as _};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::time::SystemTime;

/// The operator's store of upstream credentials by subject.
pub struct UserCredentials {
    path: PathBuf,
    kept: RwLock<Kept>,
}

#[derive(Default)]
struct Kept {
    modified: Option<SystemTime>,
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
        let (modified, by_subject) = read(path)?;
        warn_if_readable_by_others(path);
        Ok(Self {
            path: path.to_owned(),
            kept: RwLock::new(Kept {
                modified,
                by_subject,
            }),
        })
    }

    /// The credential on file for `subject`, the file read again first if it changed.
    pub fn credential(&self, subject: &str) -> Option<String> {
        let changed = std::fs::metadata(&self.path)
            .and_then(|metadata| metadata.modified())
            .ok();
        let stale = sync::read(&self.kept).modified != changed;
        if stale {
            match read(&self.path) {
                Ok((modified, by_subject)) => {
                    *self.kept.locked() = Kept {
                        modified,
                        by_subject,
                    };
                    tracing::info!(path = %self.path.display(), "user credentials read again");
                }
                Err(why) => {
                    // Not read again until the file changes once more.
                    self.kept.locked().modified = changed;
                    tracing::warn!("user credentials kept as they were: {why}");
                }
            }
        }
        sync::read(&self.kept).by_subject.get(subject).cloned()
    }
}

fn read(path: &Path) -> Result<(Option<SystemTime>, HashMap<String, String>), String> {
    let shown = path.display();
    let modified = std::fs::metadata(path)
        .and_then(|metadata| metadata.modified())
        .ok();
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read the user credentials {shown}: {error}"))?;
    let by_subject: HashMap<String, String> = serde_json::from_str(&text).map_err(|_| {
        format!(
            "the user credentials {shown} are not a JSON object from subject to credential, such as {{\"alice\": \"...\"}}"
        )
    })?;
    Ok((modified, by_subject))
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
    fn credentials_follow_the_file() {
        let dir = std::env::temp_dir().join(format!("aqlgen-users-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a directory");
        let path = dir.join("users.json");
        std::fs::write(&path, r#"{"alice": "key-a"}"#).expect("write");
        let store = UserCredentials::open(&path).expect("opens");
        assert_eq!(store.credential("alice").as_deref(), Some("key-a"));
        assert_eq!(store.credential("bob"), None);
        // A later modification time, as an operator's edit has.
        std::fs::write(&path, r#"{"alice": "key-a", "bob": "key-b"}"#).expect("write");
        let later = SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|file| file.set_modified(later))
            .expect("touch");
        assert_eq!(store.credential("bob").as_deref(), Some("key-b"));
        std::fs::write(&path, "not json").expect("write");
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|file| file.set_modified(later + std::time::Duration::from_secs(5)))
            .expect("touch");
        assert_eq!(
            store.credential("bob").as_deref(),
            Some("key-b"),
            "a broken file leaves the last good one"
        );
        assert!(UserCredentials::open(&dir.join("missing.json")).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }
}
