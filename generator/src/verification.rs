//! `verification` in `MCPAQL-PROVENANCE.json` (REQ-GEN-5): the conformance runner's verdict
//! on a generated crate, bound by `code_hash` to the exact files it was reached with.
//!
//! `aqlgen conformance record` writes it. Regenerating keeps it only while every generated
//! file is byte-for-byte the same, so a recorded verdict never outlives the code it is about.

use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::error::Error;
use crate::output::GeneratedFile;

/// The provenance file's path in a crate.
pub const PROVENANCE: &str = "MCPAQL-PROVENANCE.json";

/// The member added to the provenance.
const MEMBER: &str = "\"verification\": ";

/// `sha256:<hex>` over every generated file but the provenance, in path order: each path,
/// a NUL, the contents, a NUL.
pub fn code_hash<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> String {
    let mut files: Vec<(&str, &[u8])> = files
        .into_iter()
        .filter(|(path, _)| *path != PROVENANCE)
        .collect();
    files.sort();
    let mut digest = Sha256::new();
    for (path, contents) in files {
        digest.update(path.as_bytes());
        digest.update([0]);
        digest.update(contents);
        digest.update([0]);
    }
    let hex: String = digest
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect();
    format!("sha256:{hex}")
}

/// The hash of generated files as they are in memory.
pub fn hash_of(files: &[GeneratedFile]) -> String {
    code_hash(
        files
            .iter()
            .map(|file| (file.path.as_str(), file.contents.as_bytes())),
    )
}

/// The provenance without its `verification`, and the `verification` when there is one.
pub fn split(provenance: &str) -> (String, Option<Value>) {
    let Some(start) = provenance.find(&format!(",\n  {MEMBER}")) else {
        return (provenance.to_owned(), None);
    };
    let Some(end) = provenance.rfind("\n}") else {
        return (provenance.to_owned(), None);
    };
    let value = &provenance[start + ",\n  ".len() + MEMBER.len()..end];
    let verification = serde_json::from_str(value).ok();
    let mut without = provenance[..start].to_owned();
    without.push_str(&provenance[end..]);
    (without, verification)
}

/// `provenance` (as the generator renders it, without verification) with `verification` as
/// its last member.
pub fn with(provenance: &str, verification: &Value) -> String {
    let (provenance, _) = split(provenance);
    let Some(end) = provenance.rfind("\n}") else {
        return provenance;
    };
    let rendered = serde_json::to_string_pretty(verification)
        .unwrap_or_default()
        .replace('\n', "\n  ");
    format!(
        "{},\n  {MEMBER}{rendered}{}",
        &provenance[..end],
        &provenance[end..]
    )
}

/// Keeps the `verification` of the provenance already in `dir` when `files` hash to its
/// `code_hash`: the verdict still describes exactly this code.
pub fn carry_over(dir: &Path, files: &mut [GeneratedFile]) {
    let Ok(existing) = std::fs::read_to_string(dir.join(PROVENANCE)) else {
        return;
    };
    let (_, Some(verification)) = split(&existing) else {
        return;
    };
    if verification["code_hash"] != hash_of(files) {
        return;
    }
    if let Some(file) = files.iter_mut().find(|file| file.path == PROVENANCE) {
        file.contents = with(&file.contents, &verification);
    }
}

/// The verdict of the conformance runner's reports: `passed` at the highest level whose every
/// run (one per endpoint mode, say) exited 0, else `failed` at the lowest level requested.
///
/// # Errors
///
/// [`Error::Config`] when a report is not the runner's JSON report.
pub fn verdict(code_hash: &str, reports: &[Value]) -> Result<Value, Error> {
    let mut runs: std::collections::BTreeMap<u64, bool> = std::collections::BTreeMap::new();
    let mut lowest: Option<u64> = None;
    for report in reports {
        let (Some(requested), Some(exit)) = (
            report["requestedLevel"].as_u64(),
            report["exitCode"].as_u64(),
        ) else {
            return Err(Error::Config(
                "a --report is not a conformance runner JSON report (no requestedLevel or \
                 exitCode); run the runner with --format json --output <file>"
                    .to_owned(),
            ));
        };
        lowest = Some(lowest.map_or(requested, |lowest| lowest.min(requested)));
        *runs.entry(requested).or_insert(true) &= exit == 0;
    }
    let passed = runs
        .iter()
        .filter(|(_, all_passed)| **all_passed)
        .map(|(level, _)| *level)
        .max();
    let spec = reports
        .first()
        .and_then(|report| report["specVersion"].as_str())
        .unwrap_or_default();
    Ok(match (passed, lowest) {
        (Some(level), _) => json!({
            "code_hash": code_hash,
            "conformance_result": "passed",
            "conformance_level": level,
            "spec_version_tested": spec,
        }),
        (None, Some(level)) => json!({
            "code_hash": code_hash,
            "conformance_result": "failed",
            "conformance_level": level,
            "spec_version_tested": spec,
        }),
        (None, None) => json!({"code_hash": code_hash, "conformance_result": "skipped"}),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROVENANCE_TEXT: &str = "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": 2\n  }\n}\n";

    #[test]
    fn verification_is_added_and_split_off_again() {
        let verification = json!({"code_hash": "sha256:00", "conformance_result": "passed"});
        let with_it = with(PROVENANCE_TEXT, &verification);
        assert_eq!(
            with_it,
            "{\n  \"a\": 1,\n  \"b\": {\n    \"c\": 2\n  },\n  \"verification\": {\n    \"code_hash\": \"sha256:00\",\n    \"conformance_result\": \"passed\"\n  }\n}\n"
        );
        let value: Value = serde_json::from_str(&with_it).expect("JSON");
        assert_eq!(value["verification"], verification);
        assert_eq!(
            split(&with_it),
            (PROVENANCE_TEXT.to_owned(), Some(verification.clone()))
        );
        assert_eq!(with(&with_it, &verification), with_it);
    }

    #[test]
    fn a_verdict_survives_regeneration_only_while_the_code_is_the_same() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let file = |path: &str, contents: &str| GeneratedFile {
            path: path.to_owned(),
            contents: contents.to_owned(),
        };
        let fresh = || {
            vec![
                file("src/lib.rs", "code"),
                file(PROVENANCE, PROVENANCE_TEXT),
            ]
        };
        let verification = json!({"code_hash": hash_of(&fresh()), "conformance_result": "passed"});
        std::fs::write(
            dir.path().join(PROVENANCE),
            with(PROVENANCE_TEXT, &verification),
        )
        .expect("written");

        let mut same = fresh();
        carry_over(dir.path(), &mut same);
        assert_eq!(split(&same[1].contents).1, Some(verification));

        let mut changed = fresh();
        changed[0].contents = "other code".to_owned();
        carry_over(dir.path(), &mut changed);
        assert_eq!(changed[1].contents, PROVENANCE_TEXT);
    }

    #[test]
    fn the_hash_leaves_the_provenance_out_and_ignores_order() {
        let one = code_hash([("b", b"2".as_slice()), ("a", b"1"), (PROVENANCE, b"x")]);
        let two = code_hash([("a", b"1".as_slice()), ("b", b"2"), (PROVENANCE, b"y")]);
        assert_eq!(one, two);
        assert_ne!(one, code_hash([("a", b"1".as_slice()), ("b", b"3")]));
    }

    #[test]
    fn verdicts_follow_the_exit_codes() {
        let report = |level: u64, exit: u64| json!({"requestedLevel": level, "exitCode": exit, "specVersion": "1.0.0-draft"});
        let passed = verdict("h", &[report(1, 0), report(2, 2)]).expect("reports");
        assert_eq!(passed["conformance_result"], "passed");
        assert_eq!(passed["conformance_level"], 1);
        // One mode's failure at a level is that level's failure.
        let per_mode = verdict(
            "h",
            &[report(1, 0), report(2, 0), report(1, 0), report(2, 2)],
        )
        .expect("reports");
        assert_eq!(per_mode["conformance_level"], 1);
        let failed = verdict("h", &[report(1, 1)]).expect("reports");
        assert_eq!(failed["conformance_result"], "failed");
        assert!(verdict("h", &[json!({})]).is_err());
    }
}
