//! Token counts as a model sees them: OpenAI's o200k_base BPE, the vocabulary tiktoken-rs ships.

/// The number of o200k_base tokens in `text`, special-token look-alikes counted as plain text.
pub fn count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_plain_words() {
        assert_eq!(super::count(""), 0);
        assert!(super::count("list the open issues of a repository") >= 6);
    }
}
