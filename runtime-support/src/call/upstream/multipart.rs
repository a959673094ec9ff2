//! `multipart/form-data` bodies (RFC 7578), written out whole: the parts are in memory
//! already, and a fixed body keeps retries and redirects simple.

use reqwest::header::HeaderValue;

use crate::adapter::Part;

/// The `Content-Type` (with its boundary) and the bytes of a body of `parts`.
pub(super) fn encode(parts: &[Part]) -> (HeaderValue, Vec<u8>) {
    let boundary = boundary(parts);
    let mut body = Vec::new();
    for part in parts {
        body.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
        let (name, content_type, content): (&str, Option<&str>, &[u8]) = match part {
            Part::Text { name, text } => (name, None, text.as_bytes()),
            Part::Json { name, text } => (name, Some("application/json"), text.as_bytes()),
            Part::File { name, bytes } => (name, Some("application/octet-stream"), bytes),
        };
        let name = quoted(name);
        match part {
            Part::File { .. } => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"{name}\"\r\n")
                    .as_bytes(),
            ),
            _ => body.extend_from_slice(
                format!("Content-Disposition: form-data; name=\"{name}\"\r\n").as_bytes(),
            ),
        }
        if let Some(content_type) = content_type {
            body.extend_from_slice(format!("Content-Type: {content_type}\r\n").as_bytes());
        }
        body.extend_from_slice(b"\r\n");
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    let content_type = HeaderValue::from_str(&format!("multipart/form-data; boundary={boundary}"))
        .expect("a boundary of ASCII letters and digits");
    (content_type, body)
}

/// A boundary that occurs in no part: random, numbered, and checked, so a failing entropy
/// source still ends in a free one.
fn boundary(parts: &[Part]) -> String {
    (0_u64..)
        .map(|attempt| {
            let mut random = [0_u8; 12];
            let _ = getrandom::fill(&mut random);
            let random: String = random.iter().map(|byte| format!("{byte:02x}")).collect();
            format!("aqlgen-{random}-{attempt}")
        })
        .find(|boundary| {
            parts.iter().all(|part| {
                let content: &[u8] = match part {
                    Part::Text { text, .. } | Part::Json { text, .. } => text.as_bytes(),
                    Part::File { bytes, .. } => bytes,
                };
                !content
                    .windows(boundary.len())
                    .any(|window| window == boundary.as_bytes())
            })
        })
        .expect("the numbers run out after the parts' contents")
}

/// A part name inside a quoted-string: quotes and line breaks percent-encoded, as browsers do.
fn quoted(name: &str) -> String {
    name.replace('"', "%22")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_each_part_between_boundaries() {
        let parts = [
            Part::Text {
                name: "title",
                text: "hi".to_owned(),
            },
            Part::File {
                name: "file",
                bytes: vec![0, 1, 2],
            },
        ];
        let (content_type, body) = encode(&parts);
        let content_type = content_type.to_str().expect("ASCII");
        let boundary = content_type
            .strip_prefix("multipart/form-data; boundary=")
            .expect("a boundary");
        let mut expected = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nhi\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"file\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n"
        )
        .into_bytes();
        expected.extend_from_slice(&[0, 1, 2]);
        expected.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        assert_eq!(body, expected);
    }
}
