//! The schema reference's complete examples (fenced as ```` ```markdown adapter ````, or
//! ```` ```yaml generator-format ```` for the generator document's format) pass `check`, so
//! the page cannot teach a schema aqlgen refuses.

#[test]
fn the_schema_reference_examples_pass_check() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/schema-reference.md");
    let text = std::fs::read_to_string(path).expect("docs/schema-reference.md exists");
    let mut examples = 0;
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if !matches!(line, "```markdown adapter" | "```yaml generator-format") {
            continue;
        }
        let example: Vec<&str> = lines.by_ref().take_while(|line| *line != "```").collect();
        let example = example.join("\n") + "\n";
        examples += 1;
        if let Err(error) = aqlgen_build::check_text("schema-reference.md", &example) {
            panic!("example {examples} of docs/schema-reference.md:\n{error}\n{example}");
        }
    }
    assert!(examples >= 3, "found {examples} complete examples");
}
