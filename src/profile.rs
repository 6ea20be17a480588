//! Profile directory and owner lock: work in progress.
