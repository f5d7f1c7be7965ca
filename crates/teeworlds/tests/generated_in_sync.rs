//! `src/msg/generated_objects.rs` and `src/msg/generated_messages.rs` are
//! exactly what `tools/gen_messages.py` makes from the corpus copy of the 0.7.5
//! message list (then formatted by rustfmt).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

const DIR: &str = env!("CARGO_MANIFEST_DIR");

#[test]
fn generated_definitions_match_the_generator() {
    for part in ["objects", "messages"] {
        check(part);
    }
}

fn check(part: &str) {
    let spec = gamewire_corpus::path("teeworlds/messages-0.7.5.json");
    let out = Command::new("python3")
        .arg(format!("{DIR}/tools/gen_messages.py"))
        .arg(&spec)
        .arg(part)
        .output();
    let Some(out) = out.ok().filter(|o| o.status.success()) else {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("python3 could not run tools/gen_messages.py");
        }
        println!("skipped: python3 could not run tools/gen_messages.py");
        return;
    };
    let tmp = std::env::temp_dir().join(format!(
        "gamewire-tw-generated-{part}-{}.rs",
        std::process::id()
    ));
    std::fs::write(&tmp, &out.stdout).unwrap();
    let fmt = Command::new("rustfmt")
        .arg("--edition")
        .arg("2021")
        .arg(&tmp)
        .status()
        .unwrap();
    assert!(fmt.success(), "rustfmt failed on the generator output");
    let generated = std::fs::read_to_string(&tmp).unwrap();
    let _ = std::fs::remove_file(&tmp);
    let committed = std::fs::read_to_string(format!("{DIR}/src/msg/generated_{part}.rs")).unwrap();
    assert!(
        generated == committed,
        "src/msg/generated_{part}.rs is out of date: rerun tools/gen_messages.py (see its docstring)"
    );
}
