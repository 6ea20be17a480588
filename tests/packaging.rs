//! The .deb ships the browser extension (issue 12): every file of `extension/` is in
//! `src-tauri/tauri.conf.json`'s `bundle.linux.deb.files` under
//! `/usr/share/sendledger/extension/`, so a person who installed the package has the
//! folder to load (docs/app.md, "Packaging"; the first-run guide shows that path). The
//! tray process (`sendledger-tray`) and the CLI are shipped beside the window binary.

use std::path::Path;

/// Every file under `dir`, as a path relative to the extension's folder (`contract/contract.js`).
fn extension_files(dir: &Path, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = format!("{prefix}{}", entry.file_name().into_string().unwrap());
        if entry.file_type().unwrap().is_dir() {
            out.extend(extension_files(&entry.path(), &format!("{name}/")));
        } else {
            out.push(name);
        }
    }
    out
}

#[test]
fn every_extension_file_is_shipped_in_the_deb_under_usr_share() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let conf: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("src-tauri/tauri.conf.json")).unwrap(),
    )
    .unwrap();
    let files = conf["bundle"]["linux"]["deb"]["files"]
        .as_object()
        .expect("bundle.linux.deb.files");
    let mut missing = Vec::new();
    for name in extension_files(&root.join("extension"), "") {
        let dest = format!("/usr/share/sendledger/extension/{name}");
        match files.get(&dest).and_then(|v| v.as_str()) {
            Some(src) if src == format!("../extension/{name}") => {}
            _ => missing.push(dest),
        }
    }
    assert!(missing.is_empty(), "not shipped in the .deb: {missing:?}");
    assert!(
        files.contains_key("/usr/bin/sendledger"),
        "the CLI is shipped too"
    );
    assert_eq!(
        files
            .get("/usr/bin/sendledger-tray")
            .and_then(|v| v.as_str()),
        Some("../target/release/sendledger-tray"),
        "the tray process is shipped beside the window binary, which starts it"
    );
    // The tray loads libayatana-appindicator3 at run time (no link the bundler could see).
    let depends = conf["bundle"]["linux"]["deb"]["depends"]
        .as_array()
        .expect("bundle.linux.deb.depends");
    assert!(
        depends.iter().any(|d| d == "libayatana-appindicator3-1"),
        "{depends:?}"
    );
}
