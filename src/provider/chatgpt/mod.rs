//! The ChatGPT web page's native events (filled in by the provider work).
