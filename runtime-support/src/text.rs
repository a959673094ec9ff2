//! Text the runtime writes about what it was sent: shortened echoes and JSON sizes.

use std::borrow::Cow;

/// `text` cut to `max` characters, marked with `…` when cut.
pub fn shorten(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]).into(),
        None => text.into(),
    }
}

/// Byte length of the compact JSON text of `value`, counted without building it.
pub fn serialized_len(value: &impl serde::Serialize) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    match serde_json::to_writer(&mut counter, value) {
        Ok(()) => counter.0,
        // Serializing JSON values cannot fail; count it as too large if it ever does.
        Err(_) => usize::MAX,
    }
}
