//! Claude Code's files on disk: where a repository's transcripts live,
//! which file names are sessions, what the metadata files beside them say,
//! and the prompt history.

pub mod history;
pub mod paths;
pub mod session_files;
pub mod session_meta;
