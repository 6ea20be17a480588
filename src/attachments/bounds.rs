//! The bounds of attachments, and the checks of a name, a MIME type and an address.
//! Every refusal is a sentence a person can act on.

/// Largest file, in bytes (32 MiB).
pub const MAX_FILE_BYTES: u64 = 32 * 1024 * 1024;
/// Most attachments one send carries.
pub const MAX_PER_SEND: usize = 10;
/// Most bytes the store holds in all (2 GiB).
pub const MAX_STORE_BYTES: u64 = 2 * 1024 * 1024 * 1024;
/// Longest file name, in characters.
pub const MAX_NAME_CHARS: usize = 255;
/// Longest MIME type, in bytes.
pub const MAX_MIME_BYTES: usize = 255;
/// The MIME type of a file uploaded without one.
pub const DEFAULT_MIME: &str = "application/octet-stream";

/// Checks a file name: 1–255 characters, no `/`, `\` or control characters.
pub fn check_name(name: &str) -> Result<(), String> {
    let n = name.chars().count();
    if n == 0 || n > MAX_NAME_CHARS {
        return Err(format!(
            "the file name must be 1 to {MAX_NAME_CHARS} characters long (it is {n}): give the file's own name"
        ));
    }
    if name
        .chars()
        .any(|c| c == '/' || c == '\\' || c.is_control())
    {
        return Err(
            "the file name holds a '/', a '\\' or a control character: give the file's own name, without a folder"
                .into(),
        );
    }
    Ok(())
}

/// Checks a MIME type: `type/subtype`, printable ASCII, at most 255 bytes.
pub fn check_mime(mime: &str) -> Result<(), String> {
    let ok = !mime.is_empty()
        && mime.len() <= MAX_MIME_BYTES
        && mime.contains('/')
        && mime.bytes().all(|b| b.is_ascii_graphic() || b == b' ');
    if ok {
        Ok(())
    } else {
        Err("the content-type is not a MIME type (type/subtype, at most 255 printable characters): send the file's own type, or none for application/octet-stream".into())
    }
}

/// Checks an attachment's address: 64 lowercase hex digits.
pub fn check_sha256(sha: &str) -> Result<(), String> {
    if sha.len() == 64
        && sha
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        Ok(())
    } else {
        Err("an attachment is named by the sha256 its upload answered (64 lowercase hex digits): upload the file with POST /v1/attachments first".into())
    }
}
